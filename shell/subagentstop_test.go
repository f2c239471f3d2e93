package shell

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// subagentKw is pre_verify's kwargs for a subagent of type typ about to stop.
func subagentKw(typ string) map[string]any {
	kw := hookspec.SampleKwargs(hooknames.PreVerify, "")
	kw["subagent"] = map[string]any{"agent_id": "agent-1", "agent_type": typ, "agent_transcript_path": ""}
	return kw
}

func parseConfig(t *testing.T, src string) ([]*Hook, []hookspec.Warning) {
	t.Helper()
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(src), &node); err != nil {
		t.Fatal(err)
	}
	return ParseHooks("config.yaml", &node, hookspec.Names())
}

// A Stop hook fires for the agent about to stop and never for a subagent; a SubagentStop
// hook (subagent: true) fires for a subagent, matched by its type, and never for the agent.
func TestSubagentStopSelects(t *testing.T) {
	t.Parallel()
	hooks, warns := parseConfig(t, `pre_verify:
  - {command: stop.sh, dialect: claude}
  - {command: stop.sh, dialect: claude, subagent: true}
  - {command: review.sh, dialect: claude, subagent: true, matcher: reviewer}
  - {command: codex-stop.sh, dialect: codex}
  - {command: codex-sub.sh, dialect: codex, subagent: true, matcher: "^worker$"}
  - {command: after-agent.sh, dialect: gemini}
  - {command: own.sh}
`)
	if len(warns) != 0 || len(hooks) != 7 {
		t.Fatalf("hooks %d, warnings %v; want 7 hooks (Stop and SubagentStop with one command are two) and none", len(hooks), warns)
	}
	main := hookspec.SampleKwargs(hooknames.PreVerify, "")
	cases := []struct {
		name string
		kw   map[string]any
		want []string // the commands that fire, in order
	}{
		{"the agent", main, []string{"stop.sh", "codex-stop.sh", "after-agent.sh", "own.sh"}},
		{"a reviewer subagent", subagentKw("reviewer"), []string{"stop.sh", "review.sh", "own.sh"}},
		{"a worker subagent", subagentKw("worker"), []string{"stop.sh", "codex-sub.sh", "own.sh"}},
		{"a subagent of no type", subagentKw(""), []string{"stop.sh", "own.sh"}},
	}
	for _, c := range cases {
		var got []string
		for _, h := range hooks {
			if h.selects(c.kw) {
				got = append(got, h.Command)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: fired %v, want %v", c.name, got, c.want)
		}
	}
	if hooks[0].Subagent || !hooks[1].Subagent {
		t.Error("subagent: true is not read")
	}
}

// subagent: true means something only on pre_verify of a hook written for Claude Code or
// Codex; elsewhere it is a warning, and where it leaves unclear which agent a hook guards
// the entry is skipped.
func TestSubagentField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		hooks     int
		warn      string
	}{
		{"a hook of this project's own", "pre_verify:\n  - {command: a, subagent: true}\n", 1, "subagent is ignored: it belongs to hooks written for another agent"},
		{"another event", "pre_tool_call:\n  - {command: a, dialect: claude, subagent: true}\n", 1, "only pre_verify serves a subagent about to stop"},
		{"not a boolean", "pre_verify:\n  - {command: a, dialect: claude, subagent: yes}\n", 0, `subagent must be true or false, got "yes"; skipped`},
		{"Gemini CLI", "pre_verify:\n  - {command: a, dialect: gemini, subagent: true}\n", 0, "Gemini CLI has no subagent stop event"},
		{"false is Stop", "pre_verify:\n  - {command: a, dialect: claude, subagent: false}\n", 1, ""},
		{"a matcher on Stop", "pre_verify:\n  - {command: a, dialect: claude, matcher: reviewer}\n", 1, `matcher "reviewer" is ignored: Claude Code has no matcher for Stop`},
	}
	for _, c := range cases {
		hooks, warns := parseConfig(t, c.src)
		if len(hooks) != c.hooks || (c.warn == "") != (len(warns) == 0) || c.warn != "" && !strings.Contains(warns[0].Msg, c.warn) {
			t.Errorf("%s: %d hooks, warnings %v; want %d and %q", c.name, len(hooks), warns, c.hooks, c.warn)
		}
	}
}

