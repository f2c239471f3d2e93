package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// pre_verify keeps the agent going with a hook's reason until the turn's nudges reach
// max_verify_nudges (default 3); then the agent stops, and the decision says it was capped.
func TestPreVerifyContinuesUntilTheCap(t *testing.T) {
	home := testutil.Home(t, pluginFiles("tests-pass", "", one("pre_verify", `
    if not kw.response:find("all tests pass") then
      return {action = "continue", reason = "the tests fail: run them and fix them (nudge " .. kw.nudges .. ")"}
    end`)))
	e, _ := newEngine(t, home)
	ctx := context.Background()
	v := hookspec.Verify{SessionID: "s", Response: "done"}
	for n := range 3 {
		v.Nudges = n
		d := e.PreVerify(ctx, v)
		want := VerifyDecision{Continue: true, Reason: "the tests fail: run them and fix them (nudge " + string(rune('0'+n)) + ")", Hook: "tests-pass"}
		if diff := cmp.Diff(want, d); diff != "" {
			t.Errorf("nudge %d (-want +got):\n%s", n, diff)
		}
	}
	v.Nudges = 3
	if d := e.PreVerify(ctx, v); d.Continue || !d.Capped || d.Hook != "tests-pass" {
		t.Errorf("at the cap: %+v, want the agent to stop (capped)", d)
	}
	v.Nudges, v.Response = 0, "all tests pass"
	if d := e.PreVerify(ctx, v); d != (VerifyDecision{}) {
		t.Errorf("tests pass: %+v, want the agent to stop", d)
	}
}

// A subagent about to stop fires pre_verify with kw.subagent naming it (nil for the agent
// itself); a hook may keep it going, until its own nudges reach the cap.
func TestPreVerifyForASubagent(t *testing.T) {
	home := testutil.Home(t, pluginFiles("verdict", "", one("pre_verify", `
    local s = kw.subagent
    if s and s.agent_type == "reviewer" and not kw.response:find("VERDICT") then
      return {action = "continue", reason = s.agent_id .. " (" .. s.agent_transcript_path .. "): give a verdict"}
    end`)))
	e, _ := newEngine(t, home)
	ctx := context.Background()
	sub := &hookspec.VerifySubagent{ID: "a1", Type: "reviewer", TranscriptPath: "/t/a1.jsonl"}
	cases := []struct {
		name string
		v    hookspec.Verify
		want VerifyDecision
	}{
		{"the agent", hookspec.Verify{SessionID: "s", Response: "done"}, VerifyDecision{}},
		{"a reviewer without a verdict", hookspec.Verify{SessionID: "s", Response: "done", Subagent: sub},
			VerifyDecision{Continue: true, Reason: "a1 (/t/a1.jsonl): give a verdict", Hook: "verdict"}},
		{"a reviewer at the cap", hookspec.Verify{SessionID: "s", Response: "done", Nudges: 3, Subagent: sub},
			VerifyDecision{Capped: true, Reason: "a1 (/t/a1.jsonl): give a verdict", Hook: "verdict"}},
		{"a reviewer with a verdict", hookspec.Verify{SessionID: "s", Response: "VERDICT: approve", Subagent: sub}, VerifyDecision{}},
		{"another subagent", hookspec.Verify{SessionID: "s", Response: "done", Subagent: &hookspec.VerifySubagent{ID: "e1", Type: "explorer"}}, VerifyDecision{}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, e.PreVerify(ctx, c.v)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// max_verify_nudges in config.yaml sets the cap; 0 means no hook keeps the agent going; a
// value that is not a whole number in range is a warning and the default.
func TestMaxVerifyNudges(t *testing.T) {
	always := pluginFiles("nag", "", one("pre_verify", `return {action = "continue", reason = "again"}`))
	for _, tt := range []struct {
		config  string
		allowed int
		warn    string
	}{
		{"max_verify_nudges: 1\n", 1, ""},
		{"max_verify_nudges: 0\n", 0, ""},
		{"max_verify_nudges: lots\n", 3, `max_verify_nudges must be a whole number from 0 to 100, got "lots"`},
		{"max_verify_nudges: 1000\n", 3, "got \"1000\""},
		{"", 3, ""},
	} {
		home := testutil.Home(t, testutil.Merge(always, map[string]string{"config.yaml": tt.config}))
		e, _ := newEngine(t, home)
		got := 0
		for n := 0; n < 10 && e.PreVerify(context.Background(), hookspec.Verify{Nudges: n}).Continue; n++ {
			got++
		}
		if got != tt.allowed {
			t.Errorf("%q: the agent was kept going %d times, want %d", tt.config, got, tt.allowed)
		}
		var warns []string
		for _, w := range e.Warnings() {
			warns = append(warns, w.String())
		}
		if joined := strings.Join(warns, "\n"); tt.warn == "" && joined != "" || !strings.Contains(joined, tt.warn) {
			t.Errorf("%q: warnings %q, want one containing %q", tt.config, joined, tt.warn)
		}
	}
}

// A pre_llm_call block decides over every context: the prompt is not sent, and PreLLMCall
// gives no context for it.
func TestDecideTurnBlocksThePrompt(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("a-context", "priority: 10", one("pre_llm_call", `return {context = "be brief"}`)),
		pluginFiles("b-secrets", "", one("pre_llm_call", `
    if kw.user_message:find("sk%-") then return {action = "block", message = "the prompt holds an API key; remove it"} end`)),
	))
	e, _ := newEngine(t, home)
	ctx := context.Background()
	d := e.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s", UserMessage: "use sk-123"})
	if d.Block == nil || d.Block.Message != "the prompt holds an API key; remove it" || d.Block.Hook != "b-secrets" || d.Context != "" {
		t.Errorf("blocked prompt: %+v (block %+v)", d, d.Block)
	}
	if c := e.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s", UserMessage: "use sk-123"}).Context; c != "" {
		t.Errorf("PreLLMCall of a blocked prompt = %q, want no context", c)
	}
	if d := e.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s", UserMessage: "hello"}); d.Block != nil || d.Context != "be brief" {
		t.Errorf("allowed prompt: %+v", d)
	}
}

