package engine

// DefaultPayload returns the sample keyword arguments `hermesctl hooks test` uses for a
// plugin hook, or nil for a name that is not a plugin hook. cwd fills the cwd of
// transform_terminal_output.
func DefaultPayload(hook, cwd string) map[string]any {
	tool := func() map[string]any {
		return map[string]any{
			"tool_name": "terminal", "args": map[string]any{"command": "echo hello"},
			"session_id": "test-session", "task_id": "test-task", "tool_call_id": "test-call",
		}
	}
	approval := func() map[string]any {
		return map[string]any{
			"command": "rm -rf /tmp/x", "description": "recursive delete", "pattern_key": "rm_rf",
			"pattern_keys": []any{"rm_rf"}, "session_key": "test-session", "surface": "cli",
		}
	}
	switch hook {
	case PreToolCall:
		return tool()
	case PostToolCall, TransformToolResult:
		kw := tool()
		kw["result"] = `{"output": "hello"}`
		kw["duration_ms"] = 42
		return kw
	case TransformTerminalOutput:
		return map[string]any{"command": "echo hello", "output": "hello\n", "exit_code": 0, "cwd": cwd, "task_id": "test-task"}
	case PreLLMCall:
		return map[string]any{
			"session_id": "test-session", "user_message": "What is the weather?", "conversation_history": []any{},
			"is_first_turn": true, "model": "gpt-4", "platform": "cli", "sender_id": "test-user",
		}
	case PostLLMCall:
		return map[string]any{
			"session_id": "test-session", "user_message": "What is the weather?", "assistant_response": "Sunny.",
			"conversation_history": []any{}, "model": "gpt-4", "platform": "cli",
		}
	case TransformLLMOutput:
		return map[string]any{"response_text": "Sunny.", "session_id": "test-session", "model": "gpt-4", "platform": "cli"}
	case PreAPIRequest, PostAPIRequest:
		return map[string]any{"session_id": "test-session", "model": "gpt-4", "platform": "cli", "api_call_count": 1}
	case OnSessionStart:
		return map[string]any{"session_id": "test-session", "model": "gpt-4", "platform": "cli"}
	case OnSessionFinalize, OnSessionReset:
		return map[string]any{"session_id": "test-session", "platform": "cli"}
	case OnSessionEnd:
		return map[string]any{"session_id": "test-session", "completed": true, "interrupted": false, "model": "gpt-4", "platform": "cli"}
	case SubagentStop:
		return map[string]any{
			"parent_session_id": "parent-sess", "child_role": nil, "child_summary": "Synthetic summary for hooks test",
			"child_status": "completed", "duration_ms": 1234,
		}
	case PreGatewayDispatch:
		return map[string]any{"event": map[string]any{
			"text": "hello", "platform": "telegram", "user_id": "test-user", "chat_id": "test-chat",
			"chat_type": "dm", "message_id": "1", "internal": false,
		}}
	case PreApprovalRequest:
		return approval()
	case PostApprovalResponse:
		kw := approval()
		kw["choice"] = "deny"
		return kw
	}
	return nil
}
