package hookspec

// The keyword arguments of every plugin hook, typed, each with the one conversion to the
// map hooks receive (Lua tables and shell hooks' JSON alike). A misspelled field is a
// compile error where a misspelled map key would be silent.

// ToolCall is one tool call: pre_tool_call, post_tool_call and transform_tool_result.
type ToolCall struct {
	Name       string         // tool_name
	Args       map[string]any // args; nil is sent as {}
	TaskID     string
	SessionID  string
	ToolCallID string
	Result     string // post_tool_call / transform_tool_result only
	DurationMS int64  // post_tool_call / transform_tool_result only
}

// Kwargs are pre_tool_call's arguments; with withResult, post_tool_call's and
// transform_tool_result's (result and duration_ms added).
func (c ToolCall) Kwargs(withResult bool) map[string]any {
	kw := map[string]any{
		"tool_name": c.Name, "args": ArgsOrEmpty(c.Args), "task_id": c.TaskID,
		"session_id": c.SessionID, "tool_call_id": c.ToolCallID,
	}
	if withResult {
		kw["result"] = c.Result
		kw["duration_ms"] = c.DurationMS
	}
	return kw
}

// ArgsOrEmpty is m, or an empty map for nil: a tool's args are always a table.
func ArgsOrEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// TerminalOutput is the output of one terminal command: transform_terminal_output.
type TerminalOutput struct {
	Command  string
	Output   string
	ExitCode int
	Cwd      string
	TaskID   string
}

// Kwargs are transform_terminal_output's arguments.
func (o TerminalOutput) Kwargs() map[string]any {
	return map[string]any{"command": o.Command, "output": o.Output, "exit_code": o.ExitCode, "cwd": o.Cwd, "task_id": o.TaskID}
}

// LLMTurn is one user turn: pre_llm_call and post_llm_call.
type LLMTurn struct {
	SessionID           string
	UserMessage         string
	ConversationHistory []Message // earlier messages; nil is sent as []
	IsFirstTurn         bool
	Model               string
	Platform            string
	SenderID            string
	AssistantResponse   string // post_llm_call only
}

// PreKwargs are pre_llm_call's arguments.
func (t LLMTurn) PreKwargs() map[string]any {
	return map[string]any{
		"session_id": t.SessionID, "user_message": t.UserMessage, "conversation_history": messagesOrEmpty(t.ConversationHistory),
		"is_first_turn": t.IsFirstTurn, "model": t.Model, "platform": t.Platform, "sender_id": t.SenderID,
	}
}

// PostKwargs are post_llm_call's arguments.
func (t LLMTurn) PostKwargs() map[string]any {
	return map[string]any{
		"session_id": t.SessionID, "user_message": t.UserMessage, "assistant_response": t.AssistantResponse,
		"conversation_history": messagesOrEmpty(t.ConversationHistory), "model": t.Model, "platform": t.Platform,
	}
}

// LLMOutput is the model's final response: transform_llm_output.
type LLMOutput struct {
	ResponseText string
	SessionID    string
	Model        string
	Platform     string
}

// Kwargs are transform_llm_output's arguments.
func (o LLMOutput) Kwargs() map[string]any {
	return map[string]any{"response_text": o.ResponseText, "session_id": o.SessionID, "model": o.Model, "platform": o.Platform}
}

// APIRequest is one request to the model's API: pre_api_request and post_api_request.
type APIRequest struct {
	SessionID    string
	Model        string
	Platform     string
	APICallCount int
}

// Kwargs are the API request hooks' arguments.
func (a APIRequest) Kwargs() map[string]any {
	return map[string]any{"session_id": a.SessionID, "model": a.Model, "platform": a.Platform, "api_call_count": a.APICallCount}
}

// Session is a session: on_session_start (all three), on_session_finalize and
// on_session_reset (SessionID and Platform; an empty SessionID, no session yet, is sent as
// nil).
type Session struct {
	SessionID string
	Model     string
	Platform  string
}

// StartKwargs are on_session_start's arguments.
func (s Session) StartKwargs() map[string]any {
	return map[string]any{"session_id": s.SessionID, "model": s.Model, "platform": s.Platform}
}

// RefKwargs are on_session_finalize's and on_session_reset's arguments.
func (s Session) RefKwargs() map[string]any {
	var id any
	if s.SessionID != "" {
		id = s.SessionID
	}
	return map[string]any{"session_id": id, "platform": s.Platform}
}

// SessionResult is how a session's run ended: on_session_end.
type SessionResult struct {
	Session
	Completed   bool
	Interrupted bool
}

// Kwargs are on_session_end's arguments.
func (s SessionResult) Kwargs() map[string]any {
	return map[string]any{"session_id": s.SessionID, "completed": s.Completed, "interrupted": s.Interrupted, "model": s.Model, "platform": s.Platform}
}

// Subagent is a finished child of a delegation: subagent_stop.
type Subagent struct {
	ParentSessionID string
	Role            string // "" is sent as nil
	Summary         string
	Status          string
	DurationMS      int64
}

// Kwargs are subagent_stop's arguments.
func (s Subagent) Kwargs() map[string]any {
	var role any
	if s.Role != "" {
		role = s.Role
	}
	return map[string]any{"parent_session_id": s.ParentSessionID, "child_role": role,
		"child_summary": s.Summary, "child_status": s.Status, "duration_ms": s.DurationMS}
}

// Approval is a dangerous command that asked the user: pre_approval_request, and with the
// answer post_approval_response.
type Approval struct {
	Command, Description, PatternKey string
	PatternKeys                      []string
	SessionKey, Surface              string
	Choice                           string // post_approval_response only
}

// Kwargs are pre_approval_request's arguments; with withChoice, post_approval_response's.
func (a Approval) Kwargs(withChoice bool) map[string]any {
	kw := map[string]any{"command": a.Command, "description": a.Description, "pattern_key": a.PatternKey,
		"pattern_keys": strings2any(a.PatternKeys), "session_key": a.SessionKey, "surface": a.Surface}
	if withChoice {
		kw["choice"] = a.Choice
	}
	return kw
}

// DispatchEvent is an inbound gateway message: pre_gateway_dispatch's event.
type DispatchEvent struct {
	Text      string
	Platform  string
	UserID    string
	ChatID    string
	ChatType  string // "dm", "group", ...
	MessageID string
	Internal  bool
}

// Table is the event as pre_gateway_dispatch callbacks receive it.
func (ev DispatchEvent) Table() map[string]any {
	return map[string]any{
		"text": ev.Text, "platform": ev.Platform, "user_id": ev.UserID, "chat_id": ev.ChatID,
		"chat_type": ev.ChatType, "message_id": ev.MessageID, "internal": ev.Internal,
	}
}
