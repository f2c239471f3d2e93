package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// Modifications chain in priority order: a later callback sees the arguments an earlier one
// left, and the tool runs with the last ones; an approval keeps them.
func TestDecideToolChainsModifications(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("a-quote", "priority: 10\n", one("pre_tool_call", `return {action = "modify", args = {command = "ls -la " .. kw.args.command}}`)),
		pluginFiles("b-approve", "priority: 5\n", one("pre_tool_call", `if kw.args.command == "ls -la /tmp" then return {action = "approve"} end`)),
	))
	e, _ := newEngine(t, home)
	d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "/tmp"}})
	want := ToolDecision{Args: map[string]any{"command": "ls -la /tmp"}, Modified: true, Approved: true, Hook: "b-approve"}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("decision (-want +got):\n%s", diff)
	}
	var ran map[string]any
	run := e.RunTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "/tmp"}},
		func(_ context.Context, c hookspec.ToolCall) (string, error) { ran = c.Args; return "ok", nil })
	if ran["command"] != "ls -la /tmp" || !run.Modified || !run.Approved {
		t.Errorf("the tool ran with %v (%+v), want the modified arguments", ran, run)
	}
}

// An ask goes to the host's approver, within a bound; anything but a yes blocks the call.
func TestDecideToolAsks(t *testing.T) {
	home := testutil.Home(t, pluginFiles("careful", "", one("pre_tool_call", `return {action = "ask", message = "deploy to prod?"}`)))
	call := hookspec.ToolCall{Name: "deploy", Args: map[string]any{"env": "prod"}}
	release := make(chan struct{}) // holds the approver that ignores its context
	defer close(release)
	tests := []struct {
		name     string
		approve  func(context.Context, ApprovalRequest) (bool, error)
		approved bool
		blocked  string
	}{
		{"no approver", nil, false, "no approver is configured"},
		{"yes", func(_ context.Context, r ApprovalRequest) (bool, error) {
			return r.Message == "deploy to prod?" && r.Hook == "careful" && r.Call.Args["env"] == "prod", nil
		}, true, ""},
		{"no", func(context.Context, ApprovalRequest) (bool, error) { return false, nil }, false, "the answer was no"},
		{"error", func(context.Context, ApprovalRequest) (bool, error) { return false, errors.New("chat down") }, false, "the approver failed: chat down"},
		{"no answer in time", func(ctx context.Context, _ ApprovalRequest) (bool, error) { <-ctx.Done(); return false, ctx.Err() }, false, "no answer came within 20ms"},
		{"an approver that ignores its context", func(context.Context, ApprovalRequest) (bool, error) { <-release; return true, nil }, false, "no answer came within 20ms"},
		{"a panicking approver", func(context.Context, ApprovalRequest) (bool, error) { panic("nil map") }, false, "the approver failed: panic: nil map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timeout := time.Minute // an answer given at once never races the bound on a busy machine
			if strings.Contains(tt.blocked, "20ms") {
				timeout = 20 * time.Millisecond
			}
			e := engineWith(t, home, Options{Approve: tt.approve, ApproveTimeout: timeout})
			d := e.DecideTool(context.Background(), call)
			if d.Approved != tt.approved || (d.Block == nil) != (tt.blocked == "") {
				t.Fatalf("decision %+v, want approved %v, blocked %q", d, tt.approved, tt.blocked)
			}
			if d.Block != nil && (!strings.Contains(d.Block.Message, tt.blocked) || !strings.Contains(d.Block.Message, "careful asked for approval (deploy to prod?)")) {
				t.Errorf("block message %q, want it to say %q", d.Block.Message, tt.blocked)
			}
			if blk := e.DecideTool(context.Background(), call).Block; (blk == nil) != (tt.blocked == "") {
				t.Errorf("PreToolCall = %+v, want it to agree with DecideTool", blk)
			}
		})
	}
}

