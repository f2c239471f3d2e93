//go:build unix

package shell

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/command"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// TestClaudeHookRunsWhatConsentPins: the files /bin/sh runs for a Claude Code hook's line are
// exactly the files command.ResolveShell reports, the ones consent fingerprints: a quoted
// "~" is a directory named "~" in the working directory, every script of a compound line
// runs, and $CLAUDE_PROJECT_DIR is the project.
func TestClaudeHookRunsWhatConsentPins(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	log := filepath.Join(t.TempDir(), "ran")
	t.Setenv("RAN_LOG", log)
	for _, dir := range []string{filepath.Join(home, ".claude"), filepath.Join(work, "~", ".claude"), filepath.Join(work, ".claude")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var all []string
	for _, p := range []string{home + "/.claude/g.sh", work + "/~/.claude/g.sh", work + "/.claude/g.sh", work + "/a.sh", work + "/b.sh", work + "/c.sh"} {
		all = append(all, script(t, filepath.Dir(p), filepath.Base(p), `cat >/dev/null; echo "`+p+`" >> "$RAN_LOG"`+"\n"))
	}
	for _, line := range []string{
		"'~/.claude/g.sh'",
		`"~/.claude/g.sh"`,
		"~/.claude/g.sh",
		`"$CLAUDE_PROJECT_DIR"/.claude/g.sh`,
		`${CLAUDE_PROJECT_DIR}/.claude/g.sh 2>/dev/null`,
		"./a.sh; sh b.sh && ./c.sh",
		"./a.sh | sh ./b.sh\n./c.sh # sh ./a.sh",
	} {
		os.Remove(log)
		h := &Hook{Event: hooknames.PreLLMCall, Command: line, Timeout: 10 * time.Second, Dialect: DialectClaude}
		if res := h.Run(context.Background(), nil, RunOptions{Cwd: work}); res.Status != hookspec.StatusOK {
			t.Errorf("%q: %s %v", line, res.Status, res.Err)
			continue
		}
		data, _ := os.ReadFile(log)
		ran := strings.Fields(string(data))
		slices.Sort(ran)
		sh := command.ResolveShell(line, work)
		var pinned []string
		for _, r := range sh.Commands {
			if p := filepath.Clean(r.ScriptFile); slices.Contains(all, p) {
				pinned = append(pinned, p)
			}
		}
		slices.Sort(pinned)
		if sh.Unanalysable != "" || !slices.Equal(ran, pinned) {
			t.Errorf("%q: /bin/sh ran %q, consent pins %q (unanalysable %q)", line, ran, pinned, sh.Unanalysable)
		}
	}
}
