package shell

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// Every event a Claude Code hook can serve gets Claude Code's payload, with the published
// field names (code.claude.com/docs/en/hooks, "Hook input"), built from the kwargs the
// engine passes (the sample payloads of hooks test).
func TestClaudePayloads(t *testing.T) {
	t.Parallel()
	common := func(event string) map[string]any {
		return map[string]any{"session_id": "test-session", "transcript_path": "", "cwd": "/p", "permission_mode": "default", "hook_event_name": event}
	}
	with := func(m map[string]any, kv ...any) map[string]any {
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	bash := map[string]any{"command": "echo hello"}
	cases := []struct {
		hook string
		kw   map[string]any // over the sample kwargs
		want map[string]any
	}{
		{hooknames.PreToolCall, nil, with(common("PreToolUse"), "tool_name", "Bash", "tool_input", bash, "tool_use_id", "test-call")},
		{hooknames.PostToolCall, map[string]any{"result": `{"output": "hello\n", "exit_code": 0}`}, with(common("PostToolUse"), "tool_name", "Bash", "tool_input", bash, "tool_use_id", "test-call",
			"tool_response", map[string]any{"stdout": "hello\n", "stderr": "", "interrupted": false, "isImage": false, "output": "hello\n", "exit_code": float64(0)})},
		{hooknames.PostToolFailure, nil, with(common("PostToolUseFailure"), "tool_name", "Bash", "tool_input", bash, "tool_use_id", "test-call",
			"error", "command failed with exit code 1", "is_interrupt", false)},
		{hooknames.PostToolFailure, map[string]any{"error": "interrupted by the user", "interrupted": true}, with(common("PostToolUseFailure"), "tool_name", "Bash", "tool_input", bash, "tool_use_id", "test-call",
			"error", "interrupted by the user", "is_interrupt", true)},
		{hooknames.PreLLMCall, nil, with(common("UserPromptSubmit"), "prompt", "What is the weather?")},
		{hooknames.OnSessionStart, nil, with(common("SessionStart"), "source", "startup", "model", "gpt-4")},
		{hooknames.OnSessionEnd, nil, with(common("SessionEnd"), "reason", "other")},
		{hooknames.SubagentStop, nil, with(common("SubagentStop"), "session_id", "parent-sess", "stop_hook_active", false, "agent_type", "")},
		{hooknames.PreVerify, nil, with(common("Stop"), "stop_hook_active", false, "last_assistant_message", "Sunny.")},
		{hooknames.PreVerify, map[string]any{"nudges": 2}, with(common("Stop"), "stop_hook_active", true, "last_assistant_message", "Sunny.")},
		{hooknames.PreVerify, map[string]any{"subagent": map[string]any{"agent_id": "agent-7", "agent_type": "reviewer", "agent_transcript_path": "/t/agent-7.jsonl"}},
			with(common("SubagentStop"), "stop_hook_active", false, "last_assistant_message", "Sunny.",
				"agent_id", "agent-7", "agent_type", "reviewer", "agent_transcript_path", "/t/agent-7.jsonl")},
		{hooknames.PreVerify, map[string]any{"nudges": 1, "subagent": map[string]any{"agent_id": "agent-7", "agent_type": "", "agent_transcript_path": ""}},
			with(common("SubagentStop"), "stop_hook_active", true, "last_assistant_message", "Sunny.", "agent_id", "agent-7", "agent_type", "", "agent_transcript_path", "")},
		{hooknames.PreCompact, map[string]any{"instructions": "keep names"}, with(common("PreCompact"), "trigger", "manual", "custom_instructions", "keep names")},
		{hooknames.PostCompact, nil, with(common("PostCompact"), "trigger", "manual", "compact_summary", "The user asked about the weather; it is sunny.")},
		{hooknames.OnNotification, nil, with(common("Notification"), "message", "The agent is waiting for your input", "title", "", "notification_type", "idle_prompt")},
		{hooknames.PreApprovalRequest, nil, with(common("PermissionRequest"), "tool_name", "Bash",
			"tool_input", map[string]any{"command": "rm -rf /tmp/x", "description": "recursive delete"}, "permission_suggestions", []any{})},
	}
	for _, c := range cases {
		t.Run(c.hook, func(t *testing.T) {
			kw := hookspec.SampleKwargs(c.hook, "/p")
			for k, v := range c.kw {
				kw[k] = v
			}
			b, err := claudePayload(c.hook, kw, "/p", DefaultTools)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
		})
	}
}

// Tool results reach PostToolUse hooks in the shape of Claude Code's own tools.
func TestClaudeToolResponse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		input  map[string]any
		result string
		want   any
	}{
		{"Bash", nil, `{"output":"ok\n","exit_code":0}`, map[string]any{"stdout": "ok\n", "stderr": "", "interrupted": false, "isImage": false, "output": "ok\n", "exit_code": int64(0)}},
		{"Bash", nil, `{"error":"timed out"}`, map[string]any{"stdout": "", "stderr": "timed out", "interrupted": false, "isImage": false, "error": "timed out"}},
		{"Bash", nil, `plain text`, map[string]any{"stdout": "plain text", "stderr": "", "interrupted": false, "isImage": false, "output": "plain text"}},
		{"Write", map[string]any{"file_path": "/p/a.go", "content": "x"}, `{"ok":true}`, map[string]any{"type": "create", "filePath": "/p/a.go", "content": "x", "success": true, "ok": true}},
		{"Edit", map[string]any{"file_path": "/p/a.go", "old_string": "a", "new_string": "b"}, `{"error":"no match"}`,
			map[string]any{"filePath": "/p/a.go", "oldString": "a", "newString": "b", "replaceAll": false, "success": false, "error": "no match"}},
		{"Read", map[string]any{"file_path": "/p/a.go"}, `{"content":"package a"}`, map[string]any{"type": "text", "file": map[string]any{"filePath": "/p/a.go", "content": "package a"}, "content": "package a"}},
		{"WebSearch", nil, `{"results":[]}`, map[string]any{"results": []any{}}},
		{"mcp__github__get_issue", nil, `not json`, "not json"},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, claudeToolResponse(c.name, c.input, c.result)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", c.name, c.result, diff)
		}
	}
}

// PostToolUse's updatedToolOutput replaces what the model sees; additionalContext may come
// with it.
func TestUpdatedToolOutput(t *testing.T) {
	t.Parallel()
	kw := map[string]any{"tool_name": "terminal"}
	for _, c := range []struct {
		stdout, output, context string
	}{
		{`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"[redacted]"}}`, "[redacted]", ""},
		{`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"x"},"additionalContext":"shortened"}}`, `{"stdout":"x"}`, "shortened"},
		{`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":"mcp"}}`, "mcp", ""},
		{`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"only"}}`, "", "only"},
	} {
		_, a, problem := claudeOutcome(hooknames.PostToolCall, 0, c.stdout, "", DefaultTools, kw)
		got := ""
		if a.Output != nil {
			got = *a.Output
		}
		if problem != "" || got != c.output || a.Text != c.context {
			t.Errorf("%s: output %q context %q problem %q; want %q %q", c.stdout, got, a.Text, problem, c.output, c.context)
		}
	}
}
