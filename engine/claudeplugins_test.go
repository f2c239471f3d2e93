//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A plugins: entry that names a Claude Code plugin bundle loads its hooks, with the bundle's
// ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA}; what cannot be mapped is a load warning
// naming hooks.json's line; a directory that is not a bundle is a warning too.
func TestClaudePluginBundles(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"bundles/guard/.claude-plugin/plugin.json": `{"name": "guard"}`,
		"bundles/guard/hooks/hooks.json": `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh"}]}],
  "TeammateIdle": [{"hooks": [{"type": "command", "command": "x"}]}]
}}`,
		"bundles/guard/guard.sh": "#!/bin/sh\ncat >/dev/null\nmkdir -p \"$CLAUDE_PLUGIN_DATA\" && echo seen >> \"$CLAUDE_PLUGIN_DATA/log\"\necho \"no, says $(basename \"$CLAUDE_PLUGIN_ROOT\")\" >&2\nexit 2\n",
		"config.yaml":            "plugins:\n  disabled: [nothing]\n  claude: [bundles/guard, bundles/missing]\nhooks:\n  post_tool_call: [{command: /bin/true}]\n",
	})
	if err := os.Chmod(filepath.Join(home, "bundles/guard/guard.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := engineWith(t, home, Options{AcceptHooks: true})
	var warns []string
	for _, w := range e.Warnings() {
		warns = append(warns, w.String())
	}
	for _, want := range []string{
		"hooks.json:3: hooks.TeammateIdle: there are no agent teams here; a teammate cannot be kept working (not loaded)",
		"plugins.claude: " + filepath.Join(home, "bundles/missing") + " is not a Claude Code plugin with hooks",
	} {
		if !strings.Contains(strings.Join(warns, "\n"), want) {
			t.Errorf("no warning %q in:\n%s", want, strings.Join(warns, "\n"))
		}
	}
	if n := len(e.ShellHooks()); n != 2 {
		t.Fatalf("%d shell hooks, want config.yaml's and the bundle's", n)
	}
	blk := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}).Block
	if blk == nil || blk.Message != "no, says guard" {
		t.Fatalf("block %+v, want the bundle's guard", blk)
	}
	if b, err := os.ReadFile(filepath.Join(home, "plugin-data", "claude", "guard", "log")); err != nil || string(b) != "seen\n" {
		t.Errorf("plugin data: %q %v", b, err)
	}
}
