package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// everyHook registers a callback on every plugin hook; the dispatch and tool hooks act on
// the message text and tool arguments.
const everyHook = `
local json = require("json")
function register(ctx)
  for _, name in ipairs({"post_tool_call", "transform_terminal_output", "post_llm_call", "transform_llm_output",
      "on_session_start", "on_session_end", "on_session_finalize", "on_session_reset", "subagent_stop",
      "pre_approval_request", "post_approval_response", "transform_tool_result"}) do
    ctx.register_hook(name, function(kw) return nil end)
  end
  ctx.register_hook("pre_gateway_dispatch", function(kw)
    local t = kw.event.text
    if t == "spam" then return {action = "skip", reason = "spam"} end
    if string.sub(t, 1, 5) == "tell " then
      kw.gateway.send(kw.event.platform, kw.event.chat_id, "rewriting")
      return {action = "rewrite", text = "please " .. string.sub(t, 6)}
    end
  end)
  ctx.register_hook("pre_llm_call", function(kw) return {context = "REMEMBER: user likes tea"} end)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "rm -rf /" then return {action = "block", message = "not allowed"} end
  end)
end`

type recordingAgent struct {
	*TranscriptAgent
	reqs []StepRequest
}

func (a *recordingAgent) Step(ctx context.Context, req StepRequest) (Step, error) {
	a.reqs = append(a.reqs, req)
	return a.TranscriptAgent.Step(ctx, req)
}

func replay(t *testing.T, transcript string) (*Runner, *recordingAgent, []string) {
	t.Helper()
	home := testutil.Home(t, testutil.Merge(
		map[string]string{"plugins/all/plugin.yaml": "name: all\n", "plugins/all/handler.lua": everyHook},
		hookFiles("events", `events: ["gateway:*", "session:*", "agent:*", "command:*"]`, `function handle(ev, ctx) return nil end`),
	))
	g, _ := newGateway(t, home, gateway.Options{})
	lines, err := ParseTranscript("t.jsonl", strings.NewReader(transcript))
	if err != nil {
		t.Fatal(err)
	}
	agent := &recordingAgent{TranscriptAgent: NewTranscriptAgent(lines)}
	r := New(g, agent, Options{Sync: true, Model: "m0"})
	// Replay uses the embedded agent's cursor; the runner's agent records requests.
	if err := r.Play(context.Background(), agent.TranscriptAgent); err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, e := range r.Timeline().Events {
		events = append(events, e.Event)
	}
	return r, agent, events
}

func TestReplayOrder(t *testing.T) {
	_, _, events := replay(t, `
{"type":"startup","platforms":["telegram"]}
{"type":"message","platform":"telegram","user_id":"u1","chat_id":"c1","chat_type":"dm","text":"hi"}
{"type":"llm","model":"m1","tool_calls":[{"id":"call-1","name":"terminal","args":{"command":"ls"},"result":"{\"output\":\"a\"}","duration_ms":12}]}
{"type":"llm","model":"m1","response":"done"}
{"type":"command","platform":"telegram","user_id":"u1","chat_id":"c1","name":"reset","args":""}
{"type":"approval","command":"rm -rf /tmp/x","description":"recursive delete","pattern_key":"rm_rf","choice":"deny"}
{"type":"subagent","role":"analyst","summary":"Done!","status":"completed","duration_ms":5000}
{"type":"shutdown"}
`)
	want := []string{ // "flow": what came in and went out (the message, the tool call and result, the reply)
		"gateway:startup",
		"flow", "pre_gateway_dispatch", "session:start", "on_session_start", "agent:start", "pre_llm_call",
		"flow", "pre_tool_call", "transform_terminal_output", "post_tool_call", "transform_tool_result", "flow", "agent:step",
		"transform_llm_output", "post_llm_call", "flow", "agent:end", "on_session_end",
		"command:reset", "on_session_finalize", "session:end", "session:reset", "on_session_reset",
		"pre_approval_request", "post_approval_response",
		"subagent_stop",
		"on_session_finalize", "shutdown",
	}
	if diff := cmp.Diff(want, withoutNotes(events)); diff != "" {
		t.Errorf("event order (-want +got):\n%s", diff)
	}
}

func withoutNotes(events []string) []string {
	var out []string
	for _, e := range events {
		if e != "note" {
			out = append(out, e)
		}
	}
	return out
}