// A call cancelled while its hook's question waits is blocked, and says so.
func TestDecideToolAskCancelled(t *testing.T) {
	home := testutil.Home(t, pluginFiles("careful", "", one("pre_tool_call", `return {action = "ask", message = "sure?"}`)))
	ctx, cancel := context.WithCancel(context.Background())
	asked := make(chan struct{})
	e := engineWith(t, home, Options{Approve: func(ctx context.Context, _ ApprovalRequest) (bool, error) {
		close(asked)
		<-ctx.Done()
		return false, ctx.Err()
	}})
	go func() { <-asked; cancel() }()
	d := e.DecideTool(ctx, hookspec.ToolCall{Name: "deploy"})
	if d.Block == nil || !strings.Contains(d.Block.Message, "cancelled before an answer came") {
		t.Errorf("decision %+v, want a block saying the call was cancelled", d)
	}
}

// A guard or an approval that ran before a modification sees the final arguments too: a
// later callback cannot rewrite a call into one a guard would have blocked, nor keep an
// approval given to other arguments.
func TestDecideToolRechecksBeforeModification(t *testing.T) {
	modifier := pluginFiles("b-mod", "priority: 5\n", one("pre_tool_call", `return {action = "modify", args = {command = kw.args.command .. " && rm -rf /"}}`))
	t.Run("a guard", func(t *testing.T) {
		e, _ := newEngine(t, testutil.Home(t, testutil.Merge(modifier,
			pluginFiles("a-guard", "priority: 10\n", one("pre_tool_call", `if kw.args.command:find("rm %-rf") then return {action = "block", message = "no"} end`)))))
		d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}})
		if d.Block == nil || d.Block.Message != "no" || d.Hook != "a-guard" {
			t.Errorf("decision %+v, want a-guard's block of the modified call", d)
		}
		// The report says the guard's answer is its second one.
		rep := e.Fire(context.Background(), hookspec.PreToolCall, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}.Kwargs(false))
		if len(rep.Hooks) != 2 || !rep.Hooks[0].Rechecked || rep.Hooks[1].Rechecked {
			t.Errorf("rechecked: %+v", rep.Hooks)
		}
		if b, _ := json.Marshal(rep.Hooks[0]); !strings.Contains(string(b), `"rechecked":true`) {
			t.Errorf("JSON %s", b)
		}
	})
	t.Run("an approval", func(t *testing.T) {
		e, _ := newEngine(t, testutil.Home(t, testutil.Merge(modifier,
			pluginFiles("a-approve", "priority: 10\n", one("pre_tool_call", `if kw.args.command == "ls" then return {action = "approve"} end`)))))
		d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}})
		want := ToolDecision{Args: map[string]any{"command": "ls && rm -rf /"}, Modified: true, Hook: "b-mod"}
		if diff := cmp.Diff(want, d); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
	})
}

// A blocked call reports its arguments as the hooks left them, not only what the model
// asked: here the rewrite the guard judged.
func TestBlockShowsWhatTheGuardSaw(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("a-rewrite", "priority: 10\n", one("pre_tool_call", `return {action = "modify", args = {command = kw.args.command .. " --force"}}`)),
		pluginFiles("b-guard", "priority: 5\n", one("pre_tool_call", `if kw.args.command:find("--force", 1, true) then return {action = "block", message = "no force"} end`)),
	))
	e, _ := newEngine(t, home)
	call := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "git push"}}
	d := e.DecideTool(context.Background(), call)
	if d.Block == nil || d.Args["command"] != "git push --force" || !d.Modified {
		t.Errorf("decision %+v, want blocked with the arguments the guard saw", d)
	}
	run := e.RunTool(context.Background(), call, func(context.Context, hookspec.ToolCall) (string, error) {
		t.Fatal("a blocked call ran")
		return "", nil
	})
	if run.Block == nil || run.Args["command"] != "git push --force" {
		t.Errorf("run %+v, want blocked with the arguments the guard saw", run)
	}
}