// A SubagentStop hook answers as a Stop hook does, under its own event name: a block keeps
// the subagent going with the reason as its next instruction.
func TestSubagentStopAnswers(t *testing.T) {
	t.Parallel()
	sub := subagentKw("reviewer")
	type want struct {
		kind    hookspec.Kind
		msg     string
		problem string
	}
	cases := []struct {
		name, dialect  string
		kw             map[string]any
		exit           int
		stdout, stderr string
		want           want
	}{
		{"claude: block keeps it going", DialectClaude, sub, 0, `{"decision":"block","reason":"end with a VERDICT line"}`, "", want{kind: hookspec.Continue, msg: "end with a VERDICT line"}},
		{"claude: exit 2 keeps it going", DialectClaude, sub, 2, "", "end with a VERDICT line", want{kind: hookspec.Continue, msg: "end with a VERDICT line"}},
		{"claude: continue false lets it stop", DialectClaude, sub, 0, `{"continue":false,"decision":"block","reason":"x"}`, "", want{}},
		{"claude: its own event name", DialectClaude, sub, 0, `{"hookSpecificOutput":{"hookEventName":"SubagentStop"},"decision":"block","reason":"more"}`, "", want{kind: hookspec.Continue, msg: "more"}},
		{"claude: Stop's name on a subagent", DialectClaude, sub, 0, `{"hookSpecificOutput":{"hookEventName":"Stop"},"decision":"block","reason":"more"}`, "", want{problem: `hookEventName is Stop, expected "SubagentStop"`}},
		{"claude: SubagentStop's name on the agent", DialectClaude, nil, 0, `{"hookSpecificOutput":{"hookEventName":"SubagentStop"},"decision":"block","reason":"more"}`, "", want{problem: `hookEventName is SubagentStop, expected "Stop"`}},
		{"codex: block keeps it going", DialectCodex, sub, 0, `{"decision":"block","reason":"run the tests"}`, "", want{kind: hookspec.Continue, msg: "run the tests"}},
		{"codex: block without a reason", DialectCodex, sub, 0, `{"decision":"block"}`, "", want{problem: "SubagentStop hook returned decision:block without a non-empty reason"}},
		{"codex: the agent's block without a reason", DialectCodex, nil, 0, `{"decision":"block"}`, "", want{problem: "Stop hook returned decision:block without a non-empty reason"}},
	}
	for _, c := range cases {
		tools := DefaultTools
		if c.dialect == DialectCodex {
			tools = codexTools
		}
		_, a, problem := dialectOutcome(c.dialect, hooknames.PreVerify, c.exit, c.stdout, c.stderr, tools, c.kw)
		if (c.want.problem == "") != (problem == "") || !strings.Contains(problem, c.want.problem) {
			t.Errorf("%s: problem %q, want %q", c.name, problem, c.want.problem)
		}
		if a.Kind != c.want.kind || a.Message != c.want.msg {
			t.Errorf("%s: answer %v %q, want %v %q", c.name, a.Kind, a.Message, c.want.kind, c.want.msg)
		}
	}
}

// SubagentStop imports as pre_verify with subagent: true, its matcher (the subagent's type)
// kept; beside a Stop hook of the same command it is a hook of its own, written once.
func TestImportSubagentStop(t *testing.T) {
	t.Parallel()
	settings := `{"hooks": {
  "Stop": [{"hooks": [{"type": "command", "command": "check.sh"}]}],
  "SubagentStop": [{"matcher": "reviewer", "hooks": [{"type": "command", "command": "check.sh"}]},
                   {"hooks": [{"type": "command", "command": "log.sh"}]}]
}}`
	for _, d := range []string{DialectClaude, DialectCodex} {
		imp, err := ReadClaudeSettingsWith("hooks.json", []byte(settings), ImportOptions{Dialect: d})
		if err != nil || len(imp.Skipped) != 0 || len(imp.Entries) != 3 {
			t.Fatalf("%s: %v, entries %+v, skipped %v", d, err, imp.Entries, imp.Skipped)
		}
		for i, want := range []struct {
			matcher  string
			subagent bool
		}{{"", false}, {"reviewer", true}, {"", true}} {
			if e := imp.Entries[i]; e.Event != hooknames.PreVerify || e.Matcher != want.matcher || e.Subagent != want.subagent {
				t.Errorf("%s: entry %d = %s matcher %q subagent %v, want pre_verify %q %v", d, i, e.Event, e.Matcher, e.Subagent, want.matcher, want.subagent)
			}
		}
		out, added, err := AddToConfig("config.yaml", nil, imp.Entries)
		if err != nil || len(added) != 3 {
			t.Fatalf("%s: %v, added %d", d, err, len(added))
		}
		var doc struct{ Hooks yaml.Node }
		if err := yaml.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		hooks, warns := ParseHooks("config.yaml", &doc.Hooks, hookspec.Names())
		if len(warns) != 0 || len(hooks) != 3 || hooks[0].Subagent || !hooks[1].Subagent || hooks[1].Matcher != "reviewer" {
			t.Errorf("%s: config.yaml\n%s\nloads as %d hooks, warnings %v", d, out, len(hooks), warns)
		}
		if _, again, _ := AddToConfig("config.yaml", out, imp.Entries); len(again) != 0 {
			t.Errorf("%s: importing again adds %d entries", d, len(again))
		}
	}
}

// A SubagentStop hook of type http imports as one too: for subagents alone.
func TestImportSubagentStopHTTP(t *testing.T) {
	t.Parallel()
	settings := `{"hooks": {"SubagentStop": [{"matcher": "reviewer", "hooks": [{"type": "http", "url": "https://hooks.example.com/verdict"}]}],
  "Stop": [{"hooks": [{"type": "http", "url": "https://hooks.example.com/verdict"}]}]}}`
	imp, err := ReadClaudeSettings("settings.json", []byte(settings))
	if err != nil || len(imp.Entries) != 2 || len(imp.Skipped) != 0 {
		t.Fatalf("%v, entries %+v, skipped %v", err, imp.Entries, imp.Skipped)
	}
	out, added, err := AddToConfig("config.yaml", nil, imp.Entries)
	if err != nil || len(added) != 2 {
		t.Fatalf("%v, added %d", err, len(added))
	}
	var doc struct{ Hooks yaml.Node }
	if err := yaml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", &doc.Hooks, hookspec.Names())
	if len(warns) != 0 || len(hooks) != 2 || hooks[0].Subagent == hooks[1].Subagent {
		t.Fatalf("config.yaml\n%s\nloads as %d hooks, warnings %v; want a Stop and a SubagentStop hook", out, len(hooks), warns)
	}
	for _, h := range hooks {
		if h.Type != TypeHTTP || h.selects(subagentKw("reviewer")) != h.Subagent || h.selects(hookspec.SampleKwargs(hooknames.PreVerify, "")) == h.Subagent {
			t.Errorf("hook %+v: fires for the wrong agent", h)
		}
	}
	if _, again, _ := AddToConfig("config.yaml", out, imp.Entries); len(again) != 0 {
		t.Errorf("importing again adds %d entries", len(again))
	}
}
