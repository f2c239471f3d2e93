package engine

import "github.com/hermes-hooks/hermes/hookspec"

// Plugin hook names (the names of package hookspec).
const (
	PreToolCall             = hookspec.PreToolCall
	PostToolCall            = hookspec.PostToolCall
	TransformToolResult     = hookspec.TransformToolResult
	TransformTerminalOutput = hookspec.TransformTerminalOutput
	PreLLMCall              = hookspec.PreLLMCall
	PostLLMCall             = hookspec.PostLLMCall
	TransformLLMOutput      = hookspec.TransformLLMOutput
	PreAPIRequest           = hookspec.PreAPIRequest
	PostAPIRequest          = hookspec.PostAPIRequest
	OnSessionStart          = hookspec.OnSessionStart
	OnSessionEnd            = hookspec.OnSessionEnd
	OnSessionFinalize       = hookspec.OnSessionFinalize
	OnSessionReset          = hookspec.OnSessionReset
	SubagentStop            = hookspec.SubagentStop
	PreGatewayDispatch      = hookspec.PreGatewayDispatch
	PreApprovalRequest      = hookspec.PreApprovalRequest
	PostApprovalResponse    = hookspec.PostApprovalResponse
)

// hookNames lists every hook in the documented order.
var hookNames = hookspec.Names()

// HookNames returns the names of every plugin hook, in the order of the spec.
func HookNames() []string { return hookspec.Names() }

// IsHook reports whether name is a plugin hook name.
func IsHook(name string) bool { return hookspec.IsHook(name) }
