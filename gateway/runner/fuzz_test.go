package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/gateway/runner"
	"github.com/hermes-hooks/hermes/hookspec"
)

const fuzzTranscriptName = "fuzz.jsonl"

// fuzzBlocker blocks `rm -rf /` and observes everything else.
const fuzzBlocker = `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "rm -rf /" then return {action = "block", message = "no"} end
  end)
  ctx.register_hook("transform_terminal_output", function(kw) return kw.output end)
  ctx.register_hook("pre_gateway_dispatch", function(kw)
    if kw.event.text == "skip" then return {action = "skip", reason = "r"} end
    if kw.event.text == "rewrite" then return {action = "rewrite", text = "rm -rf /"} end
  end)
end
`

// guardAgent answers from the transcript and fails the test if a blocked call runs.
type guardAgent struct {
	*runner.TranscriptAgent
	t *testing.T
}

func (a guardAgent) RunTool(ctx context.Context, call hookspec.ToolCall) (string, error) {
	if call.Args["command"] == "rm -rf /" {
		a.t.Errorf("tool call %q ran `rm -rf /` although pre_tool_call blocks it", call.ToolCallID)
	}
	return a.TranscriptAgent.RunTool(ctx, call)
}

func FuzzParseTranscript(f *testing.F) {
	for _, s := range []string{
		"", "\n\n", `{"type":"startup","platforms":["telegram"]}`,
		`{"type":"message","platform":"telegram","user_id":"u1","chat_id":"c1","chat_type":"dm","text":"hi","internal":false}` + "\n" +
			`{"type":"llm","model":"m1","tool_calls":[{"id":"call-1","name":"terminal","args":{"command":"rm -rf /"},"result":"{\"output\":\"a\"}","duration_ms":12}]}` + "\n" +
			`{"type":"llm","model":"m1","response":"done"}`,
		`{"type":"command","platform":"telegram","user_id":"u1","chat_id":"c1","name":"reset","args":""}`,
		`{"type":"approval","command":"rm -rf /tmp/x","description":"recursive delete","pattern_key":"rm_rf","choice":"deny"}`,
		`{"type":"subagent","role":"analyst","summary":"Done!","status":"completed","duration_ms":5000}`,
		`{"type":"shutdown"}`, `{"type":"llm"}`, `{"type":"llm","response":null}`, `{"type":"nope"}`, `{"type":"startup","x":1}`,
		`{"TYPE":"message","Text":"skip"}`, `{"type":"message","text":"rewrite"}` + "\n" + `{"type":"llm","tool_calls":[{"id":"a","name":"terminal","args":{"command":"ls"},"result":"{\"output\":1}"}]}`,
		`[1]`, `{"type":"startup"} {"type":"shutdown"}`, "{\"type\":\"message\",\"text\":\"\xff\"}", `{"type":"llm","tool_calls":[{"args":{"n":1e400}}]}`,
		`{"type":"prompt_reply","text":"x"}`, `{"type":"message","internal":true,"text":"rm -rf /"}`, `{"type":"startup","duration_ms":1.5}`,
	} {
		f.Add([]byte(s))
	}
	home := f.TempDir()
	for name, content := range map[string]string{"plugins/guard/plugin.yaml": "name: guard\n", "plugins/guard/handler.lua": fuzzBlocker} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	gw, err := gateway.New(context.Background(), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { gw.Close(context.Background()) })

	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := runner.ParseTranscript(fuzzTranscriptName, bytes.NewReader(data))
		if err != nil {
			if lines != nil || !strings.HasPrefix(err.Error(), fuzzTranscriptName+":") {
				t.Fatalf("error %q with %d lines, want no lines and an error naming the file", err, len(lines))
			}
			return
		}
		for i, l := range lines {
			if l.N < 1 || (i > 0 && l.N <= lines[i-1].N) {
				t.Fatalf("line numbers not increasing: %d after %d", l.N, lines[max(i-1, 0)].N)
			}
			if l.Type == "llm" && l.Response == nil && len(l.ToolCalls) == 0 {
				t.Fatalf("line %d: an llm line with neither tool calls nor response was accepted", l.N)
			}
		}
		// Re-encoding the lines and parsing them again gives the same lines.
		var buf bytes.Buffer
		for _, l := range lines {
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatalf("line %d does not encode: %v", l.N, err)
			}
			buf.Write(append(b, '\n'))
		}
		again, err := runner.ParseTranscript(fuzzTranscriptName, &buf)
		if err != nil {
			t.Fatalf("re-encoded transcript does not parse: %v", err)
		}
		if diff := cmp.Diff(lines, again, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(runner.Line{}, "N")); diff != "" {
			t.Fatalf("re-encoded transcript differs (-first +second):\n%s", diff)
		}
		// Replaying it never panics, never runs a blocked call, and the timeline encodes.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ta := runner.NewTranscriptAgent(lines)
		r := runner.New(gw, guardAgent{ta, t}, runner.Options{Sync: true})
		r.Play(ctx, ta)
		if _, err := json.Marshal(r.Timeline()); err != nil {
			t.Fatalf("the timeline does not encode: %v", err)
		}
	})
}
