package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// Every step of a replay asks the model through RunLLM: a wrap_llm_call hook that falls back
// to another model after an error takes the next llm line for its second call, the
// timeline has the chain (the model called twice) and the request as the model last got it.
func TestReplayRunsModelCallsThroughTheChain(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"plugins/fallback/plugin.yaml": "name: fallback\n",
		"plugins/fallback/handler.lua": `function register(ctx)
  ctx.register_hook("wrap_llm_call", function(kw, next)
    local ok, res = pcall(next)
    if ok then return res end
    return next({model = "backup", system = kw.request.system .. " (fallback)"})
  end)
end`,
	})
	tl, err := Replay(context.Background(), "t.jsonl", strings.NewReader(`{"type":"startup","platforms":["cli"],"system":"be brief","tools":[{"name":"terminal"}]}
{"type":"message","platform":"cli","user_id":"u1","text":"hi"}
{"type":"llm","error":"overloaded"}
{"type":"llm","model":"backup","response":"hello from the backup"}
`), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	var chain *Entry
	var flows []string
	for i, e := range tl.Events {
		switch e.Event {
		case hookspec.WrapLLMCall.String():
			chain = &tl.Events[i]
		case "flow":
			flows = append(flows, e.Flow)
		}
	}
	if chain == nil || len(chain.Hooks) != 1 || *chain.Hooks[0].Nexts != 2 || chain.Hooks[0].Status != hookspec.StatusOK {
		t.Fatalf("wrap_llm_call entry %+v, want the fallback hook calling next twice", chain)
	}
	if o, _ := chain.Outcome.(map[string]any); o["calls"] != 2 {
		t.Errorf("outcome %v, want the model called twice", chain.Outcome)
	}
	want := `request to the model as sent, after hooks rewrote it: model backup, system "be brief (fallback)", tools [terminal], messages [{"content":"hi","role":"user"}]`
	if !slices.Contains(flows, want) {
		t.Errorf("flows %q\nwant %q", flows, want)
	}
	if !slices.Contains(flows, `reply out to u1: "hello from the backup"`) {
		t.Errorf("flows %q: no reply from the backup", flows)
	}
}

// A transcript line of the wrong shape for the new keys is an error naming the line.
func TestTranscriptLLMErrorLine(t *testing.T) {
	lines, err := ParseTranscript("t.jsonl", strings.NewReader(`{"type":"llm","error":"overloaded"}`+"\n"))
	if err != nil || len(lines) != 1 || lines[0].Error != "overloaded" {
		t.Fatalf("lines %+v, err %v", lines, err)
	}
	if _, err := ParseTranscript("t.jsonl", strings.NewReader(`{"type":"llm","tool_calls":[{"id":"c","name":"x","failures":"once"}]}`+"\n")); err == nil || !strings.Contains(err.Error(), "t.jsonl:1:") {
		t.Errorf("failures of the wrong kind: %v", err)
	}
}
