//go:build unix

package shell

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRunResolvesTheCommand: the runner executes command.Resolve's program, the file consent
// checks: "~" is the home whether quoted or not, a relative path is taken against the
// working directory, and a file under a literal "~" directory never runs in its place.
func TestRunResolvesTheCommand(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	if err := os.Mkdir(filepath.Join(work, "~"), 0o755); err != nil {
		t.Fatal(err)
	}
	once := func(who string) string { return `cat >/dev/null; echo '{"context": "` + who + `"}'` + "\n" }
	loop := func(who string) string { return `while read -r l; do echo '{"context": "` + who + `"}'; done` + "\n" }
	for who, dir := range map[string]string{"home": home, "decoy": filepath.Join(work, "~")} {
		script(t, dir, "x.sh", once(who))
		script(t, dir, "loop.sh", loop(who))
	}
	script(t, work, "rel.sh", once("work"))
	tests := []struct {
		command, want string
		persistent    bool
	}{
		{"~/x.sh", "home", false},
		{"'~/x.sh'", "home", false},
		{`"~/x.sh" --flag`, "home", false},
		{"./~/x.sh", "decoy", false},
		{"./rel.sh", "work", false},
		{"'~/loop.sh'", "home", true},
		{"./~/loop.sh", "decoy", true},
	}
	for _, tt := range tests {
		h := mkHook(t, "pre_llm_call", tt.command, func(h *Hook) { h.Persistent = tt.persistent })
		res := h.Run(context.Background(), nil, RunOptions{Cwd: work})
		h.Close()
		answer, _ := res.Parsed.(map[string]any)
		if got, _ := answer["context"].(string); got != tt.want {
			t.Errorf("%s: ran the %q script (status %s, err %q), want the %q one", tt.command, got, res.Status, res.Err, tt.want)
		}
	}
}
