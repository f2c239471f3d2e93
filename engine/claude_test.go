package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// Hooks written for Claude Code take part in one decision with Lua hooks: an updatedInput
// rewrites the call for the hooks after it, a Lua block still wins, SessionStart's context
// reaches the session's first turn only, and PostToolUse's feedback reaches the model.
func TestClaudeHooksInTheEngine(t *testing.T) {
	home := testutil.Home(t, pluginFiles("lua", "", `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "ls -la /etc" then return {action = "block", message = "lua saw the rewrite"} end
  end)
end`))
	rewrite := script(t, home, "rewrite.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -la /etc"}}}'`)
	start := script(t, home, "start.sh", `cat >/dev/null; echo "You are on branch main."`)
	lint := script(t, home, "lint.sh", `grep -q '"file_path":"/w/x.go"' || exit 0; echo "x.go:3: unused variable" >&2; exit 2`)
	writeFile(t, filepath.Join(home, "config.yaml"), `
hooks:
  pre_tool_call:
    - {command: `+rewrite+`, dialect: claude, matcher: Bash}
  on_session_start:
    - {command: `+start+`, dialect: claude}
  post_tool_call:
    - {command: `+lint+`, dialect: claude, matcher: "Write|Edit"}
`)
	logs := &testutil.Buffer{}
	ctx := context.Background()
	eng, err := New(ctx, Options{Home: home, AcceptHooks: true, Logger: newTestLogger(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if w := eng.Warnings(); len(w) != 0 {
		t.Fatalf("warnings: %v\n%s", w, logs)
	}
	d := eng.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}})
	if d.Block == nil || d.Block.Message != "lua saw the rewrite" {
		t.Errorf("decision %+v: the Lua guard did not see the rewritten command", d)
	}
	if d := eng.DecideTool(ctx, hookspec.ToolCall{Name: "read_file", Args: map[string]any{"path": "/a"}}); d.Block != nil || d.Modified {
		t.Errorf("matcher Bash applied to read_file: %+v", d)
	}

	eng.OnSessionStart(ctx, hookspec.Session{SessionID: "s1"})
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s2", UserMessage: "hi"}).Context; c != "" {
		t.Errorf("another session got s1's start context: %q", c)
	}
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s1", UserMessage: "hi"}).Context; c != "You are on branch main." {
		t.Errorf("first turn context %q", c)
	}
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s1", UserMessage: "again"}).Context; c != "" {
		t.Errorf("second turn got the start context again: %q", c)
	}
	eng.OnSessionStart(ctx, hookspec.Session{SessionID: "s3"})
	eng.OnSessionEnd(ctx, hookspec.SessionResult{Session: hookspec.Session{SessionID: "s3"}})
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s3"}).Context; c != "" {
		t.Errorf("an ended session kept its start context: %q", c)
	}
	eng.OnSessionStart(ctx, hookspec.Session{SessionID: "s4"})
	defer func() { // last: a closed engine adds nothing, not even a waiting start context
		eng.Close(ctx)
		if c := eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s4"}).Context; c != "" {
			t.Errorf("a closed engine gave context %q", c)
		}
	}()

	run := eng.RunTool(ctx, hookspec.ToolCall{Name: "write_file", Args: map[string]any{"path": "/w/x.go", "content": "package x"}},
		func(context.Context, hookspec.ToolCall) (string, error) { return `{"ok":true}`, nil })
	if run.Result != "{\"ok\":true}\n\nx.go:3: unused variable" {
		t.Errorf("result the model sees: %q", run.Result)
	}
	run = eng.RunTool(ctx, hookspec.ToolCall{Name: "write_file", Args: map[string]any{"path": "/w/y.go"}},
		func(context.Context, hookspec.ToolCall) (string, error) { return `{"ok":true}`, nil })
	if run.Result != `{"ok":true}` {
		t.Errorf("clean file: %q", run.Result)
	}
	info := eng.ShellHooks()
	if len(info) != 3 || info[0].Dialect != "claude" {
		t.Errorf("shell hooks %+v", info)
	}
	if strings.Contains(logs.String(), `level=WARN msg="shell hook`) {
		t.Errorf("warnings logged:\n%s", logs)
	}
}

