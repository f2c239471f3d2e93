package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// RunTool runs the whole tool-call sequence around the host's tool.
func TestRunTool(t *testing.T) {
	home := testutil.Home(t, pluginFiles("p", "", `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "rm -rf /" then return {action = "block", message = "no"} end
  end)
  ctx.register_hook("transform_terminal_output", function(kw) return kw.output:upper() end)
  ctx.register_hook("post_tool_call", function(kw) require("hermes").saw(kw.result, kw.duration_ms) end)
  ctx.register_hook("transform_tool_result", function(kw) return "seen: " .. kw.result end)
end`))
	var saw []any
	e := engineWith(t, home, Options{HostFuncs: map[string]hookspec.Func{"saw": func(_ context.Context, a []any) (any, error) { saw = a; return nil, nil }}})
	ran := 0
	tool := func(_ context.Context, c hookspec.ToolCall) (string, error) {
		ran++
		if c.Name == "broken" {
			return "", errors.New("disk full")
		}
		return `{"output": "hi", "exit_code": 0}`, nil
	}
	ctx := context.Background()
	run := e.RunTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}}, tool)
	if run.Block == nil || run.Result != `{"error":"no"}` || ran != 0 {
		t.Errorf("blocked call: %+v, tool ran %d times", run, ran)
	}
	run = e.RunTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "echo hi"}, DurationMS: 7}, tool)
	if want := `seen: {"exit_code":0,"output":"HI"}`; run.Result != want || run.Block != nil || run.Err != nil {
		t.Errorf("terminal call: %+v, want result %s", run, want)
	}
	if diff := cmp.Diff([]any{`{"exit_code":0,"output":"HI"}`, int64(7)}, saw); diff != "" {
		t.Errorf("post_tool_call saw (-want +got):\n%s", diff)
	}
	run = e.RunTool(ctx, hookspec.ToolCall{Name: "broken"}, tool)
	if run.Err == nil || run.Result != `seen: {"error":"disk full"}` {
		t.Errorf("failing tool: %+v", run)
	}
}

// WithTrace reports every firing that ran a hook, typed calls included, each with results
// of its own.
func TestWithTrace(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("g", "", one("pre_tool_call", `if kw.tool_name == "x" then return {action="block", message="no x"} end`)),
		pluginFiles("s", "", one("on_session_start", `return kw.session_id`)),
	))
	e, _ := newEngine(t, home)
	var reps []Report
	ctx := WithTrace(context.Background(), func(r Report) { reps = append(reps, r) })
	e.DecideTool(ctx, hookspec.ToolCall{Name: "x"})
	e.DecideTool(ctx, hookspec.ToolCall{Name: "y"})
	e.DecideTurn(ctx, hookspec.LLMTurn{}) // nothing registered: not reported
	e.OnSessionStart(ctx, hookspec.Session{SessionID: "s1", Platform: "cli"})
	if len(reps) != 3 {
		t.Fatalf("%d reports, want 3: %+v", len(reps), reps)
	}
	for _, r := range reps { // timed by the invoker: no metrics are needed for a duration
		if r.Hooks[0].Duration <= 0 {
			t.Errorf("%s: duration %v, want the call's", r.Event, r.Hooks[0].Duration)
		}
	}
	if b := reps[0].Block(); b == nil || b.Message != "no x" || reps[0].Payload["tool_name"] != "x" {
		t.Errorf("first report %+v, want the block of x with its payload", reps[0])
	}
	if reps[1].Block() != nil || reps[1].Hooks[0].Status != hookspec.StatusOK {
		t.Errorf("second report %+v", reps[1])
	}
	if reps[2].Event != hookspec.OnSessionStart || reps[2].Hooks[0].Result != "s1" {
		t.Errorf("third report %+v", reps[2])
	}
}

