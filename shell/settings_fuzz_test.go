package shell

import (
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
)

// FuzzReadSettings: any settings file of any of the three agents is read or refused
// without a panic; every entry read serves a hook of its dialect and has a command, and
// what was not read is said with the file's name.
func FuzzReadSettings(f *testing.F) {
	for _, s := range []string{
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "if": "Bash(rm *)", "timeout": 5}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "args": ["a"], "async": true}]}], "Bogus": 1}}`,
		`{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "sequential": false, "hooks": [{"type": "command", "command": "x", "timeout": 1500}]}]}}`,
		"[hooks]\nmanaged_dir = \"/x\"\n[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"x\"\n",
		"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = 3\n", `{"hooks": []}`, `{`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		for _, read := range []struct {
			dialect, file string
			fn            func(string, []byte, ImportOptions) (ClaudeImport, error)
		}{
			{DialectClaude, "settings.json", ReadClaudeSettingsWith},
			{DialectCodex, "config.toml", ReadCodexHooks},
			{DialectCodex, "hooks.json", ReadCodexHooks},
			{DialectGemini, "settings.json", ReadGeminiSettings},
		} {
			imp, err := read.fn(read.file, []byte(data), ImportOptions{ProjectDir: "/p"})
			if err != nil {
				if !strings.Contains(err.Error(), read.file) {
					t.Fatalf("%s: error %q does not name the file", read.file, err)
				}
				continue
			}
			for _, e := range imp.Entries {
				if DialectEvent(read.dialect, e.Event) == "" || !hookspec.IsHook(e.Event) || strings.TrimSpace(e.Command) == "" || e.dialect() != read.dialect {
					t.Fatalf("%s: entry %+v", read.file, e)
				}
			}
			for _, n := range append(imp.Skipped, imp.Notes...) {
				if !strings.HasPrefix(n.Where, read.file+":") {
					t.Fatalf("%s: note %q does not name the file", read.file, n)
				}
			}
		}
	})
}
