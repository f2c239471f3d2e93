package engine

import "github.com/hermes-hooks/hermes/luabind"

// args are a hook's keyword arguments in the two forms callbacks need: what Lua receives
// and the map shell hooks and reports use.
type args interface {
	lua() any            // passed to Lua callbacks
	Map() map[string]any // the same as a map; may be built on first use
}

// mapArgs are kwargs given as a map.
type mapArgs map[string]any

func (m mapArgs) lua() any            { return map[string]any(m) }
func (m mapArgs) Map() map[string]any { return m }

// toolArgs are pre_tool_call's kwargs: the hot path. Lua gets them written straight into its
// table (luabind.Table); the map is built only when a shell hook or an audit needs it.
type toolArgs struct {
	call ToolCall
	m    map[string]any
}

func (a *toolArgs) lua() any { return a }

func (a *toolArgs) Map() map[string]any {
	if a.m == nil {
		a.m = a.call.kwargs(false)
	}
	return a.m
}

// FillLua implements luabind.Table.
func (a *toolArgs) FillLua(w luabind.TableWriter) {
	w.String("tool_name", a.call.Name)
	w.Value("args", argsOrEmpty(a.call.Args))
	w.String("task_id", a.call.TaskID)
	w.String("session_id", a.call.SessionID)
	w.String("tool_call_id", a.call.ToolCallID)
}

// FieldCount implements luabind.Table.
func (a *toolArgs) FieldCount() int { return 5 }

// ToolCall describes one tool call, for PreToolCall, PostToolCall and TransformToolResult.
type ToolCall struct {
	Name       string         // tool_name
	Args       map[string]any // args
	TaskID     string
	SessionID  string
	ToolCallID string
	Result     string // post_tool_call / transform_tool_result only
	DurationMS int64  // post_tool_call / transform_tool_result only
}

func (c ToolCall) kwargs(withResult bool) map[string]any {
	kw := map[string]any{
		"tool_name": c.Name, "args": argsOrEmpty(c.Args), "task_id": c.TaskID,
		"session_id": c.SessionID, "tool_call_id": c.ToolCallID,
	}
	if withResult {
		kw["result"] = c.Result
		kw["duration_ms"] = c.DurationMS
	}
	return kw
}

func argsOrEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// LLMTurn describes one user turn, for PreLLMCall and PostLLMCall.
type LLMTurn struct {
	SessionID           string
	UserMessage         string
	ConversationHistory []any // earlier messages, as the host stores them
	IsFirstTurn         bool
	Model               string
	Platform            string
	SenderID            string
	AssistantResponse   string // post_llm_call only
}

func (t LLMTurn) preKwargs() map[string]any {
	return map[string]any{
		"session_id": t.SessionID, "user_message": t.UserMessage, "conversation_history": historyOrEmpty(t.ConversationHistory),
		"is_first_turn": t.IsFirstTurn, "model": t.Model, "platform": t.Platform, "sender_id": t.SenderID,
	}
}

func (t LLMTurn) postKwargs() map[string]any {
	return map[string]any{
		"session_id": t.SessionID, "user_message": t.UserMessage, "assistant_response": t.AssistantResponse,
		"conversation_history": historyOrEmpty(t.ConversationHistory), "model": t.Model, "platform": t.Platform,
	}
}

func historyOrEmpty(h []any) []any {
	if h == nil {
		return []any{}
	}
	return h
}

// TerminalOutput is the output of one terminal command, for TransformTerminalOutput.
type TerminalOutput struct {
	Command  string
	Output   string
	ExitCode int
	Cwd      string
	TaskID   string
}

// LLMOutput is the model's final response, for TransformLLMOutput.
type LLMOutput struct {
	ResponseText string
	SessionID    string
	Model        string
	Platform     string
}

// DispatchEvent is an inbound gateway message, for PreGatewayDispatch.
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

// DispatchHost holds the host objects handed to pre_gateway_dispatch callbacks as
// `gateway` and `session_store`. Build them as maps of Func (callable from Lua as
// gateway.send(...)) or wrap a facade in Object. nil values are passed as nil.
type DispatchHost struct {
	Gateway      any
	SessionStore any
}
