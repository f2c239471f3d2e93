package shell

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

func decodePayload(t *testing.T, d, hook string, kw map[string]any, tools *ToolTable) map[string]any {
	t.Helper()
	b, err := dialectPayload(d, hook, kw, "/p", tools)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// Codex's payloads: Claude Code's fields, Codex's event and tool names, turn_id and model,
// and apply_patch with the patch as its input.
func TestCodexPayloads(t *testing.T) {
	t.Parallel()
	base := func(event string) map[string]any {
		return map[string]any{"session_id": "test-session", "transcript_path": nil, "cwd": "/p", "permission_mode": "default",
			"hook_event_name": event, "turn_id": "test-task", "model": ""}
	}
	with := func(m map[string]any, kv ...any) map[string]any {
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		hook string
		kw   map[string]any
		want map[string]any
	}{
		{hooknames.PreToolCall, nil, with(base("PreToolUse"), "tool_name", "Bash", "tool_input", map[string]any{"command": "echo hello"}, "tool_use_id", "test-call")},
		{hooknames.PreToolCall, map[string]any{"tool_name": "patch", "args": map[string]any{"path": "a.go", "old_string": "x := 1", "new_string": "x := 2"}},
			with(base("PreToolUse"), "tool_name", "apply_patch", "tool_use_id", "test-call",
				"tool_input", map[string]any{"command": "*** Begin Patch\n*** Update File: a.go\n@@\n-x := 1\n+x := 2\n*** End Patch\n"})},
		{hooknames.PreToolCall, map[string]any{"tool_name": "write_file", "args": map[string]any{"path": "n.txt", "content": "hi\n"}},
			with(base("PreToolUse"), "tool_name", "apply_patch", "tool_use_id", "test-call",
				"tool_input", map[string]any{"command": "*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch\n"})},
		{hooknames.PreToolCall, map[string]any{"tool_name": "mcp__github__get_issue", "args": map[string]any{"n": 1}},
			with(base("PreToolUse"), "tool_name", "mcp__github__get_issue", "tool_use_id", "test-call", "tool_input", map[string]any{"n": float64(1)})},
		{hooknames.PreLLMCall, map[string]any{"model": "gpt-5"}, with(base("UserPromptSubmit"), "prompt", "What is the weather?", "model", "gpt-5", "turn_id", "")},
		{hooknames.PreVerify, nil, with(base("Stop"), "stop_hook_active", false, "last_assistant_message", "Sunny.", "model", "gpt-4", "turn_id", "")},
		{hooknames.PreApprovalRequest, nil, with(base("PermissionRequest"), "session_id", "test-session", "turn_id", "", "tool_name", "Bash",
			"tool_input", map[string]any{"command": "rm -rf /tmp/x", "description": "recursive delete"}, "permission_suggestions", []any{})},
		{hooknames.PreCompact, nil, with(base("PreCompact"), "trigger", "manual", "custom_instructions", "", "turn_id", "")},
		{hooknames.OnSessionStart, nil, with(base("SessionStart"), "source", "startup", "model", "gpt-4", "turn_id", "")},
		{hooknames.PostToolCall, nil, with(base("PostToolUse"), "tool_name", "Bash", "tool_input", map[string]any{"command": "echo hello"}, "tool_use_id", "test-call",
			"tool_response", map[string]any{"stdout": "hello", "stderr": "", "interrupted": false, "isImage": false, "output": "hello"})},
		{hooknames.PostCompact, nil, with(base("PostCompact"), "trigger", "manual", "compact_summary", "The user asked about the weather; it is sunny.", "turn_id", "")},
		{hooknames.SubagentStop, nil, with(base("SubagentStop"), "session_id", "parent-sess", "stop_hook_active", false, "agent_type", "", "turn_id", "")},
		{hooknames.OnSessionEnd, map[string]any{"interrupted": true}, with(base("Interrupt"), "model", "gpt-4", "turn_id", "")},
		{hooknames.PreVerify, map[string]any{"subagent": map[string]any{"agent_id": "agent-7", "agent_type": "reviewer", "agent_transcript_path": ""}},
			with(base("SubagentStop"), "stop_hook_active", false, "last_assistant_message", "Sunny.", "model", "gpt-4", "turn_id", "",
				"agent_id", "agent-7", "agent_type", "reviewer", "agent_transcript_path", nil)},
		{hooknames.PreVerify, map[string]any{"nudges": 1, "subagent": map[string]any{"agent_id": "agent-7", "agent_type": "reviewer", "agent_transcript_path": "/t/agent-7.jsonl"}},
			with(base("SubagentStop"), "stop_hook_active", true, "last_assistant_message", "Sunny.", "model", "gpt-4", "turn_id", "",
				"agent_id", "agent-7", "agent_type", "reviewer", "agent_transcript_path", "/t/agent-7.jsonl")},
	}
	for _, c := range cases {
		kw := hookspec.SampleKwargs(c.hook, "/p")
		for k, v := range c.kw {
			kw[k] = v
		}
		if diff := cmp.Diff(c.want, decodePayload(t, DialectCodex, c.hook, kw, codexTools)); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s", c.hook, c.kw, diff)
		}
	}
}

