package shell

import (
	"strings"
	"testing"
)

// A field of a wrong JSON type never becomes a different guard: "matcher": null is not the
// matcher "null", "if": true not the condition "true". The hook is not imported, and the
// note names the file, the entry and the field, and says what to write; for every field
// and in the settings of each agent.
func TestImportWrongTypes(t *testing.T) {
	t.Parallel()
	type reader func(string, []byte, ImportOptions) (ClaudeImport, error)
	agents := []struct {
		name, file, event string
		read              reader
	}{
		{"claude", "settings.json", "PreToolUse", ReadClaudeSettingsWith},
		{"codex", "hooks.json", "PreToolUse", ReadCodexHooks},
		{"gemini", "settings.json", "BeforeTool", ReadGeminiSettings},
	}
	cases := []struct{ group, hook, field string }{
		{`"matcher": null`, ``, "matcher"},
		{`"matcher": 1`, ``, "matcher"},
		{`"matcher": true`, ``, "matcher"},
		{`"matcher": ["Bash"]`, ``, "matcher"},
		{`"matcher": "Bash", "sequential": "no"`, ``, "sequential"},
		{`"matcher": "Bash"`, `"if": null`, "if"},
		{`"matcher": "Bash"`, `"if": 1`, "if"},
		{`"matcher": "Bash"`, `"if": true`, "if"},
		{`"matcher": "Bash"`, `"type": null`, "type"},
		{`"matcher": "Bash"`, `"command": ["x"]`, "command"},
		{`"matcher": "Bash"`, `"timeout": "5"`, "timeout"},
		{`"matcher": "Bash"`, `"timeout": null`, "timeout"},
		{`"matcher": "Bash"`, `"async": "true"`, "async"},
		{`"matcher": "Bash"`, `"asyncRewake": 1`, "asyncRewake"},
		{`"matcher": "Bash"`, `"once": "yes"`, "once"},
		{`"matcher": "Bash"`, `"onFailure": true`, "onFailure"},
		{`"matcher": "Bash"`, `"statusMessage": {}`, "statusMessage"},
		{`"matcher": "Bash"`, `"shell": 0`, "shell"},
		{`"matcher": "Bash"`, `"args": ["a", 1]`, "args"},
		{`"matcher": "Bash"`, `"name": 1`, "name"},
		{`"matcher": "Bash"`, `"description": false`, "description"},
	}
	for _, a := range agents {
		for _, c := range cases {
			hook := `{"type": "command", "command": "guard.sh"`
			switch {
			case strings.HasPrefix(c.hook, `"type"`):
				hook = `{"command": "guard.sh", ` + c.hook
			case strings.HasPrefix(c.hook, `"command"`):
				hook = `{"type": "command", ` + c.hook
			case c.hook != "":
				hook += ", " + c.hook
			}
			data := `{"hooks": {"` + a.event + `": [{` + c.group + `, "hooks": [` + hook + `}]}]}}`
			imp, err := a.read(a.file, []byte(data), ImportOptions{})
			if err != nil {
				t.Fatalf("%s %s: %v", a.name, data, err)
			}
			if len(imp.Entries) != 0 || len(imp.Skipped) != 1 {
				t.Errorf("%s %s: entries %+v, skipped %v; want it not imported", a.name, data, imp.Entries, imp.Skipped)
				continue
			}
			msg := imp.Skipped[0].String()
			for _, want := range []string{a.file + ":1: hooks." + a.event + "[0]", `"` + c.field + `" is `, "import again"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%s %s: %q does not say %q", a.name, data, msg, want)
				}
			}
		}
	}
	// Codex's TOML settings alike.
	imp, err := ReadCodexHooks("config.toml", []byte("[[hooks.PreToolUse]]\nmatcher = 1\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"x\"\n"), ImportOptions{})
	if err != nil || len(imp.Entries) != 0 || len(imp.Skipped) != 1 || !strings.Contains(imp.Skipped[0].String(), `config.toml:1: hooks.PreToolUse[0]: "matcher" is the number 1`) {
		t.Errorf("config.toml with matcher = 1: %+v, %v", imp, err)
	}
	// An HTTP hook's fields too.
	for _, bad := range []string{`"url": null`, `"headers": {"X": 1}`, `"allowedEnvVars": "TOKEN"`} {
		imp, err := ReadClaudeSettings("settings.json", []byte(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "https://x.example/h", `+bad+`}]}]}}`))
		if err != nil || len(imp.Entries) != 0 || len(imp.Skipped) != 1 || !strings.Contains(imp.Skipped[0].Msg, "import again") {
			t.Errorf("http %s: %+v, %v", bad, imp, err)
		}
	}
}

// An empty or absent matcher keeps its meaning: every tool.
func TestImportEmptyMatcher(t *testing.T) {
	t.Parallel()
	for _, group := range []string{`"matcher": "", `, ``, `"matcher": "*", `} {
		imp, err := ReadClaudeSettings("settings.json", []byte(`{"hooks": {"PreToolUse": [{`+group+`"hooks": [{"type": "command", "command": "x", "timeout": 5}]}]}}`))
		if err != nil || len(imp.Skipped) != 0 || len(imp.Entries) != 1 || imp.Entries[0].Matcher != "" || imp.Entries[0].Timeout != 5 {
			t.Errorf("%s: %+v, %v", group, imp, err)
		}
	}
}
