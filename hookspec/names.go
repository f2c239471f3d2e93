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
)

// names lists every hook in the documented order.
var names = []string{
	PreToolCall, PostToolCall, TransformToolResult, TransformTerminalOutput,
	PreLLMCall, PostLLMCall, TransformLLMOutput, PreAPIRequest, PostAPIRequest,
	OnSessionStart, OnSessionEnd, OnSessionFinalize, OnSessionReset, SubagentStop,
	PreGatewayDispatch, PreApprovalRequest, PostApprovalResponse,
}

// Names returns the name of every plugin hook, in the documented order.
func Names() []string { return slices.Clone(names) }

// IsHook reports whether name is a plugin hook name.
func IsHook(name string) bool { return slices.Contains(names, name) }