func TestReplayBlockRewriteSkipContext(t *testing.T) {
	r, agent, events := replay(t, `
{"type":"message","platform":"telegram","user_id":"u1","chat_id":"c1","text":"tell me a joke"}
{"type":"llm","tool_calls":[{"id":"c-1","name":"terminal","args":{"command":"rm -rf /"},"result":"{\"output\":\"gone\"}"},{"id":"c-2","name":"terminal","args":{"command":"ls"},"result":"{\"output\":\"a\"}"}]}
{"type":"llm","response":"ok"}
{"type":"message","platform":"telegram","user_id":"u1","chat_id":"c1","text":"spam"}
{"type":"message","platform":"telegram","user_id":"u1","chat_id":"c1","text":"spam","internal":true}
{"type":"llm","response":"internal handled"}
`)
	if len(agent.reqs) != 3 {
		t.Fatalf("agent saw %d steps, want 3 (the skipped message never reaches it)", len(agent.reqs))
	}
	first, second, internal := agent.reqs[0], agent.reqs[1], agent.reqs[2]
	if first.UserMessage != "please me a joke" {
		t.Errorf("rewrite did not reach the agent: %q", first.UserMessage)
	}
	if first.Context != "REMEMBER: user likes tea" {
		t.Errorf("context = %q", first.Context)
	}
	wantResults := []string{`{"error":"not allowed"}`, `{"output":"a"}`}
	for i, res := range second.ToolResults {
		if res.Result != wantResults[i] {
			t.Errorf("tool result %d = %s, want %s", i, res.Result, wantResults[i])
		}
	}
	if !second.ToolResults[0].Blocked {
		t.Error("blocked call not marked blocked")
	}
	if internal.UserMessage != "spam" {
		t.Errorf("internal message = %q; internal messages bypass the dispatch hook", internal.UserMessage)
	}
	for _, m := range r.History(first.SessionID) {
		if strings.Contains(m.Content, "REMEMBER") {
			t.Errorf("injected context stored in history: %+v", m)
		}
	}
	if h := r.History(first.SessionID); len(h) != 4 || h[0].Content != "please me a joke" || h[1].Content != "ok" {
		t.Errorf("history = %+v", h)
	}
	// One dispatch per non-internal message; the skipped one stops right after it.
	if n := strings.Count(strings.Join(events, " "), "pre_gateway_dispatch"); n != 2 {
		t.Errorf("pre_gateway_dispatch fired %d times, want 2", n)
	}
	var sends int
	for _, e := range r.Timeline().Events {
		if e.Event == "gateway.send" {
			sends++
			if diff := cmp.Diff(map[string]any{"platform": "telegram", "chat_id": "c1", "text": "rewriting"}, e.Outcome); diff != "" {
				t.Errorf("gateway.send (-want +got):\n%s", diff)
			}
		}
	}
	if sends != 1 {
		t.Errorf("%d gateway.send entries, want 1", sends)
	}
}

func TestTranscriptErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"message"`, "t.jsonl:1:"},
		{"\n{\"type\":\"bogus\"}", `t.jsonl:2: unknown type "bogus"`},
		{`{"type":"message","txt":"x"}`, `t.jsonl:1: unknown field "txt"`},
		{`{"type":"llm"}`, "needs tool_calls, a response or an error"},
	}
	for _, tt := range tests {
		_, err := ParseTranscript("t.jsonl", strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestRunAgentHostFunc(t *testing.T) {
	home := testutil.Home(t, hookFiles("boot", `events: ["gateway:startup"]`, `
function handle(ev, ctx)
  local reply = require("hermes").run_agent("Run the BOOT.md checklist")
  if reply ~= "[SILENT]" then return reply end
end`))
	tl, err := Replay(context.Background(), "t.jsonl", strings.NewReader(`{"type":"prompt_reply","text":"2 items need attention"}
{"type":"startup","platforms":["cli"]}
{"type":"startup","platforms":["cli"]}`), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []any
	for _, e := range tl.Events {
		outcomes = append(outcomes, e.Outcome)
	}
	want := []any{[]any{"2 items need attention"}, []any(nil)}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Errorf("startup outcomes (-want +got):\n%s", diff)
	}
}

// The timeline shows the arguments a tool really ran with when hooks modified them.
func TestReplayShowsModifiedArgs(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"plugins/safe/plugin.yaml": "name: safe\n",
		"plugins/safe/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "rm -rf /tmp/x" then return {action = "modify", args = {command = "rm -ri /tmp/x"}} end
  end)
end`,
	})
	tl, err := Replay(context.Background(), "t.jsonl", strings.NewReader(`{"type":"message","platform":"cli","user_id":"u1","text":"clean"}
{"type":"llm","model":"m","tool_calls":[{"id":"c1","name":"terminal","args":{"command":"rm -rf /tmp/x"},"result":"{}"}]}
{"type":"llm","model":"m","response":"done"}
`), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	var flows []string
	for _, e := range tl.Events {
		if e.Event == "flow" {
			flows = append(flows, e.Flow)
		}
	}
	want := `tool call c1 ran with the arguments hooks left: {"command":"rm -ri /tmp/x"}`
	if !slices.Contains(flows, want) {
		t.Errorf("flows %q, want %q", flows, want)
	}
}

