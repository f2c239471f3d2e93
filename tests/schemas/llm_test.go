package schemas_test

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hermes-hooks/hermes/hookspec"
)

// schemas/llm.schema.json accepts exactly the pre_api_request answers the engine acts on:
// for each answer, the schema's verdict and hookspec.Normalise's agree.
func TestLLMSchemaAgreesWithNormalise(t *testing.T) {
	sch := compile(t, "llm.schema.json")
	answers := []string{
		`{"action":"modify","request":{"model":"small"}}`,
		`{"action":"modify","request":{}}`,
		`{"action":"modify","request":{"messages":[{"role":"user","content":"hi"}],"tools":[],"params":{"temperature":0}}}`,
		`{"action":"modify","request":{"messages":{}}}`,
		`{"action":"modify","request":{"params":[]}}`,
		`{"action":"modify","request":{"messages":["hi"]}}`,
		`{"action":"modify","request":{"model":4}}`,
		`{"action":"modify","request":{"prompt":"x"}}`,
		`{"action":"modify","request":"trim"}`,
		`{"action":"modify"}`,
		`{"action":"respond","response":"offline"}`,
		`{"action":"respond","response":{"content":"x","tool_calls":[{"name":"web"}],"usage":{"in":1}}}`,
		`{"action":"respond","response":{"text":"x"}}`,
		`{"action":"respond","response":{"content":true}}`,
		`{"action":"respond","response":5}`,
		`{"action":"respond"}`,
		`{"action":"block","message":"m"}`,
		`{"action":"modfy","request":{}}`,
	}
	for _, a := range answers {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(a)))
		if err != nil {
			t.Fatal(err)
		}
		schemaOK := sch.Validate(doc) == nil
		engineOK := hookspec.Normalise(hookspec.PreAPIRequest.String(), doc).Kind != hookspec.None
		if schemaOK != engineOK {
			t.Errorf("%s: the schema accepts it: %v; the engine acts on it: %v", a, schemaOK, engineOK)
		}
	}
}
