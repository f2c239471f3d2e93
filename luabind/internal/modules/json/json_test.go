package json_test

import (
	"testing"

	jsonmod "github.com/hermes-hooks/hermes/luabind/internal/modules/json"
	"github.com/hermes-hooks/hermes/luabind/internal/modules/modulestest"
)

// Decoded nulls are the state's json.null, which the http module shares through the VU;
// arrays keep their kind both ways.
func TestDecodeUsesTheStatesNull(t *testing.T) {
	vu := modulestest.New(t)
	vu.Require("json", jsonmod.Module{})
	null, _ := vu.JSON()
	err := vu.L.DoString(`
local v = json.decode('{"a": null, "b": [], "c": [1, 2]}')
assert(v.a == json.null, "null is json.null")
result = json.encode(v)`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := vu.L.GetGlobal("result").String(), `{"a":null,"b":[],"c":[1,2]}`; got != want {
		t.Errorf("round trip: %s, want %s", got, want)
	}
	if got := vu.L.GetField(vu.L.GetGlobal("json"), "null"); got != null {
		t.Errorf("json.null is %v, want the state's null", got)
	}
}