// pre_approval_request answers the approval itself; a deny decides over every allow; with
// no answer the person is asked.
func TestPreApprovalRequestAnswers(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("a-allow-tmp", "priority: 10", one("pre_approval_request", `
    if kw.command:find("^rm %-rf /tmp/") then return {action = "allow", remember = true} end
    if kw.command:find("^git push") then return {action = "allow", args = {command = kw.command .. " --dry-run"}} end`)),
		pluginFiles("b-deny-root", "", one("pre_approval_request", `
    if kw.command:find("^rm %-rf /$") or kw.command:find("^rm %-rf /tmp/keep") then return {action = "deny", message = "never"} end`)),
	))
	e, _ := newEngine(t, home)
	ctx := context.Background()
	for _, tt := range []struct {
		command string
		want    ApprovalDecision
	}{
		{"rm -rf /tmp/x", ApprovalDecision{Answered: true, Allow: true, Remember: true, Hook: "a-allow-tmp"}},
		{"rm -rf /tmp/keep", ApprovalDecision{Answered: true, Message: "never", Hook: "b-deny-root"}},
		{"rm -rf /", ApprovalDecision{Answered: true, Message: "never", Hook: "b-deny-root"}},
		{"git push", ApprovalDecision{Answered: true, Allow: true, Args: map[string]any{"command": "git push --dry-run"}, Hook: "a-allow-tmp"}},
		{"chmod -R 777 .", ApprovalDecision{}},
	} {
		if diff := cmp.Diff(tt.want, e.PreApprovalRequest(ctx, hookspec.Approval{Command: tt.command})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.command, diff)
		}
	}
}

// post_tool_failure fires when the tool fails, with the error; pre_compact's instructions
// and post_compact's summary; on_notification's message: each hook sees its kwargs.
func TestFailureCompactNotification(t *testing.T) {
	home := testutil.Home(t, pluginFiles("p", "", `
local hermes = require("hermes")
function register(ctx)
  ctx.register_hook("post_tool_failure", function(kw) hermes.saw("failure", kw.tool_name, kw.error, kw.interrupted) end)
  ctx.register_hook("post_tool_call", function(kw) hermes.saw("post", kw.tool_name) end)
  ctx.register_hook("pre_compact", function(kw) hermes.saw("pre_compact", kw.trigger, #kw.messages); return "keep file names" end)
  ctx.register_hook("post_compact", function(kw) hermes.saw("post_compact", kw.summary) end)
  ctx.register_hook("on_notification", function(kw) hermes.saw("notification", kw.notification_type, kw.message) end)
end`))
	var saw [][]any
	e := engineWith(t, home, Options{HostFuncs: map[string]hookspec.Func{"saw": func(_ context.Context, a []any) (any, error) { saw = append(saw, a); return nil, nil }}})
	ctx := context.Background()
	run := e.RunTool(ctx, hookspec.ToolCall{Name: "terminal"}, func(context.Context, hookspec.ToolCall) (string, error) { return "", errors.New("exit 1") })
	e.RunTool(ctx, hookspec.ToolCall{Name: "read_file"}, func(context.Context, hookspec.ToolCall) (string, error) { return "ok", nil })
	if run.Err == nil {
		t.Errorf("failed tool: %+v", run)
	}
	c := hookspec.Compaction{SessionID: "s", Trigger: "auto", Messages: []hookspec.Message{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}}, Summary: "sum"}
	if got := e.PreCompact(ctx, c); got != "keep file names" {
		t.Errorf("PreCompact = %q", got)
	}
	e.PostCompact(ctx, c)
	e.OnNotification(ctx, hookspec.Notification{Message: "waiting", Type: "idle_prompt"})
	want := [][]any{
		{"post", "terminal"}, {"failure", "terminal", "exit 1", false}, {"post", "read_file"},
		{"pre_compact", "auto", int64(2)}, {"post_compact", "sum"}, {"notification", "idle_prompt", "waiting"},
	}
	if diff := cmp.Diff(want, saw); diff != "" {
		t.Errorf("hooks saw (-want +got):\n%s", diff)
	}
}

// The managed home's max_verify_nudges bounds the user's: an administrator's cap holds.
func TestManagedMaxVerifyNudges(t *testing.T) {
	for _, c := range []struct {
		user, managed string
		want          int
	}{
		{"max_verify_nudges: 5\n", "max_verify_nudges: 1\n", 1},
		{"max_verify_nudges: 1\n", "max_verify_nudges: 5\n", 1},
		{"", "max_verify_nudges: 2\n", 2},
		{"max_verify_nudges: 4\n", "", 4},
	} {
		home := testutil.Home(t, testutil.Merge(pluginFiles("nag", "", one("pre_verify", `return {action = "continue", reason = "again"}`)),
			map[string]string{"config.yaml": c.user}))
		managed := testutil.Home(t, map[string]string{"config.yaml": c.managed})
		e := engineWith(t, home, Options{ManagedHome: managed})
		got := 0
		for n := 0; n < 10 && e.PreVerify(context.Background(), hookspec.Verify{Nudges: n}).Continue; n++ {
			got++
		}
		if got != c.want {
			t.Errorf("user %q, managed %q: kept going %d times, want %d", c.user, c.managed, got, c.want)
		}
	}
}
