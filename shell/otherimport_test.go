package shell

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// Codex's config.toml: its [[hooks.<Event>]] tables are read, notes name the TOML lines, and
// managed_dir is a setting, not an event.
func TestReadCodexTOML(t *testing.T) {
	t.Parallel()
	src := `model = "gpt-5"

[hooks]
managed_dir = "/x"

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "./guard.sh"
timeout = 30

[[hooks.PreToolUse.hooks]]
type = "prompt"
prompt = "safe?"

[[hooks.StopFailure]]
[[hooks.StopFailure.hooks]]
type = "command"
command = "x"

[[hooks.SessionEnd]]
[[hooks.SessionEnd.hooks]]
type = "command"
command = "x"

[[hooks.SubagentStart]]
[[hooks.SubagentStart.hooks]]
type = "command"
command = "x"
`
	imp, err := ReadCodexHooks("config.toml", []byte(src), ImportOptions{ProjectDir: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Entries) != 1 || !cmp.Equal(imp.Entries[0], ImportEntry{Event: hooknames.PreToolCall, Matcher: "^Bash$", Command: "./guard.sh", Timeout: 30,
		Dialect: DialectCodex, Dialected: Dialected{ProjectDir: "/p"}}) {
		t.Errorf("entries %+v", imp.Entries)
	}
	var skipped []string
	for _, n := range imp.Skipped {
		skipped = append(skipped, n.String())
	}
	for _, want := range []string{
		`config.toml:14: hooks.PreToolUse[0].hooks[1]: type "prompt" needs Codex itself`,
		`config.toml:18: hooks.StopFailure: a turn that ends on an API error is not a moment the agent here tells hooks about`,
		`config.toml:23: hooks.SessionEnd: Codex has no SessionEnd; its Interrupt maps to on_session_end`,
		`config.toml:28: hooks.SubagentStart: the start of a subagent is not a moment the agent here tells hooks about`,
	} {
		if !strings.Contains(strings.Join(skipped, "\n"), want) {
			t.Errorf("skipped lacks %q:\n%s", want, strings.Join(skipped, "\n"))
		}
	}
	for _, bad := range []string{"[hooks\n", "model = 1\n"} {
		if _, err := ReadCodexHooks("config.toml", []byte(bad), ImportOptions{}); err == nil || !strings.Contains(err.Error(), "config.toml") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

// Gemini CLI's settings: millisecond timeouts, its events, and the model events reported as
// not mapped, with the reason.
func TestReadGeminiSettings(t *testing.T) {
	t.Parallel()
	src := `{"hooks": {
  "BeforeTool": [{"matcher": "write_file|replace", "sequential": false, "hooks": [{"type": "command", "command": "./a.sh", "timeout": 1500, "name": "lint"}]}],
  "AfterTool": [{"hooks": [{"type": "command", "command": "./b.sh", "timeout": 900000}]}],
  "PreCompress": [{"hooks": [{"type": "command", "command": "./c.sh"}]}],
  "BeforeModel": [{"hooks": [{"type": "command", "command": "./m.sh"}]}],
  "AfterModel": [{"hooks": [{"type": "command", "command": "./m.sh"}]}],
  "BeforeToolSelection": [{"hooks": [{"type": "command", "command": "./m.sh"}]}]
}}`
	imp, err := ReadGeminiSettings("settings.json", []byte(src), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ImportEntry{
		{Event: hooknames.PreToolCall, Matcher: "write_file|replace", Command: "./a.sh", Timeout: 2, Dialect: DialectGemini, Dialected: Dialected{StatusMessage: "lint"}},
		{Event: hooknames.PostToolCall, Command: "./b.sh", Timeout: 300, Dialect: DialectGemini},
		{Event: hooknames.PreCompact, Command: "./c.sh", Dialect: DialectGemini},
	}
	if len(imp.Entries) != len(want) {
		t.Fatalf("entries %+v", imp.Entries)
	}
	for i := range want {
		if imp.Entries[i].Event != want[i].Event || imp.Entries[i].Timeout != want[i].Timeout || imp.Entries[i].StatusMessage != want[i].StatusMessage || imp.Entries[i].Dialect != DialectGemini {
			t.Errorf("entry %d = %+v, want %+v", i, imp.Entries[i], want[i])
		}
	}
	var all []string
	for _, n := range append(imp.Skipped, imp.Notes...) {
		all = append(all, n.String())
	}
	for _, w := range []string{
		"hooks.BeforeModel: model-request hooks", "hooks.AfterModel: model-response hooks", "hooks.BeforeToolSelection: choosing the tools",
		"sequential: false runs the group's hooks in parallel in Gemini CLI; here they run one after another",
		"timeout 900000 ms is over this engine's maximum; 300 s",
	} {
		if !strings.Contains(strings.Join(all, "\n"), w) {
			t.Errorf("no %q in:\n%s", w, strings.Join(all, "\n"))
		}
	}
	if len(imp.Skipped) != 3 {
		t.Errorf("skipped %d, want the three model events", len(imp.Skipped))
	}
}
