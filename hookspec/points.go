package hookspec

// The typed keyword arguments of the lifecycle points other agents' hooks need (SPEC §4.5):
// pre_verify, post_tool_failure, pre_compact, post_compact and on_notification.

// DefaultMaxVerifyNudges is how many times per user turn pre_verify's hooks may keep the
// agent going when config.yaml does not say (max_verify_nudges).
const DefaultMaxVerifyNudges = 3

// Verify is the moment the agent is about to stop, its final answer ready: pre_verify. A
// subagent about to stop is one too (Subagent says which).
type Verify struct {
	SessionID   string
	UserMessage string // the turn's user message ("" for a subagent, whose task the host may not know)
	Response    string // the final answer the agent (or the subagent) is about to give
	Nudges      int    // how many times hooks kept it going already in this user turn (a subagent: in its run)
	Model       string
	Platform    string
	// Subagent names the subagent about to stop; nil when it is the agent itself. Its
	// hooks keep it going like the agent's, with their own max_verify_nudges.
	Subagent *VerifySubagent
}

// VerifySubagent is a subagent (a child of a delegation) about to stop, named the way
// Claude Code's and Codex's SubagentStop name it.
type VerifySubagent struct {
	ID             string // agent_id: the subagent's id, the same for each of its stops
	Type           string // agent_type: what kind of subagent it is (the role it was given)
	TranscriptPath string // agent_transcript_path: its own transcript; "" when the host keeps none
}

// Kwargs are pre_verify's arguments: subagent is nil for the agent itself, else a table of
// agent_id, agent_type and agent_transcript_path.
func (v Verify) Kwargs() map[string]any {
	var sub any
	if v.Subagent != nil {
		sub = map[string]any{"agent_id": v.Subagent.ID, "agent_type": v.Subagent.Type, "agent_transcript_path": v.Subagent.TranscriptPath}
	}
	return map[string]any{"session_id": v.SessionID, "user_message": v.UserMessage, "response": v.Response,
		"nudges": v.Nudges, "model": v.Model, "platform": v.Platform, "subagent": sub}
}

// SubagentOf is the subagent of pre_verify's kwargs: nil when the agent itself is about to
// stop (no subagent table).
func SubagentOf(kwargs map[string]any) *VerifySubagent {
	t, ok := kwargs["subagent"].(map[string]any)
	if !ok {
		return nil
	}
	str := func(k string) string { s, _ := t[k].(string); return s }
	return &VerifySubagent{ID: str("agent_id"), Type: str("agent_type"), TranscriptPath: str("agent_transcript_path")}
}

// ToolFailure is a tool call that failed (an error, a timeout, an interruption):
// post_tool_failure.
type ToolFailure struct {
	Call        ToolCall // Name, Args, the ids and DurationMS; Result is not sent
	Error       string   // what went wrong, as the tool said it
	Interrupted bool     // the call was interrupted (cancelled, timed out) rather than failing by itself
}

// Kwargs are post_tool_failure's arguments.
func (f ToolFailure) Kwargs() map[string]any {
	kw := f.Call.Kwargs(false)
	kw["error"], kw["interrupted"], kw["duration_ms"] = f.Error, f.Interrupted, f.Call.DurationMS
	return kw
}

// Compaction is one summary of a session's history: pre_compact (Messages, Instructions)
// and post_compact (Summary).
type Compaction struct {
	SessionID    string
	Trigger      string    // "manual" (the user asked) or "auto" (the context is full)
	Messages     []Message // pre_compact: the messages to be summarised; nil is sent as []
	Instructions string    // pre_compact: the user's own instructions for the summary ("" for none)
	Summary      string    // post_compact: the summary that replaced them
	Platform     string
}

// PreKwargs are pre_compact's arguments.
func (c Compaction) PreKwargs() map[string]any {
	return map[string]any{"session_id": c.SessionID, "trigger": c.Trigger, "messages": messagesOrEmpty(c.Messages),
		"instructions": c.Instructions, "platform": c.Platform}
}

// PostKwargs are post_compact's arguments.
func (c Compaction) PostKwargs() map[string]any {
	return map[string]any{"session_id": c.SessionID, "trigger": c.Trigger, "summary": c.Summary, "platform": c.Platform}
}

// Notification is the agent wanting the user's attention: on_notification.
type Notification struct {
	SessionID string
	Message   string
	Title     string // "" for none
	Type      string // notification_type: "permission_prompt", "idle_prompt", ... as the host names it
	Platform  string
}

// Kwargs are on_notification's arguments.
func (n Notification) Kwargs() map[string]any {
	return map[string]any{"session_id": n.SessionID, "message": n.Message, "title": n.Title,
		"notification_type": n.Type, "platform": n.Platform}
}
