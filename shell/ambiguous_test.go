//go:build unix

package shell

import (
	"context"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
)

// ambiguousHooks parses entries of config.yaml's hooks: for the test.
func ambiguousHooks(t *testing.T, src string) []*Hook {
	t.Helper()
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(src), &node); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks(t.TempDir()+"/config.yaml", &node, hookspec.Names())
	if len(warns) != 0 {
		t.Fatalf("warnings %v", warns)
	}
	return hooks
}

// A call that gives a file both as path (this project's name) and as file_path (the other
// agent's) with different values is blocked, every time: a .env guard can never be shown
// README.md while the tool reads .env. Gemini CLI's read_file and an `if` path rule alike.
func TestAmbiguousArgumentsBlock(t *testing.T) {
	dir := t.TempDir()
	guard := script(t, dir, "protect-env.sh", `case "$(cat)" in *'.env"'*) echo ".env holds secrets" >&2; exit 2;; esac
`)
	hooks := ambiguousHooks(t, "pre_tool_call:\n"+
		"  - {command: "+quote(guard)+", dialect: claude, matcher: Read}\n"+
		"  - {command: "+quote(guard)+", dialect: gemini, matcher: read_file}\n"+
		"  - {command: "+quote(guard)+", dialect: claude, matcher: \"Read|Edit\", if: \"Read(.env)\"}\n")
	ctx := context.Background()
	for _, h := range hooks {
		for _, args := range []map[string]any{
			{"path": ".env", "file_path": "README.md"},
			{"file_path": ".env", "path": "README.md"},
		} {
			for i := range 25 {
				res := h.Run(ctx, map[string]any{"tool_name": "read_file", "args": args}, RunOptions{Cwd: dir})
				if res.Answer.Kind != hookspec.Block {
					t.Fatalf("%s %s, run %d: %+v, want a block", h.Dialect, h.If, i, res)
				}
				if !strings.Contains(res.Answer.Message, "both path and file_path") || !strings.Contains(res.Err, "not run") {
					t.Fatalf("%s %s, run %d: message %q / %q does not say the call is ambiguous", h.Dialect, h.If, i, res.Answer.Message, res.Err)
				}
			}
		}
		// The same value twice is one file: the guard runs on it.
		res := h.Run(ctx, map[string]any{"tool_name": "read_file", "args": map[string]any{"path": ".env", "file_path": ".env"}}, RunOptions{Cwd: dir})
		if res.Answer.Kind != hookspec.Block || res.Answer.Message != ".env holds secrets" {
			t.Errorf("%s %s, .env twice: %+v, want the guard's block", h.Dialect, h.If, res)
		}
		res = h.Run(ctx, map[string]any{"tool_name": "read_file", "args": map[string]any{"path": "README.md", "file_path": "README.md"}}, RunOptions{Cwd: dir})
		if res.Answer.Kind == hookspec.Block || res.Status == hookspec.StatusError {
			t.Errorf("%s %s, README.md twice: %+v, want allowed", h.Dialect, h.If, res)
		}
	}
	// Elsewhere than pre_tool_call the call is not blocked (it ran): the hook is not run, and
	// the error says why.
	post := ambiguousHooks(t, "post_tool_call:\n  - {command: "+quote(guard)+", dialect: claude, matcher: Read}\n")[0]
	res := post.Run(ctx, map[string]any{"tool_name": "read_file", "args": map[string]any{"path": ".env", "file_path": "x"}, "result": "{}"}, RunOptions{Cwd: dir})
	if res.Status != hookspec.StatusError || !strings.Contains(res.Err, "both path and file_path") {
		t.Errorf("post_tool_call: %+v", res)
	}
}

// Renaming never depends on the order of a map: the renamed key's value is kept.
func TestRenameIsDeterministic(t *testing.T) {
	t.Parallel()
	for i := range 50 {
		_, in := DefaultTools.ToClaude("read_file", map[string]any{"path": ".env", "file_path": "README.md", "limit": 3})
		if in["file_path"] != ".env" || in["limit"] != 3 || len(in) != 2 {
			t.Fatalf("run %d: ToClaude gave %v", i, in)
		}
		back := DefaultTools.FromClaude("read_file", map[string]any{"file_path": ".env", "path": "README.md"})
		if back["path"] != ".env" || len(back) != 1 {
			t.Fatalf("run %d: FromClaude gave %v", i, back)
		}
	}
}
