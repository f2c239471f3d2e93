package shell

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"gopkg.in/yaml.v3"
)

// A settings file as Claude Code writes it (tabs and all): every hook that can run here is
// mapped, and every one that cannot is reported with its line and why.
func TestReadClaudeSettings(t *testing.T) {
	t.Parallel()
	settings := "{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n" +
		`		"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py", "timeout": 30}]},
			{"matcher": "*", "hooks": [{"type": "prompt", "prompt": "is this safe?"}]},
			{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "./fmt.sh", "if": "Edit(*.go)"}]}
		],
		"UserPromptSubmit": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "date", "timeout": 900, "async": true}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
		"Bogus": [],
		"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/x.sh"}, {"type": "command", "command": "git status"}]}]
	}
}`
	imp, err := ReadClaudeSettings("settings.json", []byte(settings))
	if err != nil {
		t.Fatal(err)
	}
	want := []ImportEntry{
		{Event: hooknames.PreToolCall, Matcher: "Bash", Command: `python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py`, Timeout: 30},
		{Event: hooknames.PreToolCall, Matcher: "Edit|Write", Command: "./fmt.sh", Dialected: Dialected{If: "Edit(*.go)"}},
		{Event: hooknames.PreLLMCall, Command: "date", Timeout: 300, Dialected: Dialected{Async: true}},
		{Event: hooknames.PreVerify, Command: "notify-send done"},
		{Event: hooknames.OnSessionStart, Matcher: "startup", Command: "git status"},
	}
	if diff := cmp.Diff(want, imp.Entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	var skipped, notes []string
	for _, n := range imp.Skipped {
		skipped = append(skipped, n.String())
	}
	for _, n := range imp.Notes {
		notes = append(notes, n.String())
	}
	for _, w := range []string{
		`settings.json:6: hooks.PreToolUse[1].hooks[0]: type "prompt" needs Claude Code itself`,
		`settings.json:11: hooks.Bogus: Claude Code's event "Bogus" has no equivalent here (events that map: Notification, PermissionRequest, PostCompact, PostToolUse, PostToolUseFailure, PreCompact, PreToolUse, SessionEnd, SessionStart, Stop, SubagentStop, UserPromptSubmit)`,
		`settings.json:12: hooks.SessionStart[0].hooks[0]: it uses a Claude Code plugin's directory (${CLAUDE_PLUGIN_ROOT}): import the plugin itself`,
	} {
		if !strings.Contains(strings.Join(skipped, "\n"), w) {
			t.Errorf("skipped lacks %q:\n%s", w, strings.Join(skipped, "\n"))
		}
	}
	if len(skipped) != 3 {
		t.Errorf("skipped %d, want 3:\n%s", len(skipped), strings.Join(skipped, "\n"))
	}
	for _, w := range []string{"timeout 900 s is over this engine's maximum; 300 s", "async: it runs in the background and its answer is ignored"} {
		if !strings.Contains(strings.Join(notes, "\n"), w) {
			t.Errorf("notes lack %q:\n%s", w, strings.Join(notes, "\n"))
		}
	}
	for _, bad := range []string{`{"hooks": `, `[]`, `{"model": "x"}`} {
		if _, err := ReadClaudeSettings("s.json", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// Importing into a config.yaml keeps what is there (comments, order, other settings),
// adds each entry once, and the result loads without a warning.
func TestAddToConfig(t *testing.T) {
	t.Parallel()
	config := `# my gateway
model: gpt-4 # the default
hooks:
  # guards first
  pre_tool_call:
    - command: ~/.hermes/agent-hooks/audit.sh
  post_tool_call:
plugins:
  disabled: [x]
`
	entries := []ImportEntry{
		{Event: hooknames.PreToolCall, Matcher: "Bash", Command: `python3 "$CLAUDE_PROJECT_DIR"/guard.py`, Timeout: 30},
		{Event: hooknames.PostToolCall, Matcher: "Edit|Write", Command: "./fmt.sh"},
		{Event: hooknames.PreLLMCall, Command: "date"},
	}
	out, added, err := AddToConfig("config.yaml", []byte(config), entries)
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 3 {
		t.Errorf("added %v", added)
	}
	got := string(out)
	for _, keep := range []string{"# my gateway", "model: gpt-4 # the default", "# guards first", "- command: ~/.hermes/agent-hooks/audit.sh", "disabled: [x]"} {
		if !strings.Contains(got, keep) {
			t.Errorf("lost %q:\n%s", keep, got)
		}
	}
	if strings.Index(got, "model:") > strings.Index(got, "hooks:") || strings.Index(got, "hooks:") > strings.Index(got, "plugins:") {
		t.Errorf("order changed:\n%s", got)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", mapValue(doc.Content[0], "hooks"), hookspec.Names())
	if len(warns) != 0 || len(hooks) != 4 {
		t.Fatalf("reloaded: %d hooks, warnings %v\n%s", len(hooks), warns, got)
	}
	if h := hooks[1]; h.Dialect != DialectClaude || h.Matcher != "Bash" || h.Command != entries[0].Command || h.Timeout.Seconds() != 30 {
		t.Errorf("imported entry reads back as %+v", h)
	}
	again, added, err := AddToConfig("config.yaml", out, entries)
	if err != nil || len(added) != 0 || string(again) != got {
		t.Errorf("second import: added %v, err %v, changed %v", added, err, string(again) != got)
	}
	if out, _, err := AddToConfig("config.yaml", nil, entries[:1]); err != nil || !strings.Contains(string(out), "dialect: claude") {
		t.Errorf("new file: %v\n%s", err, out)
	}
	for _, bad := range []string{"hooks: [1]\n", "hooks:\n  pre_tool_call: {command: x}\n", "- a\n", "a: [\n"} {
		if _, _, err := AddToConfig("config.yaml", []byte(bad), entries[:1]); err == nil || !strings.Contains(err.Error(), "config.yaml") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

// An asyncRewake hook is imported with a note that names that key and what happens here.
func TestImportAsyncRewakeNote(t *testing.T) {
	t.Parallel()
	settings := `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "asyncRewake": true}]}]}}`
	imp, err := ReadClaudeSettings("settings.json", []byte(settings))
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Entries) != 1 || !imp.Entries[0].AsyncRewake || len(imp.Notes) != 1 || !strings.Contains(imp.Notes[0].String(), "asyncRewake: it runs in the background; its answer is ignored, and an exit code 2 gives its stderr to the session's next turn") {
		t.Errorf("entries %v, notes %v; want one entry with the asyncRewake note", imp.Entries, imp.Notes)
	}
}
