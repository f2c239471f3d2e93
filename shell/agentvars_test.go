//go:build unix

package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
)

// agentVarsHook parses one pre_tool_call entry of config.yaml (src, after "- ").
func agentVarsHook(t *testing.T, src string) *Hook {
	t.Helper()
	var node yaml.Node
	if err := yaml.Unmarshal([]byte("pre_tool_call:\n  - "+src+"\n"), &node); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks(filepath.Join(t.TempDir(), "config.yaml"), &node, hookspec.Names())
	if len(warns) != 0 || len(hooks) != 1 {
		t.Fatalf("hooks %v, warnings %v", hooks, warns)
	}
	hooks[0].Timeout = 10 * time.Second
	return hooks[0]
}

// Each agent's hooks find the variables their agent documents, in their environment, in the
// command line and in the exec form's words: a guard named by them runs and blocks.
func TestAgentVars(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "") // restored after the test; unset for it
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	for _, v := range []string{"GEMINI_PROJECT_DIR", "GEMINI_CWD", "GEMINI_SESSION_ID", "PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	project, plugin := t.TempDir(), t.TempDir()
	for _, dir := range []string{".gemini/hooks", ".claude/hooks", ".codex/hooks"} {
		if err := os.MkdirAll(filepath.Join(project, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Each guard prints the variables it was given and blocks.
	guard := func(vars []string) string {
		body := "cat >/dev/null\nprintf '%s' \"$1\" >&2\n"
		for _, v := range vars {
			body += "printf ' " + v + "=%s' \"$" + v + "\" >&2\n"
		}
		return body + "exit 2\n"
	}
	tests := []struct {
		name, entry, dir string
		vars             []string // printed as NAME=value
		want             string
	}{
		{"gemini command", "{command: $GEMINI_PROJECT_DIR/.gemini/hooks/x.sh, dialect: gemini, project_dir: " + project + "}",
			".gemini/hooks", []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_CWD", "GEMINI_SESSION_ID"},
			" GEMINI_PROJECT_DIR=" + project + " CLAUDE_PROJECT_DIR=" + project + " GEMINI_CWD=" + project + " GEMINI_SESSION_ID=sess-1"},
		{"gemini args", "{command: /bin/sh, args: [\"$GEMINI_CWD/.gemini/hooks/x.sh\", \"${GEMINI_SESSION_ID}\"], dialect: gemini, project_dir: " + project + "}",
			".gemini/hooks", nil, "sess-1"},
		{"claude command", "{command: \"\\\"$CLAUDE_PROJECT_DIR\\\"/.claude/hooks/x.sh\", dialect: claude, project_dir: " + project + "}",
			".claude/hooks", []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"}, " CLAUDE_PROJECT_DIR=" + project + " GEMINI_PROJECT_DIR="},
		{"codex plugin", "{command: /bin/sh, args: [\"${PLUGIN_ROOT}/x.sh\", \"$CLAUDE_PLUGIN_ROOT\"], dialect: codex, plugin_root: " + plugin + ", project_dir: " + project + "}",
			"", []string{"PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PROJECT_DIR"},
			plugin + " PLUGIN_ROOT=" + plugin + " CLAUDE_PLUGIN_ROOT=" + plugin + " CLAUDE_PROJECT_DIR=" + project},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(project, tc.dir)
			if tc.dir == "" {
				dir = plugin
			}
			script(t, dir, "x.sh", guard(tc.vars))
			h := agentVarsHook(t, tc.entry)
			kwargs := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"}, "session_id": "sess-1"}
			res := h.Run(context.Background(), kwargs, RunOptions{Cwd: t.TempDir()})
			if res.Answer.Kind != hookspec.Block || res.Answer.Message != strings.TrimSpace(tc.want) {
				t.Errorf("got %+v\nwant a block with %q", res, tc.want)
			}
		})
	}
}