// In a replay, a hook's ask is answered by the approval line after the step, with the
// approval hooks fired around it: "deny" blocks the call, another choice lets it run.
func TestReplayAnswersAsksFromApprovalLines(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"plugins/careful/plugin.yaml": "name: careful\n",
		"plugins/careful/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command:find("deploy", 1, true) then return {action = "ask", message = "deploy?"} end
  end)
  ctx.register_hook("post_approval_response", function(kw) return kw.choice end)
end`,
	})
	tl, err := Replay(context.Background(), "t.jsonl", strings.NewReader(`{"type":"message","platform":"cli","user_id":"u1","text":"ship it"}
{"type":"llm","model":"m","tool_calls":[{"id":"c1","name":"terminal","args":{"command":"deploy staging"},"result":"{\"output\":\"ok\"}"}]}
{"type":"approval","command":"deploy staging","choice":"once"}
{"type":"llm","model":"m","tool_calls":[{"id":"c2","name":"terminal","args":{"command":"deploy prod"},"result":"{\"output\":\"ok\"}"}]}
{"type":"approval","command":"deploy prod","choice":"deny"}
{"type":"llm","model":"m","tool_calls":[{"id":"c3","name":"terminal","args":{"command":"deploy again"},"result":"{}"}]}
{"type":"llm","model":"m","response":"done"}
`), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	var story []string
	for _, e := range tl.Events {
		switch {
		case e.Event == "flow" && strings.HasPrefix(e.Flow, "tool result"):
			story = append(story, e.Flow)
		case e.Event == "post_approval_response":
			story = append(story, "approval hook saw "+fmt.Sprint(e.Hooks[0].Result))
		}
	}
	want := []string{
		"approval hook saw once",
		`tool result c1, as the model sees it: {"output":"ok"}`,
		"approval hook saw deny",
		`tool result c2, as the model sees it: {"error":"blocked: careful asked for approval (deploy?) and the answer was no"}`,
		"approval hook saw deny",
		`tool result c3, as the model sees it: {"error":"blocked: careful asked for approval (deploy?) and the approver failed: the transcript has no approval line`,
	}
	if len(story) != len(want) {
		t.Fatalf("story %q, want %q", story, want)
	}
	for i := range want { // flow lines are shortened
		if !strings.HasPrefix(story[i], want[i]) {
			t.Errorf("story[%d] = %q, want it to start with %q", i, story[i], want[i])
		}
	}
}

// A replayed tool call takes the time the transcript says it took (duration_ms), as the
// hooks after it see: the tool a replay stands in for was not run.
func TestReplayKeepsRecordedDuration(t *testing.T) {
	home := testutil.Home(t, map[string]string{"plugins/d/plugin.yaml": "name: d\n", "plugins/d/handler.lua": `
function register(ctx)
  ctx.register_hook("transform_tool_result", function(kw) return "took " .. tostring(kw.duration_ms) end)
end`})
	g, _ := newGateway(t, home, gateway.Options{})
	lines, err := ParseTranscript("t.jsonl", strings.NewReader(`
{"type":"message","platform":"telegram","user_id":"u1","chat_id":"c1","text":"hi"}
{"type":"llm","tool_calls":[{"id":"c-1","name":"read","args":{"path":"a"},"result":"x","duration_ms":1234}]}
{"type":"llm","response":"ok"}
`))
	if err != nil {
		t.Fatal(err)
	}
	agent := &recordingAgent{TranscriptAgent: NewTranscriptAgent(lines)}
	r := New(g, agent, Options{Sync: true})
	if err := r.Play(context.Background(), agent.TranscriptAgent); err != nil {
		t.Fatal(err)
	}
	if len(agent.reqs) != 2 || len(agent.reqs[1].ToolResults) != 1 {
		t.Fatalf("agent saw %+v", agent.reqs)
	}
	if got := agent.reqs[1].ToolResults[0].Result; got != "took 1234" {
		t.Errorf("the hook saw %q, want the transcript's duration_ms (took 1234)", got)
	}
}
