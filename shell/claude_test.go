//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"gopkg.in/yaml.v3"
)

// Every answer a Claude Code hook can give, read for the event it serves.
func TestClaudeOutcome(t *testing.T) {
	t.Parallel()
	bash := map[string]any{"tool_name": "terminal"}
	edit := map[string]any{"tool_name": "patch"}
	type want struct {
		kind     hookspec.Kind
		msg      string // Block and Ask message, Context text
		args     map[string]any
		problem  string // a substring; "" = no problem
		remember bool   // PermissionRequest's updatedPermissions
	}
	reviewer := map[string]any{"subagent": map[string]any{"agent_id": "a1", "agent_type": "reviewer", "agent_transcript_path": ""}}
	cases := []struct {
		name, event    string
		exit           int
		stdout, stderr string
		kw             map[string]any
		want           want
	}{
		{"exit 0, no output", hooknames.PreToolCall, 0, "", "", bash, want{}},
		{"exit 2 blocks with stderr", hooknames.PreToolCall, 2, "", "rm -rf is not allowed\n", bash, want{kind: hookspec.Block, msg: "rm -rf is not allowed"}},
		{"exit 2 ignores stdout JSON", hooknames.PreToolCall, 2, `{"decision":"approve"}`, "no", bash, want{kind: hookspec.Block, msg: "no"}},
		{"exit 2 without stderr", hooknames.PreToolCall, 2, "", "", bash, want{kind: hookspec.Block, msg: DefaultBlockMessage}},
		{"other exit is an error that blocks nothing", hooknames.PreToolCall, 1, `{"decision":"block"}`, "boom", bash, want{problem: "exited with status 1: boom"}},
		{"deny", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no .env"}}`, "", bash, want{kind: hookspec.Block, msg: "no .env"}},
		{"deny falls back to reason", hooknames.PreToolCall, 0, `{"reason":"top","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, "", bash, want{kind: hookspec.Block, msg: "top"}},
		{"allow", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, "", bash, want{kind: hookspec.Approve}},
		{"ask", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, "", bash, want{kind: hookspec.Ask, msg: "sure?"}},
		{"defer decides nothing", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`, "", bash, want{}},
		{"updatedInput modifies, in our names", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":"/b","old_string":"x","new_string":"y"}}}`, "", edit,
			want{kind: hookspec.Modify, args: map[string]any{"path": "/b", "old_string": "x", "new_string": "y"}}},
		{"allow with updatedInput", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}`, "", bash,
			want{kind: hookspec.Approve, args: map[string]any{"command": "ls -la"}}},
		{"legacy decision block", hooknames.PreToolCall, 0, `{"decision":"block","reason":"legacy"}`, "", bash, want{kind: hookspec.Block, msg: "legacy"}},
		{"legacy decision approve", hooknames.PreToolCall, 0, `{"decision":"approve"}`, "", bash, want{kind: hookspec.Approve}},
		{"continue false blocks the call", hooknames.PreToolCall, 0, `{"continue":false,"stopReason":"halt"}`, "", bash, want{kind: hookspec.Block, msg: "halt"}},
		{"wrong hookEventName", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}`, "", bash, want{problem: `expected "PreToolUse"`}},
		{"unknown permissionDecision", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}`, "", bash, want{problem: "unknown permissionDecision maybe"}},
		{"unknown decision", hooknames.PreToolCall, 0, `{"decision":"nope"}`, "", bash, want{problem: "unknown decision nope"}},
		{"broken JSON", hooknames.PreToolCall, 0, `{"decision":`, "", bash, want{problem: "not valid JSON"}},
		{"additionalContext alone", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"rg is installed"}}`, "", bash, want{kind: hookspec.Context, msg: "rg is installed"}},
		{"additionalContext beside deny", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","additionalContext":" ctx"}}`, "", bash, want{kind: hookspec.Block, msg: "no ctx"}},
		{"additionalContext beside allow with updatedInput", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"},"additionalContext":"ctx"}}`, "", bash,
			want{kind: hookspec.Approve, msg: "ctx", args: map[string]any{"command": "ls -la"}}},
		{"additionalContext beside defer and systemMessage", hooknames.PreToolCall, 0, `{"systemMessage":"hi","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","additionalContext":"ctx"}}`, "", bash, want{kind: hookspec.Context, msg: "ctx"}},
		{"plain text on a tool call is only shown", hooknames.PreToolCall, 0, "checked\n", "", bash, want{}},
		{"systemMessage alone decides nothing", hooknames.PreToolCall, 0, `{"systemMessage":"note"}`, "", bash, want{}},
		{"suppressOutput decides nothing", hooknames.PreToolCall, 0, `{"suppressOutput":true}`, "", bash, want{}},

		{"prompt: plain text is context", hooknames.PreLLMCall, 0, "Today is Monday.\n", "", nil, want{kind: hookspec.Context, msg: "Today is Monday."}},
		{"prompt: additionalContext", hooknames.PreLLMCall, 0, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}}`, "", nil, want{kind: hookspec.Context, msg: "ctx"}},
		{"prompt: decision block blocks the prompt", hooknames.PreLLMCall, 0, `{"decision":"block","reason":"secret"}`, "", nil, want{kind: hookspec.Block, msg: "secret"}},
		{"prompt: exit 2 blocks the prompt with stderr", hooknames.PreLLMCall, 2, "", "secret", nil, want{kind: hookspec.Block, msg: "secret"}},
		{"prompt: exit 2 without stderr", hooknames.PreLLMCall, 2, "", "", nil, want{kind: hookspec.Block, msg: DefaultBlockMessage}},
		{"prompt: continue false stops the prompt", hooknames.PreLLMCall, 0, `{"continue":false,"stopReason":"later"}`, "", nil, want{kind: hookspec.Block, msg: "later"}},

		// Stop (pre_verify): block keeps the agent going with the reason.
		{"stop: decision block keeps going", hooknames.PreVerify, 0, `{"decision":"block","reason":"tests fail"}`, "", nil, want{kind: hookspec.Continue, msg: "tests fail"}},
		{"stop: block without a reason", hooknames.PreVerify, 0, `{"decision":"block"}`, "", nil, want{kind: hookspec.Continue, msg: hookspec.DefaultContinueReason}},
		{"stop: exit 2 keeps going with stderr", hooknames.PreVerify, 2, "", "run the linter", nil, want{kind: hookspec.Continue, msg: "run the linter"}},
		{"stop: continue false lets it stop", hooknames.PreVerify, 0, `{"continue":false,"decision":"block","reason":"x"}`, "", nil, want{}},
		{"stop: approve lets it stop", hooknames.PreVerify, 0, `{"decision":"approve"}`, "", nil, want{}},
		{"stop: exit 0 lets it stop", hooknames.PreVerify, 0, "", "", nil, want{}},
		{"stop: wrong hookEventName", hooknames.PreVerify, 0, `{"hookSpecificOutput":{"hookEventName":"SubagentStop"}}`, "", nil, want{problem: `expected "Stop"`}},
		{"subagent stop: decision block keeps the subagent going", hooknames.PreVerify, 0, `{"decision":"block","reason":"give a verdict"}`, "", reviewer, want{kind: hookspec.Continue, msg: "give a verdict"}},
		{"subagent stop: exit 2 keeps it going with stderr", hooknames.PreVerify, 2, "", "give a verdict", reviewer, want{kind: hookspec.Continue, msg: "give a verdict"}},
		{"subagent stop: continue false lets it stop", hooknames.PreVerify, 0, `{"continue":false,"stopReason":"enough"}`, "", reviewer, want{}},
		{"subagent stop: its own hookEventName", hooknames.PreVerify, 0, `{"hookSpecificOutput":{"hookEventName":"Stop"}}`, "", reviewer, want{problem: `expected "SubagentStop"`}},

		// PostToolUseFailure (post_tool_failure): feedback to the model.
		{"failure: additionalContext", hooknames.PostToolFailure, 0, `{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"retry with -v"}}`, "", bash, want{kind: hookspec.Context, msg: "retry with -v"}},
		{"failure: exit 2 gives stderr", hooknames.PostToolFailure, 2, "", "flaky test", bash, want{kind: hookspec.Context, msg: "flaky test"}},

		// PermissionRequest (pre_approval_request): the hook answers the permission.
		{"permission: allow", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`, "", nil, want{kind: hookspec.Allow}},
		{"permission: allow with updatedInput", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`, "", nil,
			want{kind: hookspec.Allow, args: map[string]any{"command": "ls"}}},
		{"permission: updatedPermissions remembers", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules"}]}}}`, "", nil, want{kind: hookspec.Allow, remember: true}},
		{"permission: deny", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}`, "", nil, want{kind: hookspec.Deny, msg: "not on main"}},
		{"permission: exit 2 denies", hooknames.PreApprovalRequest, 2, "", "no", nil, want{kind: hookspec.Deny, msg: "no"}},
		{"permission: unknown behavior", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"maybe"}}}`, "", nil, want{problem: `unknown decision.behavior "maybe"`}},
		{"permission: decision not an object", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":"allow"}}`, "", nil, want{problem: "expected {\"behavior\""}},
		{"permission: no decision asks the person", hooknames.PreApprovalRequest, 0, `{}`, "", nil, want{}},

		// PreCompact / PostCompact / Notification.
		{"precompact: block cannot be honoured", hooknames.PreCompact, 0, `{"decision":"block","reason":"not now"}`, "", nil, want{problem: "the host compacts all the same"}},
		{"precompact: exit 2 cannot be honoured", hooknames.PreCompact, 2, "", "not now", nil, want{problem: "the host compacts all the same"}},
		{"notification: exit 2 is only shown", hooknames.OnNotification, 2, "", "x", nil, want{}},
		{"postcompact: output is only shown", hooknames.PostCompact, 0, "saved", "", nil, want{}},

		{"session start: plain text is context", hooknames.OnSessionStart, 0, "branch main\n", "", nil, want{kind: hookspec.Context, msg: "branch main"}},
		{"session start: text that starts with { but is not JSON is context", hooknames.OnSessionStart, 0, "{branch: main, dirty: 2 files}\n", "", nil, want{kind: hookspec.Context, msg: "{branch: main, dirty: 2 files}"}},
		{"prompt: text that starts with { but is not JSON is context", hooknames.PreLLMCall, 0, `{"a":`, "", nil, want{kind: hookspec.Context, msg: `{"a":`}},
		{"session start: additionalContext", hooknames.OnSessionStart, 0, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"notes"}}`, "", nil, want{kind: hookspec.Context, msg: "notes"}},

		{"post tool: exit 2 gives the model stderr", hooknames.PostToolCall, 2, "", "lint: 2 errors", bash, want{kind: hookspec.Context, msg: "lint: 2 errors"}},
		{"post tool: decision block gives the reason", hooknames.PostToolCall, 0, `{"decision":"block","reason":"fix the test"}`, "", bash, want{kind: hookspec.Context, msg: "fix the test"}},
		{"post tool: additionalContext", hooknames.PostToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted"}}`, "", bash, want{kind: hookspec.Context, msg: "formatted"}},
		{"post tool: plain text is only shown", hooknames.PostToolCall, 0, "formatted x.go", "", bash, want{}},
		{"post tool: continue false cannot stop the agent", hooknames.PostToolCall, 0, `{"continue":false,"stopReason":"halt"}`, "", bash, want{problem: `"continue": false stops Claude Code`}},

		{"subagent: block cannot be honoured", hooknames.SubagentStop, 0, `{"decision":"block","reason":"more"}`, "", nil, want{problem: "already stopped"}},
		{"session end: exit 2", hooknames.OnSessionEnd, 2, "", "x", nil, want{problem: "no effect on on_session_end"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, a, problem := claudeOutcome(c.event, c.exit, c.stdout, c.stderr, DefaultTools, c.kw)
			got := want{kind: a.Kind, msg: a.Message + a.Text, args: a.Args, remember: a.Remember}
			if c.want.problem == "" && problem != "" || !strings.Contains(problem, c.want.problem) {
				t.Errorf("problem %q, want %q", problem, c.want.problem)
			}
			got.problem = c.want.problem
			if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

// Claude Code's matcher: "" and "*" match all, plain names (and name|name) match exactly,
// anything else is a regular expression that may match anywhere.
func TestClaudeMatcher(t *testing.T) {
	t.Parallel()
	cases := []struct {
		matcher string
		yes, no []string
	}{
		{"", []string{"Bash", "Read"}, nil},
		{"*", []string{"Bash", "mcp__github__push"}, nil},
		{"Bash", []string{"Bash"}, []string{"BashOutput", "bash", "MyBash"}},
		{"Edit|Write", []string{"Edit", "Write"}, []string{"MultiEdit", "Read"}},
		{"Edit | Write", nil, []string{"Edit", "Write"}}, // not simple: a regex whose spaces no name has (warned at load)
		{"Notebook.*", []string{"NotebookEdit"}, []string{"Read"}},
		{"mcp__github__.*", []string{"mcp__github__push_files"}, []string{"mcp__memory__create"}},
		{"^Write$", []string{"Write"}, []string{"WriteX"}},
		{"Web", []string{"Web"}, []string{"WebFetch"}},
		{".*Fetch", []string{"WebFetch"}, []string{"Read"}},
	}
	for _, c := range cases {
		m, err := compileClaudeMatcher(c.matcher)
		if err != nil {
			t.Fatalf("%q: %v", c.matcher, err)
		}
		for _, n := range c.yes {
			if !m.match(n) {
				t.Errorf("%q does not match %q", c.matcher, n)
			}
		}
		for _, n := range c.no {
			if m.match(n) {
				t.Errorf("%q matches %q", c.matcher, n)
			}
		}
	}
	// A pattern RE2 cannot compile (a JavaScript lookahead) fires on every call, so a
	// guard is never silently off.
	m, err := compileClaudeMatcher(`^(?!Read).*`)
	if err == nil || !m.match("Read") || !m.match("Bash") {
		t.Errorf("lookahead: err %v; want an error and a matcher of everything", err)
	}
}

func TestToolTable(t *testing.T) {
	t.Parallel()
	name, in := DefaultTools.ToClaude("read_file", map[string]any{"path": "/a", "offset": 3})
	if diff := cmp.Diff(map[string]any{"file_path": "/a", "offset": 3}, in); name != "Read" || diff != "" {
		t.Errorf("read_file -> %s %v (%s)", name, in, diff)
	}
	if back := DefaultTools.FromClaude("read_file", in); !cmp.Equal(back, map[string]any{"path": "/a", "offset": 3}) {
		t.Errorf("back: %v", back)
	}
	if name, in := DefaultTools.ToClaude("vision_analyze", map[string]any{"image": "x"}); name != "vision_analyze" || in["image"] != "x" {
		t.Errorf("unmapped tool: %s %v", name, in)
	}
	var node yaml.Node
	if err := yaml.Unmarshal([]byte("browser_navigate: {name: Navigate, args: {url: href}}\nterminal: {name: Shell}\nbad: [1]\nodd: {name: X, arg: {}}\n"), &node); err != nil {
		t.Fatal(err)
	}
	tt, warns := ParseToolTable("config.yaml", node.Content[0])
	if len(warns) != 2 || !strings.Contains(warns[0].Msg, "claude_tools.bad") || !strings.Contains(warns[1].Msg, `unknown key "arg"`) {
		t.Errorf("warnings %v", warns)
	}
	if name, in := tt.ToClaude("browser_navigate", map[string]any{"url": "u"}); name != "Navigate" || in["href"] != "u" {
		t.Errorf("extended: %s %v", name, in)
	}
	if name, _ := tt.ToClaude("terminal", nil); name != "Shell" {
		t.Errorf("replaced entry: %s", name)
	}
	if tt.String() == DefaultTools.String() {
		t.Error("an extended table renders like the default one")
	}
}

// A dialect: claude entry parses with Claude Code's rules, and its mistakes are warned about.
func TestParseClaudeEntries(t *testing.T) {
	t.Parallel()
	var node yaml.Node
	src := `pre_tool_call:
  - {command: "python3 guard.py | tee x", dialect: claude, matcher: "Bash"}
  - {command: "x", dialect: claud}
  - {command: "y", dialect: claude, persistent: true}
transform_tool_result:
  - {command: "z", dialect: claude}
pre_llm_call:
  - {command: "w", dialect: claude, matcher: "anything"}
on_session_start:
  - {command: "v", dialect: claude, matcher: "resume"}
post_tool_call:
  - {command: "u", dialect: claude, matcher: "Edit | Write"}
  - {command: "t", dialect: claude, matcher: "^(?!Read).*"}
`
	if err := yaml.Unmarshal([]byte(src), &node); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", &node, hookspec.Names())
	var msgs []string
	for _, w := range warns {
		msgs = append(msgs, w.Msg)
	}
	for _, want := range []string{`unknown dialect "claud", did you mean 'claude'?`, "persistent is ignored for dialect claude",
		"dialect claude cannot serve transform_tool_result", "has spaces: it matches no tool name (write Edit|Write)", "is not a regular expression this engine can compile", `matcher "anything" is ignored: Claude Code has no matcher for UserPromptSubmit`} {
		if !strings.Contains(strings.Join(msgs, "\n"), want) {
			t.Errorf("no warning %q in:\n%s", want, strings.Join(msgs, "\n"))
		}
	}
	if len(hooks) != 6 || hooks[0].Dialect != DialectClaude || hooks[0].Argv[0] != "/bin/sh" || hooks[1].Persistent {
		t.Fatalf("hooks %+v", hooks)
	}
	if !hooks[5].Matches("read_file") || !hooks[5].Matches("terminal") {
		t.Error("a matcher RE2 cannot compile does not fire for every tool")
	}
	if !hooks[0].Matches("terminal") || hooks[0].Matches("read_file") {
		t.Error("matcher Bash does not select terminal alone")
	}
	if hooks[3].selects(map[string]any{}) {
		t.Error("SessionStart matcher resume selected a new session (source startup)")
	}
}

// A Claude Code hook runs under /bin/sh with CLAUDE_PROJECT_DIR and reads Claude Code's
// payload; its answer is read the Claude Code way.
func TestRunClaudeHook(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAUDE_PROJECT_DIR", "") // unset below, so the hook's directory is used
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	script(t, dir, "guard.sh", `in=$(cat)
echo "$in" > "$CLAUDE_PROJECT_DIR/payload.json"
case "$in" in *'rm -rf'*) echo "no rm -rf" >&2; exit 2;; esac
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -la"}}}'
`)
	// Shell syntax works: the command is run by /bin/sh, as Claude Code runs it.
	h := &Hook{Event: hooknames.PreToolCall, Command: `cd "$CLAUDE_PROJECT_DIR" && ./guard.sh`, Timeout: 10 * time.Second,
		Dialect: DialectClaude, Matcher: "Bash"}
	kw := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"}, "session_id": "s1", "tool_call_id": "c1"}
	res := h.Run(context.Background(), kw, RunOptions{Cwd: dir})
	if res.Status != hookspec.StatusOK || res.Answer.Kind != hookspec.Block || res.Answer.Message != "no rm -rf" {
		t.Fatalf("rm -rf: %+v", res)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "payload.json"))
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "s1", "transcript_path": "", "cwd": dir, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf /"}, "tool_use_id": "c1"}
	if diff := cmp.Diff(want, payload); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
	kw["args"] = map[string]any{"command": "ls"}
	if res := h.Run(context.Background(), kw, RunOptions{Cwd: dir}); res.Answer.Kind != hookspec.Modify || res.Answer.Args["command"] != "ls -la" {
		t.Errorf("ls: %+v", res)
	}
	if res := h.Run(context.Background(), map[string]any{"tool_name": "read_file"}, RunOptions{Cwd: dir}); res.Status != hookspec.StatusSkipped {
		t.Errorf("matcher Bash ran for read_file: %+v", res)
	}
	// A failing command is an error; with fail_closed it blocks.
	h.Command, h.FailClosed = "exit 3", true
	if res := h.Run(context.Background(), kw, RunOptions{Cwd: dir}); res.Status != hookspec.StatusError || res.Answer.Kind != hookspec.Block {
		t.Errorf("exit 3, fail_closed: %+v", res)
	}
}

// FuzzClaudeOutcome: any output of a Claude Code hook, on any event and exit code, is read
// without a panic, and a block always carries a message.
func FuzzClaudeOutcome(f *testing.F) {
	f.Add(0, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, "")
	f.Add(1, 2, "", "no")
	f.Add(2, 0, "plain context", "")
	f.Add(0, 0, `{"decision":"block","continue":false}`, "")
	f.Add(3, 0, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":1}}`, "")
	events := ClaudeEvents()
	f.Fuzz(func(t *testing.T, ev, exit int, stdout, stderr string) {
		event := events[((ev%len(events))+len(events))%len(events)]
		_, a, _ := claudeOutcome(event, exit%4, stdout, stderr, DefaultTools, map[string]any{"tool_name": "patch"})
		if a.Kind == hookspec.Block && strings.TrimSpace(a.Message) == "" {
			t.Fatalf("a block without a message: %q / %q", stdout, stderr)
		}
	})
}
