package hookspec

import (
	"slices"

	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// Hook names a lifecycle point that plugin and shell hooks register for: one of the
// variables below, or a host's own hook (HookNamed). A typo in a hook's name does not
// compile: there is no conversion from a string but HookNamed and ParseHook.
type Hook struct{ name string }

// String is the hook's name, as hooks register for it ("pre_tool_call").
func (h Hook) String() string { return h.name }

// MarshalText writes the hook's name.
func (h Hook) MarshalText() ([]byte, error) { return []byte(h.name), nil }

// HookNamed is the hook called name: a documented one (then it equals its variable) or a
// host's own, which plugins register for by that name. It does not check the name: use
// ParseHook to accept only documented hooks.
func HookNamed(name string) Hook { return Hook{name} }

// ParseHook is the documented hook called name, and whether there is one.
func ParseHook(name string) (Hook, bool) {
	if !IsHook(name) {
		return Hook{}, false
	}
	return Hook{name}, true
}

// The plugin hooks.
var (
	PreToolCall             = Hook{hooknames.PreToolCall}
	PostToolCall            = Hook{hooknames.PostToolCall}
	TransformToolResult     = Hook{hooknames.TransformToolResult}
	TransformTerminalOutput = Hook{hooknames.TransformTerminalOutput}
	PreLLMCall              = Hook{hooknames.PreLLMCall}
	PostLLMCall             = Hook{hooknames.PostLLMCall}
	TransformLLMOutput      = Hook{hooknames.TransformLLMOutput}
	PreAPIRequest           = Hook{hooknames.PreAPIRequest}
	PostAPIRequest          = Hook{hooknames.PostAPIRequest}
	OnSessionStart          = Hook{hooknames.OnSessionStart}
	OnSessionEnd            = Hook{hooknames.OnSessionEnd}
	OnSessionFinalize       = Hook{hooknames.OnSessionFinalize}
	OnSessionReset          = Hook{hooknames.OnSessionReset}
	SubagentStop            = Hook{hooknames.SubagentStop}
	PreGatewayDispatch      = Hook{hooknames.PreGatewayDispatch}
	PreApprovalRequest      = Hook{hooknames.PreApprovalRequest}
	PostApprovalResponse    = Hook{hooknames.PostApprovalResponse}

	// The lifecycle points other agents' hooks need (SPEC §4.5).
	PreVerify       = Hook{hooknames.PreVerify}       // the agent is about to stop: a hook may keep it going
	PostToolFailure = Hook{hooknames.PostToolFailure} // a tool call failed
	PreCompact      = Hook{hooknames.PreCompact}      // the host is about to summarise the history
	PostCompact     = Hook{hooknames.PostCompact}     // the host summarised the history
	OnNotification  = Hook{hooknames.OnNotification}  // the agent wants the user's attention

	// Middleware (SPEC §4.6): Lua callbacks that stand around a call, given (kw, next).
	WrapToolCall = Hook{hooknames.WrapToolCall} // around each tool call, after pre_tool_call's decisions
	WrapLLMCall  = Hook{hooknames.WrapLLMCall}  // around each request to the model, after pre_api_request
)

// hooks lists every hook in the documented order.
var hooks = []Hook{
	PreToolCall, PostToolCall, TransformToolResult, TransformTerminalOutput,
	PreLLMCall, PostLLMCall, TransformLLMOutput, PreAPIRequest, PostAPIRequest,
	OnSessionStart, OnSessionEnd, OnSessionFinalize, OnSessionReset, SubagentStop,
	PreGatewayDispatch, PreApprovalRequest, PostApprovalResponse,
	PreVerify, PostToolFailure, PreCompact, PostCompact, OnNotification,
	WrapToolCall, WrapLLMCall,
}

// Hooks returns every documented hook, in the documented order.
func Hooks() []Hook { return slices.Clone(hooks) }

// IsWrap reports whether h is a wrap hook: a Lua callback given (kw, next), which no shell
// hook can be.
func (h Hook) IsWrap() bool { return hooknames.IsWrap(h.name) }

// Names returns the name of every documented hook, in the documented order.
func Names() []string {
	out := make([]string, len(hooks))
	for i, h := range hooks {
		out[i] = h.name
	}
	return out
}

// IsHook reports whether name is a documented hook's name.
func IsHook(name string) bool { return slices.Contains(hooks, Hook{name}) }
