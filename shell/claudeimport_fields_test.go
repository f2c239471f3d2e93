package shell

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// Every field of a Claude Code hook this engine honours is imported into config.yaml and
// reads back the same: if, onFailure, statusMessage, async, asyncRewake, args, the plugin's
// directories and the project.
func TestImportEveryField(t *testing.T) {
	t.Parallel()
	settings := `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "./guard.sh", "if": "Bash(rm *)", "onFailure": "block", "statusMessage": "Checking the command", "timeout": 5}]}],
  "PostToolUse": [{"matcher": "Write|Edit", "hooks": [
    {"type": "command", "command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/fmt.js", "--fix"], "async": true},
    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/lint.sh", "asyncRewake": true}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "./tests-pass.sh"}]}],
  "PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./approve.sh", "if": "Bash(git *)"}]}],
  "Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": "notify-send waiting"}]}],
  "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": "./save.sh"}]}],
  "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./why.sh"}]}]
}}`
	opts := ImportOptions{ProjectDir: "/work/app", PluginRoot: "/work/plugins/fmt", PluginData: "/home/ada/.hermes/plugin-data/claude/fmt"}
	imp, err := ReadClaudeSettingsWith("hooks.json", []byte(settings), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Skipped) != 0 {
		t.Fatalf("skipped %v", imp.Skipped)
	}
	out, added, err := AddToConfig("config.yaml", nil, imp.Entries)
	if err != nil || len(added) != 8 {
		t.Fatalf("added %d, err %v", len(added), err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", mapValue(doc.Content[0], "hooks"), hookspec.Names())
	if len(warns) != 0 || len(hooks) != 8 {
		t.Fatalf("reloaded: %d hooks, warnings %v\n%s", len(hooks), warns, out)
	}
	type view struct {
		Event, Matcher, Command string
		FailClosed              bool
		Dialected               Dialected
	}
	var got []view
	for _, h := range hooks {
		got = append(got, view{h.Event, h.Matcher, h.Command, h.FailClosed, h.Dialected})
	}
	app := Dialected{ProjectDir: "/work/app", PluginRoot: opts.PluginRoot, PluginData: opts.PluginData} // every hook of a bundle has its directories
	plugin := app
	with := func(d Dialected, f func(*Dialected)) Dialected { f(&d); return d }
	want := []view{
		{hooknames.PreToolCall, "Bash", "./guard.sh", true, with(app, func(d *Dialected) { d.If, d.StatusMessage = "Bash(rm *)", "Checking the command" })},
		{hooknames.PostToolCall, "Write|Edit", "node /work/plugins/fmt/fmt.js --fix", false, with(plugin, func(d *Dialected) { d.Async, d.Args = true, []string{"/work/plugins/fmt/fmt.js", "--fix"} })},
		{hooknames.PostToolCall, "Write|Edit", "/work/plugins/fmt/lint.sh", false, with(plugin, func(d *Dialected) { d.AsyncRewake = true })},
		{hooknames.PreVerify, "", "./tests-pass.sh", false, app},
		{hooknames.PreApprovalRequest, "Bash", "./approve.sh", false, with(app, func(d *Dialected) { d.If = "Bash(git *)" })},
		{hooknames.OnNotification, "idle_prompt", "notify-send waiting", false, app},
		{hooknames.PreCompact, "auto", "./save.sh", false, app},
		{hooknames.PostToolFailure, "Bash", "./why.sh", false, app},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reloaded hooks (-want +got):\n%s", diff)
	}
}

// What a hook says that this engine cannot honour is an import error naming the file, line
// and why; the hook is not imported, and nothing is dropped silently.
func TestImportUnsupportedFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, hooks, want string
	}{
		{"if that cannot be evaluated", `"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "if": "Task(reviewer)"}]}]`,
			`hooks.json:1: hooks.PreToolUse[0].hooks[0]: its if condition cannot be checked here (if "Task(reviewer)": this engine cannot evaluate a Task(...) condition`},
		{"if on an event without a tool", `"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "x", "if": "Bash(rm *)"}]}]`,
			"its if condition (Bash(rm *)) applies to tool events only; on pre_llm_call it cannot be checked"},
		{"a prompt hook", `"Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}]}]`, `type "prompt" needs Claude Code itself`},
		{"an agent hook", `"Stop": [{"hooks": [{"type": "agent", "prompt": "verify"}]}]`, `type "agent" needs Claude Code itself`},
		{"powershell", `"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "shell": "powershell"}]}]`, `shell "powershell": hooks run by /bin/sh here`},
		{"a plugin's directory outside a plugin", `"PreToolUse": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/x.sh"}]}]`, "import the plugin itself"},
		{"args that are not a list", `"PreToolUse": [{"hooks": [{"type": "command", "command": "node", "args": "x.js"}]}]`, `"args" is the string "x.js", not a list of strings`},
		{"a team event", `"TeammateIdle": [{"hooks": [{"type": "command", "command": "x"}]}]`, "there are no agent teams here"},
		{"a task event", `"TaskCompleted": [{"hooks": [{"type": "command", "command": "x"}]}]`, "a task's completion cannot be held back"},
		{"subagent start", `"SubagentStart": [{"hooks": [{"type": "command", "command": "x"}]}]`, "SubagentStop maps to pre_verify"},
		{"no command", `"Stop": [{"hooks": [{"type": "command"}]}]`, "no command"},
		{"a permission denial", `"PermissionDenied": [{"hooks": [{"type": "command", "command": "x"}]}]`, "does not tell hooks about denials"},
		{"instructions loaded", `"InstructionsLoaded": [{"hooks": [{"type": "command", "command": "x"}]}]`, "loads no CLAUDE.md"},
		{"a configuration change", `"ConfigChange": [{"hooks": [{"type": "command", "command": "x"}]}]`, "reach the engine by Reload"},
		{"setup", `"Setup": [{"hooks": [{"type": "command", "command": "x"}]}]`, "there is no setup command here"},
		{"an event of no name here", `"WorktreeCreate": [{"hooks": [{"type": "command", "command": "x"}]}]`, `Claude Code's event "WorktreeCreate" has no equivalent here (events that map:`},
	}
	for _, c := range cases {
		imp, err := ReadClaudeSettings("hooks.json", []byte(`{"hooks": {`+c.hooks+`}}`))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(imp.Entries) != 0 || len(imp.Skipped) != 1 || !strings.Contains(imp.Skipped[0].String(), c.want) {
			t.Errorf("%s: entries %v, skipped %v; want one skipped saying %q", c.name, imp.Entries, imp.Skipped, c.want)
		}
	}
	// onFailure "block" where nothing can be blocked is imported, with a note.
	imp, _ := ReadClaudeSettings("hooks.json", []byte(`{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "x", "onFailure": "block"}]}]}}`))
	if len(imp.Entries) != 1 || imp.Entries[0].FailClosed || len(imp.Notes) != 1 || !strings.Contains(imp.Notes[0].Msg, `onFailure "block" only blocks tool calls here`) {
		t.Errorf("onFailure on PostToolUse: %+v", imp)
	}
}