// Codex's strict answers: what Codex rejects is a hook error here too, and decides nothing.
func TestCodexAnswers(t *testing.T) {
	t.Parallel()
	bash := map[string]any{"tool_name": "terminal"}
	patch := map[string]any{"tool_name": "patch"}
	type want struct {
		kind    hookspec.Kind
		msg     string
		problem string
	}
	cases := []struct {
		name, event    string
		exit           int
		stdout, stderr string
		kw             map[string]any
		want           want
	}{
		{"deny with a reason blocks", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, "", bash, want{kind: hookspec.Block, msg: "no"}},
		{"deny without a reason is rejected", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, "", bash, want{problem: "deny without a non-empty permissionDecisionReason"}},
		{"allow without updatedInput is rejected", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, "", bash, want{problem: "unsupported permissionDecision:allow"}},
		{"allow with updatedInput rewrites", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, "", bash, want{kind: hookspec.Approve}},
		{"updatedInput without allow is rejected", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}`, "", bash, want{problem: "updatedInput without permissionDecision:allow"}},
		{"a rewritten patch is rejected", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"*** Begin Patch"}}}`, "", patch, want{problem: "a rewritten patch cannot be applied here"}},
		{"additionalContext alone", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"use rg"}}`, "", bash, want{kind: hookspec.Context}},
		{"additionalContext beside a deny", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","additionalContext":"use rg"}}`, "", bash, want{kind: hookspec.Block, msg: "no"}},
		{"additionalContext beside decision block", hooknames.PreToolCall, 0, `{"decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"use rg"}}`, "", bash, want{kind: hookspec.Block, msg: "no"}},
		{"defer is not Codex's", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`, "", bash, want{problem: "unsupported permissionDecision:defer"}},
		{"ask is rejected", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"?"}}`, "", bash, want{problem: "unsupported permissionDecision:ask"}},
		{"decision approve is rejected", hooknames.PreToolCall, 0, `{"decision":"approve"}`, "", bash, want{problem: "unsupported decision:approve"}},
		{"block without a reason is rejected", hooknames.PreToolCall, 0, `{"decision":"block"}`, "", bash, want{problem: "decision:block without a non-empty reason"}},
		{"reason without decision is rejected", hooknames.PreToolCall, 0, `{"reason":"x"}`, "", bash, want{problem: "reason without decision"}},
		{"continue false is rejected", hooknames.PreToolCall, 0, `{"continue":false}`, "", bash, want{problem: "unsupported continue:false"}},
		{"suppressOutput is rejected", hooknames.PreToolCall, 0, `{"suppressOutput":true}`, "", bash, want{problem: "unsupported suppressOutput"}},
		{"exit 2 with stderr blocks", hooknames.PreToolCall, 2, "", "no", bash, want{kind: hookspec.Block, msg: "no"}},
		{"exit 2 without stderr is rejected", hooknames.PreToolCall, 2, "", "", bash, want{problem: "wrote no blocking reason"}},
		{"prompt block needs a reason", hooknames.PreLLMCall, 0, `{"decision":"block"}`, "", nil, want{problem: "UserPromptSubmit hook returned decision:block without a non-empty reason"}},
		{"prompt block", hooknames.PreLLMCall, 0, `{"decision":"block","reason":"no keys"}`, "", nil, want{kind: hookspec.Block, msg: "no keys"}},
		{"stop block keeps going", hooknames.PreVerify, 0, `{"decision":"block","reason":"run the tests"}`, "", nil, want{kind: hookspec.Continue, msg: "run the tests"}},
		{"stop block needs a reason", hooknames.PreVerify, 0, `{"decision":"block"}`, "", nil, want{problem: "Stop hook returned decision:block without a non-empty reason"}},
		{"permission allow", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`, "", nil, want{kind: hookspec.Allow}},
		{"permission updatedPermissions is rejected", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[]}}}`, "", nil, want{problem: "unsupported updatedPermissions"}},
		{"permission interrupt is rejected", hooknames.PreApprovalRequest, 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","interrupt":true}}}`, "", nil, want{problem: "unsupported interrupt:true"}},
		{"post tool reason without decision", hooknames.PostToolCall, 0, `{"reason":"x"}`, "", bash, want{problem: "PostToolUse hook returned reason without decision"}},
		{"interrupt: systemMessage alone", hooknames.OnSessionEnd, 0, `{"systemMessage":"watch the tide"}`, "", nil, want{}},
		{"interrupt: nothing", hooknames.OnSessionEnd, 0, "", "", nil, want{}},
		{"interrupt: hookSpecificOutput is rejected", hooknames.OnSessionEnd, 0, `{"hookSpecificOutput":{"hookEventName":"Interrupt"}}`, "", nil, want{problem: `invalid interrupt hook JSON output ("hookSpecificOutput"`}},
		{"interrupt: continue is rejected", hooknames.OnSessionEnd, 0, `{"continue":true}`, "", nil, want{problem: `invalid interrupt hook JSON output ("continue"`}},
		{"interrupt: decision is rejected", hooknames.OnSessionEnd, 0, `{"decision":"block"}`, "", nil, want{problem: `invalid interrupt hook JSON output ("decision"`}},
		{"interrupt: malformed JSON is rejected", hooknames.OnSessionEnd, 0, `{"systemMessage":"x"`, "", nil, want{problem: "invalid interrupt hook JSON output"}},
		{"interrupt: plain text is rejected", hooknames.OnSessionEnd, 0, "aloha", "", nil, want{problem: "Interrupt hook returned non-JSON stdout"}},
		{"interrupt: exit 2 is a failure", hooknames.OnSessionEnd, 2, "", "ignored", nil, want{problem: "Interrupt hook exited with code 2"}},
		{"codex's name of a shared event", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","permissionDecision":"deny","permissionDecisionReason":"no"}}`, "", bash, want{problem: `expected "PreToolUse"`}},
	}
	for _, c := range cases {
		_, a, problem := dialectOutcome(DialectCodex, c.event, c.exit, c.stdout, c.stderr, codexTools, c.kw)
		if c.want.problem == "" && problem != "" || !strings.Contains(problem, c.want.problem) {
			t.Errorf("%s: problem %q, want %q", c.name, problem, c.want.problem)
		}
		if a.Kind != c.want.kind || a.Message != c.want.msg && c.want.msg != "" {
			t.Errorf("%s: answer %+v, want %v %q", c.name, a, c.want.kind, c.want.msg)
		}
		if strings.Contains(c.stdout, "additionalContext") && a.Text != "use rg" {
			t.Errorf("%s: context %q, want %q", c.name, a.Text, "use rg")
		}
	}
}

