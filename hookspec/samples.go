package hookspec

import (
	"strings"

	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// SampleKwargs returns the sample keyword arguments of a plugin hook (what `hermesctl hooks
// test` fires, SPEC §8.1), built from the typed arguments, or nil for a name that is not a
// plugin hook. cwd fills the cwd of transform_terminal_output.
func SampleKwargs(hook, cwd string) map[string]any {
	tool := ToolCall{Name: "terminal", Args: map[string]any{"command": "echo hello"}, SessionID: "test-session",
		TaskID: "test-task", ToolCallID: "test-call", Result: `{"output": "hello"}`, DurationMS: 42}
	turn := LLMTurn{SessionID: "test-session", UserMessage: "What is the weather?", IsFirstTurn: true,
		Model: "gpt-4", Platform: "cli", SenderID: "test-user", AssistantResponse: "Sunny."}
	session := Session{SessionID: "test-session", Model: "gpt-4", Platform: "cli"}
	approval := Approval{Command: "rm -rf /tmp/x", Description: "recursive delete", PatternKey: "rm_rf",
		PatternKeys: []string{"rm_rf"}, SessionKey: "test-session", Surface: "cli", Choice: "deny"}
	compaction := Compaction{SessionID: "test-session", Trigger: "manual", Platform: "cli", Summary: "The user asked about the weather; it is sunny.",
		Messages: []Message{{Role: "user", Content: "What is the weather?"}, {Role: "assistant", Content: "Sunny."}}}
	switch hook {
	case hooknames.PreToolCall, hooknames.WrapToolCall:
		return tool.Kwargs(false)
	case hooknames.PreAPIRequest, hooknames.WrapLLMCall:
		return SampleLLMRequest().Kwargs()
	case hooknames.PostToolCall, hooknames.TransformToolResult:
		return tool.Kwargs(true)
	case hooknames.TransformTerminalOutput:
		return TerminalOutput{Command: "echo hello", Output: "hello\n", Cwd: cwd, TaskID: "test-task"}.Kwargs()
	case hooknames.PreLLMCall:
		return turn.PreKwargs()
	case hooknames.PostLLMCall:
		return turn.PostKwargs()
	case hooknames.TransformLLMOutput:
		return LLMOutput{ResponseText: "Sunny.", SessionID: "test-session", Model: "gpt-4", Platform: "cli"}.Kwargs()
	case hooknames.PostAPIRequest:
		return APIRequest{SessionID: "test-session", Model: "gpt-4", Platform: "cli", APICallCount: 1}.Kwargs()
	case hooknames.OnSessionStart:
		return session.StartKwargs()
	case hooknames.OnSessionFinalize, hooknames.OnSessionReset:
		return session.RefKwargs()
	case hooknames.OnSessionEnd:
		return SessionResult{Session: session, Completed: true}.Kwargs()
	case hooknames.SubagentStop:
		return Subagent{ParentSessionID: "parent-sess", Summary: "Synthetic summary for hooks test", Status: "completed", DurationMS: 1234}.Kwargs()
	case hooknames.PreGatewayDispatch:
		return map[string]any{"event": DispatchEvent{Text: "hello", Platform: "telegram", UserID: "test-user",
			ChatID: "test-chat", ChatType: "dm", MessageID: "1"}.Table()}
	case hooknames.PreApprovalRequest:
		return approval.Kwargs(false)
	case hooknames.PostApprovalResponse:
		return approval.Kwargs(true)
	case hooknames.PreVerify:
		return Verify{SessionID: "test-session", UserMessage: "What is the weather?", Response: "Sunny.", Model: "gpt-4", Platform: "cli"}.Kwargs()
	case hooknames.PostToolFailure:
		failed := tool
		failed.Result = ""
		return ToolFailure{Call: failed, Error: "command failed with exit code 1"}.Kwargs()
	case hooknames.PreCompact:
		return compaction.PreKwargs()
	case hooknames.PostCompact:
		return compaction.PostKwargs()
	case hooknames.OnNotification:
		return Notification{SessionID: "test-session", Message: "The agent is waiting for your input", Type: "idle_prompt", Platform: "cli"}.Kwargs()
	}
	return nil
}

// SampleLLMRequest is the sample request to the model of pre_api_request and wrap_llm_call.
func SampleLLMRequest() LLMRequest {
	return LLMRequest{SessionID: "test-session", Platform: "cli", APICallCount: 1, Model: "gpt-4",
		System:   "You are a helpful assistant.",
		Messages: []Message{{Role: "user", Content: "What is the weather?"}},
		Tools: []map[string]any{{"name": "terminal", "description": "Run a shell command",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}}}},
		Params: map[string]any{"temperature": 0.2, "max_tokens": 1024}}
}

// SampleContext returns the sample context of a gateway event (what `hermesctl hooks test`
// emits): the documented context keys with test values, built from the typed events. An
// event of a host's own gets the keys every agent event has.
func SampleContext(event string) map[string]any {
	const platform, user, session, key = "cli", "test-user", "test-session", "cli:test-user"
	var ev Event
	switch {
	case event == GatewayStartup:
		ev = StartupEvent{Platforms: []string{platform}}
	case event == SessionStart:
		ev = SessionStartEvent{Platform: platform, UserID: user, SessionID: session, SessionKey: key}
	case event == SessionEnd:
		ev = SessionEndEvent{Platform: platform, UserID: user, SessionKey: key}
	case event == SessionReset:
		ev = SessionResetEvent{Platform: platform, UserID: user, SessionKey: key}
	case event == AgentStart:
		ev = AgentStartEvent{Platform: platform, UserID: user, SessionID: session, Message: "hello"}
	case event == AgentStep:
		ev = AgentStepEvent{Platform: platform, UserID: user, SessionID: session, Iteration: 1, ToolNames: []string{"terminal"}}
	case event == AgentEnd:
		ev = AgentEndEvent{Platform: platform, UserID: user, SessionID: session, Message: "hello", Response: "Sunny."}
	case strings.HasPrefix(event, CommandPrefix):
		ev = CommandEvent{Platform: platform, UserID: user, Command: strings.TrimPrefix(event, CommandPrefix)}
	default:
		return map[string]any{"platform": platform, "user_id": user, "session_id": session}
	}
	return ev.Context()
}
