package hookspec

import "slices"

// Plugin hook names.
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

	// The lifecycle points other agents' hooks need (SPEC §4.5).
	PreVerify       = "pre_verify"        // the agent is about to stop: a hook may keep it going
	PostToolFailure = "post_tool_failure" // a tool call failed
	PreCompact      = "pre_compact"       // the host is about to summarise the history
	PostCompact     = "post_compact"      // the host summarised the history
	OnNotification  = "on_notification"   // the agent wants the user's attention

	// Middleware (SPEC §4.6): Lua callbacks that stand around a call, given (kw, next).
	WrapToolCall = "wrap_tool_call" // around each tool call, after pre_tool_call's decisions
	WrapLLMCall  = "wrap_llm_call"  // around each request to the model, after pre_api_request
)

// names lists every hook in the documented order.
var names = []string{
	PreToolCall, PostToolCall, TransformToolResult, TransformTerminalOutput,
	PreLLMCall, PostLLMCall, TransformLLMOutput, PreAPIRequest, PostAPIRequest,
	OnSessionStart, OnSessionEnd, OnSessionFinalize, OnSessionReset, SubagentStop,
	PreGatewayDispatch, PreApprovalRequest, PostApprovalResponse,
	PreVerify, PostToolFailure, PreCompact, PostCompact, OnNotification,
	WrapToolCall, WrapLLMCall,
}

// IsWrap reports whether name is a wrap hook: a Lua callback given (kw, next), which no
// shell hook can be.
func IsWrap(name string) bool { return name == WrapToolCall || name == WrapLLMCall }

// Names returns the name of every plugin hook, in the documented order.
func Names() []string { return slices.Clone(names) }

// IsHook reports whether name is a plugin hook name.
func IsHook(name string) bool { return slices.Contains(names, name) }