// The precedence block > ask > approve > modify holds between a Lua plugin and a hook
// written for Claude Code, whichever of the two gives which answer.
func TestClaudePrecedenceWithLua(t *testing.T) {
	deny := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"claude no"}}'`
	ask := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"claude asks"}}'`
	allow := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`
	rewrite := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"claude"}}}'`
	exit2 := `echo "claude exit 2" >&2; exit 2`
	cases := []struct {
		name, lua, claude string
		block, approved   bool
		args              string // the command the call runs with ("" when blocked)
	}{
		{"lua block beats claude allow", `{action = "block", message = "lua no"}`, allow, true, false, ""},
		{"claude deny beats lua approve", `{action = "approve"}`, deny, true, false, ""},
		{"claude exit 2 beats lua modify", `{action = "modify", args = {command = "lua"}}`, exit2, true, false, ""},
		{"claude ask beats lua approve: the approver says yes", `{action = "approve"}`, ask, false, true, "ls"},
		{"lua approve beats claude rewrite, which still applies", `{action = "approve"}`, rewrite, false, true, "claude"},
		{"claude allow beats lua modify, which still applies", `{action = "modify", args = {command = "lua"}}`, allow, false, true, "lua"},
		{"both modify: the later (claude) stands", `{action = "modify", args = {command = "lua"}}`, rewrite, false, false, "claude"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := testutil.Home(t, pluginFiles("lua", "", one("pre_tool_call", "return "+c.lua)))
			hook := script(t, home, "claude.sh", "cat >/dev/null; "+c.claude)
			writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_tool_call:\n    - {command: \"'"+hook+"'\", dialect: claude}\n")
			asked := ""
			eng, err := New(context.Background(), Options{Home: home, AcceptHooks: true,
				Approve: func(_ context.Context, r ApprovalRequest) (bool, error) { asked = r.Message; return true, nil }})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close(context.Background())
			d := eng.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}})
			if (d.Block != nil) != c.block || d.Approved != c.approved {
				t.Fatalf("decision %+v (block %v), want block %v approved %v", d, d.Block, c.block, c.approved)
			}
			if !c.block && d.Args["command"] != c.args {
				t.Errorf("runs with %v, want %q", d.Args, c.args)
			}
			if strings.Contains(c.claude, "ask") && asked != "claude asks" {
				t.Errorf("the approver was asked %q", asked)
			}
		})
	}
}

// An ask whose arguments are not a table still asks, about the call's own arguments, and the
// hook's mistake is reported: from Lua and from a shell hook.
func TestAskWithBadArgsIsReported(t *testing.T) {
	home := testutil.Home(t, pluginFiles("lua", "", one("pre_tool_call", `return {action = "ask", message = "sure?", args = "ls -la"}`)))
	hook := script(t, home, "ask.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","updatedInput":"rm"}}'`)
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_tool_call:\n    - {command: \"'"+hook+"'\", dialect: claude}\n")
	var asked []map[string]any
	eng, err := New(context.Background(), Options{Home: home, AcceptHooks: true,
		Approve: func(_ context.Context, r ApprovalRequest) (bool, error) {
			asked = append(asked, r.Call.Args)
			return false, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	rep := eng.Fire(context.Background(), hookspec.PreToolCall, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}.Kwargs(false))
	if len(rep.Hooks) != 2 || rep.Decision.Kind != hookspec.Ask {
		t.Fatalf("report %+v", rep)
	}
	for _, h := range rep.Hooks {
		if h.Status != hookspec.StatusError || !strings.Contains(h.Err, "not a table: the person is asked about the call's own arguments") {
			t.Errorf("%s: %s %q", h.Name, h.Status, h.Err)
		}
	}
	if d := eng.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}); d.Block == nil || len(asked) != 1 || asked[0]["command"] != "ls" {
		t.Errorf("decision %+v, asked %v", d, asked)
	}
}

// A SessionStart hook written for Claude Code whose text starts with "{" but is not JSON
// gives that text as context, as Claude Code does, to the session's first turn.
func TestClaudeSessionStartTextLikeJSON(t *testing.T) {
	home := testutil.Home(t, nil)
	start := script(t, home, "start.sh", `cat >/dev/null; echo "{branch: main, 2 files changed}"`)
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  on_session_start:\n    - {command: "+start+", dialect: claude}\n")
	ctx := context.Background()
	eng, err := New(ctx, Options{Home: home, AcceptHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	eng.OnSessionStart(ctx, hookspec.Session{SessionID: "s1"})
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s1", UserMessage: "hi"}).Context; c != "{branch: main, 2 files changed}" {
		t.Errorf("first turn context %q", c)
	}
}
