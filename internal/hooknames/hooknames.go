// Package hooknames holds the names of the documented hooks as string constants, for the
// packages that read them from manifests, config files and payloads. Embedders use
// hookspec's typed Hook values, built from these.
package hooknames

// The documented hooks, in the documented order.
const (
	PreToolCall             = "pre_tool_call"
	PostToolCall            = "post_tool_call"
	TransformToolResult     = "transform_tool_result"
	TransformTerminalOutput = "transform_terminal_output"
	PreLLMCall              = "pre_llm_call"
	PostLLMCall             = "post_llm_call"
	TransformLLMOutput      = "transform_llm_output"
	PreAPIRequest           = "pre_api_request"
	PostAPIRequest          = "post_api_request"
	OnSessionStart          = "on_session_start"
	OnSessionEnd            = "on_session_end"
	OnSessionFinalize       = "on_session_finalize"
	OnSessionReset          = "on_session_reset"
	SubagentStop            = "subagent_stop"
	PreGatewayDispatch      = "pre_gateway_dispatch"
	PreApprovalRequest      = "pre_approval_request"
	PostApprovalResponse    = "post_approval_response"
	PreVerify               = "pre_verify"        // the agent is about to stop: a hook may keep it going
	PostToolFailure         = "post_tool_failure" // a tool call failed
	PreCompact              = "pre_compact"       // the host is about to summarise the history
	PostCompact             = "post_compact"      // the host summarised the history
	OnNotification          = "on_notification"   // the agent wants the user's attention
	WrapToolCall            = "wrap_tool_call"    // around each tool call (a Lua callback given next)
	WrapLLMCall             = "wrap_llm_call"     // around each request to the model (likewise)
)

// IsWrap reports whether name is a wrap hook's: a Lua callback given (kw, next), which no
// shell hook can be.
func IsWrap(name string) bool { return name == WrapToolCall || name == WrapLLMCall }

// CanBlock reports whether a hook on event can stop what the event is about: a tool call
// (pre_tool_call blocks), a prompt (pre_llm_call blocks), an approval (pre_approval_request
// denies), a message (pre_gateway_dispatch skips it). A hook there is a guard.
func CanBlock(event string) bool {
	switch event {
	case PreToolCall, PreLLMCall, PreApprovalRequest, PreGatewayDispatch:
		return true
	}
	return false
}
