package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
	d := eng.DecideTool(ctx, ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}})
	if d.Block == nil || d.Block.Message != "lua saw the rewrite" {
		t.Errorf("decision %+v: the Lua guard did not see the rewritten command", d)
	}
	if d := eng.DecideTool(ctx, ToolCall{Name: "read_file", Args: map[string]any{"path": "/a"}}); d.Block != nil || d.Modified {
		t.Errorf("matcher Bash applied to read_file: %+v", d)
	}

	eng.OnSessionStart(ctx, Session{SessionID: "s1"})
	if c := eng.PreLLMCall(ctx, LLMTurn{SessionID: "s2", UserMessage: "hi"}); c != "" {
		t.Errorf("another session got s1's start context: %q", c)
	}
	if c := eng.PreLLMCall(ctx, LLMTurn{SessionID: "s1", UserMessage: "hi"}); c != "You are on branch main." {
		t.Errorf("first turn context %q", c)
	}
	if c := eng.PreLLMCall(ctx, LLMTurn{SessionID: "s1", UserMessage: "again"}); c != "" {
		t.Errorf("second turn got the start context again: %q", c)
	}
	eng.OnSessionStart(ctx, Session{SessionID: "s3"})
	eng.OnSessionEnd(ctx, SessionResult{Session: Session{SessionID: "s3"}})
	if c := eng.PreLLMCall(ctx, LLMTurn{SessionID: "s3"}); c != "" {
		t.Errorf("an ended session kept its start context: %q", c)
	}

	run := eng.RunTool(ctx, ToolCall{Name: "write_file", Args: map[string]any{"path": "/w/x.go", "content": "package x"}},
		func(context.Context, ToolCall) (string, error) { return `{"ok":true}`, nil })
	if run.Result != "{\"ok\":true}\n\nx.go:3: unused variable" {
		t.Errorf("result the model sees: %q", run.Result)
	}
	run = eng.RunTool(ctx, ToolCall{Name: "write_file", Args: map[string]any{"path": "/w/y.go"}},
		func(context.Context, ToolCall) (string, error) { return `{"ok":true}`, nil })
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