// Each typed observer call sends the documented keyword arguments.
func TestTypedObservers(t *testing.T) {
	var got map[string]string
	funcs := map[string]hookspec.Func{"got": func(_ context.Context, a []any) (any, error) {
		got[a[0].(string)] = a[1].(string)
		return nil, nil
	}}
	var body strings.Builder
	body.WriteString("function register(ctx)\n")
	for _, h := range []string{hooknames.OnSessionStart, hooknames.OnSessionEnd, hooknames.OnSessionFinalize, hooknames.OnSessionReset, hooknames.SubagentStop, hooknames.PreApprovalRequest, hooknames.PostApprovalResponse, hooknames.PreAPIRequest, hooknames.PostAPIRequest} {
		body.WriteString(`  ctx.register_hook("` + h + `", function(kw) require("hermes").got("` + h + `", require("json").encode(kw)) end)` + "\n")
	}
	body.WriteString("end\n")
	e := engineWith(t, testutil.Home(t, pluginFiles("p", "", body.String())), Options{HostFuncs: funcs})
	got = map[string]string{}
	ctx := context.Background()
	s := hookspec.Session{SessionID: "s1", Model: "m", Platform: "cli"}
	e.OnSessionStart(ctx, s)
	e.OnSessionEnd(ctx, hookspec.SessionResult{Session: s, Completed: true})
	e.OnSessionFinalize(ctx, hookspec.Session{Platform: "cli"})
	e.OnSessionReset(ctx, s)
	e.SubagentStop(ctx, hookspec.Subagent{ParentSessionID: "p", Summary: "done", Status: "completed", DurationMS: 5})
	a := hookspec.Approval{Command: "rm -rf /tmp/x", PatternKey: "rm_rf", PatternKeys: []string{"rm_rf"}, Choice: "deny"}
	e.PreApprovalRequest(ctx, a)
	e.PostApprovalResponse(ctx, a)
	e.PreAPIRequest(ctx, hookspec.APIRequest{SessionID: "s1", APICallCount: 2})
	want := map[string]string{
		hooknames.OnSessionStart:       `{"model":"m","platform":"cli","session_id":"s1"}`,
		hooknames.OnSessionEnd:         `{"completed":true,"interrupted":false,"model":"m","platform":"cli","session_id":"s1"}`,
		hooknames.OnSessionFinalize:    `{"platform":"cli"}`,
		hooknames.OnSessionReset:       `{"platform":"cli","session_id":"s1"}`,
		hooknames.SubagentStop:         `{"child_status":"completed","child_summary":"done","duration_ms":5,"parent_session_id":"p"}`,
		hooknames.PreApprovalRequest:   `{"command":"rm -rf /tmp/x","description":"","pattern_key":"rm_rf","pattern_keys":["rm_rf"],"session_key":"","surface":""}`,
		hooknames.PostApprovalResponse: `{"choice":"deny","command":"rm -rf /tmp/x","description":"","pattern_key":"rm_rf","pattern_keys":["rm_rf"],"session_key":"","surface":""}`,
		hooknames.PreAPIRequest:        `{"api_call_count":2,"model":"","platform":"","session_id":"s1"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kwargs (-want +got):\n%s", diff)
	}
}

// A kwarg that cannot reach a hook is rejected with its key named; a guard fails safe.
func TestUnsupportedKwargsRejected(t *testing.T) {
	type user struct{ Name string }
	e, logs := newEngine(t, testutil.Home(t, testutil.Merge(
		pluginFiles("g", "", one("pre_tool_call", `return nil`)),
		pluginFiles("o", "", one("on_session_start", `return "ran"`)),
	)))
	ctx := context.Background()
	rs := e.Fire(ctx, hookspec.OnSessionStart, map[string]any{"session_id": "s", "user": user{"x"}}).Hooks
	if len(rs) != 1 || rs[0].Status != hookspec.StatusError || !strings.Contains(rs[0].Err, `kwarg "user" holds a engine.user,`) {
		t.Errorf("Invoke with a struct kwarg: %+v", rs)
	}
	rep := e.Fire(ctx, hookspec.PreToolCall, map[string]any{"tool_name": "x", "args": map[string]any{"ch": make(chan int)}})
	if b := rep.Block(); b == nil || !strings.Contains(b.Message, `kwarg "args" holds a chan int`) {
		t.Errorf("Fire(pre_tool_call) with a channel inside args: %+v, want a block naming the key", rep)
	}
	if !strings.Contains(logs.String(), "hook not fired") {
		t.Errorf("not logged:\n%s", logs)
	}
	ok := map[string]any{"n": 1, "f": hookspec.Func(nil), "o": hookspec.Object{V: &user{}}, "l": []any{map[string]any{"x": []string{"y"}}}, "p": &[]int{1}, "e": errors.New("e")}
	if rs := e.Fire(ctx, hookspec.OnSessionStart, ok).Hooks; len(rs) != 1 || rs[0].Result != "ran" {
		t.Errorf("supported kwargs rejected: %+v", rs)
	}
}
