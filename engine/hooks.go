package engine

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

// hookNames lists every hook in the documented order.
var hookNames = []string{
	PreToolCall, PostToolCall, TransformToolResult, TransformTerminalOutput,
	PreLLMCall, PostLLMCall, TransformLLMOutput, PreAPIRequest, PostAPIRequest,
	OnSessionStart, OnSessionEnd, OnSessionFinalize, OnSessionReset, SubagentStop,
	PreGatewayDispatch, PreApprovalRequest, PostApprovalResponse,
}

// HookNames returns the names of every plugin hook, in the order of the spec.
func HookNames() []string { return slices.Clone(hookNames) }

// IsHook reports whether name is a plugin hook name.
func IsHook(name string) bool { return slices.Contains(hookNames, name) }
