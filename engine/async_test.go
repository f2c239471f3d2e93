//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// An async hook (written for Claude Code) runs in the background and decides nothing, as in
// Claude Code: its exit 2 does not block. An asyncRewake hook's exit 2 gives its stderr to
// the session's next turn.
func TestAsyncHooks(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"block.sh":  "#!/bin/sh\ncat >/dev/null\necho ran >> \"$CLAUDE_PROJECT_DIR/ran\"\necho no >&2\nexit 2\n",
		"rewake.sh": "#!/bin/sh\ncat >/dev/null\necho 'lint: 2 problems in add.go' >&2\nexit 2\n",
	})
	for _, f := range []string{"block.sh", "rewake.sh"} {
		if err := os.Chmod(filepath.Join(home, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n"+
		"  pre_tool_call: [{command: ./block.sh, dialect: claude, async: true, project_dir: "+home+"}]\n"+
		"  post_tool_call: [{command: ./rewake.sh, dialect: claude, async_rewake: true, project_dir: "+home+"}]\n")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	e := engineWith(t, home, Options{AcceptHooks: true})
	ctx := context.Background()
	run := e.RunTool(ctx, hookspec.ToolCall{Name: "terminal", SessionID: "s", Args: map[string]any{"command": "make lint"}},
		func(context.Context, hookspec.ToolCall) (string, error) { return `{"output":"","exit_code":0}`, nil })
	if run.Block != nil {
		t.Errorf("an async hook's exit 2 blocked the call: %+v", run.Block)
	}
	e.bg.wait()
	if b, err := os.ReadFile(filepath.Join(home, "ran")); err != nil || strings.TrimSpace(string(b)) != "ran" {
		t.Errorf("the async hook did not run in the background: %q %v", b, err)
	}
	if c := e.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s"}).Context; c != "lint: 2 problems in add.go" {
		t.Errorf("next turn's context = %q, want the asyncRewake hook's stderr", c)
	}
	if c := e.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s"}).Context; c != "" {
		t.Errorf("the rewake context was given twice: %q", c)
	}
}

// A Claude Code PostToolUse hook's updatedToolOutput is the result the model sees, with its
// additionalContext after it.
func TestUpdatedToolOutputReachesTheModel(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"redact.sh": "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"updatedToolOutput\":\"token=[redacted]\",\"additionalContext\":\"a secret was redacted\"}}'\n",
	})
	if err := os.Chmod(filepath.Join(home, "redact.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  post_tool_call: [{command: "+home+"/redact.sh, dialect: claude, matcher: Bash}]\n")
	e := engineWith(t, home, Options{AcceptHooks: true})
	run := e.RunTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "env"}},
		func(context.Context, hookspec.ToolCall) (string, error) {
			return `{"output":"token=abc123","exit_code":0}`, nil
		})
	if want := "token=[redacted]\n\na secret was redacted"; run.Result != want {
		t.Errorf("result %q, want %q", run.Result, want)
	}
	rep := e.Fire(context.Background(), hookspec.PostToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{}, "result": "x"})
	if want := map[string]any{"result": "token=[redacted]", "context": "a secret was redacted"}; !reflect.DeepEqual(rep.Outcome, want) {
		t.Errorf("outcome %v, want %v", rep.Outcome, want)
	}
}