// Gemini CLI's payloads: its event and tool names, tool_response's llmContent, AfterAgent's
// prompt and prompt_response.
func TestGeminiPayloads(t *testing.T) {
	t.Parallel()
	cases := []struct {
		hook string
		kw   map[string]any
		keys map[string]any // a subset of the payload
	}{
		{hooknames.PreToolCall, nil, map[string]any{"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "echo hello"}}},
		{hooknames.PreToolCall, map[string]any{"tool_name": "patch", "args": map[string]any{"path": "a.go", "old_string": "a", "new_string": "b"}},
			map[string]any{"tool_name": "replace", "tool_input": map[string]any{"file_path": "a.go", "old_string": "a", "new_string": "b"}}},
		{hooknames.PostToolCall, nil, map[string]any{"hook_event_name": "AfterTool", "tool_response": map[string]any{"llmContent": `{"output": "hello"}`, "returnDisplay": `{"output": "hello"}`}}},
		{hooknames.PreLLMCall, nil, map[string]any{"hook_event_name": "BeforeAgent", "prompt": "What is the weather?"}},
		{hooknames.PreVerify, nil, map[string]any{"hook_event_name": "AfterAgent", "prompt": "What is the weather?", "prompt_response": "Sunny.", "stop_hook_active": false}},
		{hooknames.OnSessionStart, nil, map[string]any{"hook_event_name": "SessionStart", "source": "startup"}},
		{hooknames.OnSessionFinalize, nil, map[string]any{"hook_event_name": "SessionEnd", "reason": "exit"}},
		{hooknames.OnNotification, nil, map[string]any{"hook_event_name": "Notification", "notification_type": "idle_prompt", "message": "The agent is waiting for your input", "details": map[string]any{}}},
		{hooknames.PreCompact, nil, map[string]any{"hook_event_name": "PreCompress", "trigger": "manual"}},
	}
	for _, c := range cases {
		kw := hookspec.SampleKwargs(c.hook, "/p")
		for k, v := range c.kw {
			kw[k] = v
		}
		got := decodePayload(t, DialectGemini, c.hook, kw, geminiTools)
		if _, ok := got["timestamp"].(string); !ok {
			t.Errorf("%s: no timestamp in %v", c.hook, got)
		}
		if _, ok := got["permission_mode"]; ok {
			t.Errorf("%s: Claude Code's permission_mode in a Gemini CLI payload", c.hook)
		}
		for k, v := range c.keys {
			if diff := cmp.Diff(v, got[k]); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", c.hook, k, diff)
			}
		}
	}
}

// Gemini CLI's answers: deny (or block, or exit 2) per event, tool_input merged into the
// arguments, tool_output replacing a result, additionalContext, and what it ignores.
func TestGeminiAnswers(t *testing.T) {
	t.Parallel()
	shell := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /", "background": false}}
	replace := map[string]any{"tool_name": "patch", "args": map[string]any{"path": "a.go", "old_string": "a", "new_string": "b"}}
	cases := []struct {
		name, event    string
		exit           int
		stdout, stderr string
		kw             map[string]any
		kind           hookspec.Kind
		msg            string
		args           map[string]any
		output         string
		problem        string
	}{
		{"deny blocks the tool", hooknames.PreToolCall, 0, `{"decision":"deny","reason":"no"}`, "", shell, hookspec.Block, "no", nil, "", ""},
		{"block is deny's alias", hooknames.PreToolCall, 0, `{"decision":"block","reason":"no"}`, "", shell, hookspec.Block, "no", nil, "", ""},
		{"exit 2 blocks the tool", hooknames.PreToolCall, 2, "", "stderr reason", shell, hookspec.Block, "stderr reason", nil, "", ""},
		{"allow decides nothing", hooknames.PreToolCall, 0, `{"decision":"allow"}`, "", shell, hookspec.None, "", nil, "", ""},
		{"continue false stops the call", hooknames.PreToolCall, 0, `{"continue":false,"stopReason":"halt"}`, "", shell, hookspec.Block, "halt", nil, "", ""},
		{"tool_input is merged", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"new_string":"c"}}}`, "", replace,
			hookspec.Modify, "", map[string]any{"path": "a.go", "old_string": "a", "new_string": "c"}, "", ""},
		{"BeforeTool has no additionalContext in Gemini CLI", hooknames.PreToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","additionalContext":"ctx"}}`, "", shell, hookspec.None, "", nil, "", ""},
		{"deny replaces the tool's result", hooknames.PostToolCall, 0, `{"decision":"deny","reason":"[hidden]"}`, "", shell, hookspec.None, "", nil, "[hidden]", ""},
		{"tool_output replaces the result", hooknames.PostToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"AfterTool","tool_output":"short"}}`, "", shell, hookspec.None, "", nil, "short", ""},
		{"additionalContext after a result", hooknames.PostToolCall, 0, `{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"note"}}`, "", shell, hookspec.Context, "note", nil, "", ""},
		{"deny blocks the prompt", hooknames.PreLLMCall, 0, `{"decision":"deny","reason":"no keys"}`, "", nil, hookspec.Block, "no keys", nil, "", ""},
		{"context for the prompt", hooknames.PreLLMCall, 0, `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"ctx"}}`, "", nil, hookspec.Context, "ctx", nil, "", ""},
		{"AfterAgent deny retries", hooknames.PreVerify, 0, `{"decision":"deny","reason":"add tests"}`, "", nil, hookspec.Continue, "add tests", nil, "", ""},
		{"AfterAgent exit 2 retries", hooknames.PreVerify, 2, "", "again", nil, hookspec.Continue, "again", nil, "", ""},
		{"clearContext cannot be honoured", hooknames.PreVerify, 0, `{"hookSpecificOutput":{"hookEventName":"AfterAgent","clearContext":true}}`, "", nil, hookspec.None, "", nil, "", "clearContext"},
		{"plain text on stdout is a mistake", hooknames.PreToolCall, 0, "ok", "", shell, hookspec.None, "", nil, "", "not valid JSON"},
		{"an unknown decision", hooknames.PreToolCall, 0, `{"decision":"maybe"}`, "", shell, hookspec.None, "", nil, "", `unknown decision "maybe"`},
		{"other exits are warnings", hooknames.PreToolCall, 1, "", "boom", shell, hookspec.None, "", nil, "", "exited with status 1"},
		{"notification deny is advisory", hooknames.OnNotification, 0, `{"decision":"deny"}`, "", nil, hookspec.None, "", nil, "", "no effect on Notification"},
	}
	for _, c := range cases {
		_, a, problem := dialectOutcome(DialectGemini, c.event, c.exit, c.stdout, c.stderr, geminiTools, c.kw)
		out := ""
		if a.Output != nil {
			out = *a.Output
		}
		if a.Kind != c.kind || a.Message+a.Text != c.msg || out != c.output || !cmp.Equal(a.Args, c.args) {
			t.Errorf("%s: answer %+v (output %q), want %v %q %v %q", c.name, a, out, c.kind, c.msg, c.args, c.output)
		}
		if c.problem == "" && problem != "" || !strings.Contains(problem, c.problem) {
			t.Errorf("%s: problem %q, want %q", c.name, problem, c.problem)
		}
	}
}

// Codex's matchers: apply_patch is matched by Edit and Write too; Interrupt fires only for a
// turn the user interrupted. A dialect cannot serve an event its agent has no name for.
func TestCodexSelects(t *testing.T) {
	t.Parallel()
	var node yaml.Node
	src := `pre_tool_call:
  - {command: a, dialect: codex, matcher: "Edit|Write"}
on_session_end:
  - {command: b, dialect: codex}
transform_tool_result:
  - {command: c, dialect: codex}
post_tool_failure:
  - {command: d, dialect: gemini}
on_session_finalize:
  - {command: e, dialect: gemini, matcher: exit}
  - {command: f, dialect: gemini, matcher: clear}
`
	if err := yaml.Unmarshal([]byte(src), &node); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", &node, hookspec.Names())
	if len(hooks) != 4 || len(warns) != 2 || !strings.Contains(warns[0].Msg, "dialect codex cannot serve transform_tool_result (Codex has no such event") ||
		!strings.Contains(warns[1].Msg, "dialect gemini cannot serve post_tool_failure (Gemini CLI has no such event") {
		t.Fatalf("hooks %v, warnings %v", hooks, warns)
	}
	if !hooks[0].Matches("patch") || !hooks[0].Matches("write_file") || hooks[0].Matches("terminal") {
		t.Error("Edit|Write does not select apply_patch (patch, write_file) alone")
	}
	if hooks[1].selects(map[string]any{"interrupted": false}) || !hooks[1].selects(map[string]any{"interrupted": true}) {
		t.Error("Interrupt fires for a turn that was not interrupted, or not for one that was")
	}
	if !hooks[2].selects(map[string]any{}) || hooks[3].selects(map[string]any{}) {
		t.Error("Gemini CLI's SessionEnd matcher is not compared with its reason, exit")
	}
}
