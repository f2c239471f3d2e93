package engine

import (
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/luabind"
)

// args are a hook's keyword arguments in the two forms callbacks need: what Lua receives
// and the map shell hooks and reports use.
type args interface {
	lua() any            // passed to Lua callbacks
	Map() map[string]any // the same as a map; may be built on first use
	// withToolArgs are the same kwargs with pre_tool_call's args replaced (a hook modified
	// them: the callbacks after it see the new ones).
	withToolArgs(map[string]any) args
}

// mapArgs are kwargs given as a map.
type mapArgs map[string]any

func (m mapArgs) lua() any            { return map[string]any(m) }
func (m mapArgs) Map() map[string]any { return m }

func (m mapArgs) withToolArgs(a map[string]any) args {
	c := make(mapArgs, len(m))
	for k, v := range m {
		c[k] = v
	}
	c["args"] = a
	return c
}

// toolArgs are pre_tool_call's kwargs: the hot path. Lua gets them written straight into its
// table (luabind.Table); the map is built only when a shell hook or an audit needs it.
type toolArgs struct {
	call ToolCall
	m    map[string]any
}

func (a *toolArgs) lua() any { return a }

func (a *toolArgs) withToolArgs(args map[string]any) args {
	call := a.call
	call.Args = args
	return &toolArgs{call: call}
}

func (a *toolArgs) Map() map[string]any {
	if a.m == nil {
		a.m = a.call.Kwargs(false)
	}
	return a.m
}

// FillLua implements luabind.Table.
func (a *toolArgs) FillLua(w luabind.TableWriter) {
	w.String("tool_name", a.call.Name)
	w.Value("args", hookspec.ArgsOrEmpty(a.call.Args))
	w.String("task_id", a.call.TaskID)
	w.String("session_id", a.call.SessionID)
	w.String("tool_call_id", a.call.ToolCallID)
}

// FieldCount implements luabind.Table.
func (a *toolArgs) FieldCount() int { return 5 }

// The typed keyword arguments of every hook (package hookspec).
type (
	ToolCall       = hookspec.ToolCall       // pre_tool_call, post_tool_call, transform_tool_result
	TerminalOutput = hookspec.TerminalOutput // transform_terminal_output
	LLMTurn        = hookspec.LLMTurn        // pre_llm_call, post_llm_call
	LLMOutput      = hookspec.LLMOutput      // transform_llm_output
	APIRequest     = hookspec.APIRequest     // pre_api_request, post_api_request
	Session        = hookspec.Session        // on_session_start, on_session_finalize, on_session_reset
	SessionResult  = hookspec.SessionResult  // on_session_end
	Subagent       = hookspec.Subagent       // subagent_stop
	Approval       = hookspec.Approval       // pre_approval_request, post_approval_response
	DispatchEvent  = hookspec.DispatchEvent  // pre_gateway_dispatch
)

// DispatchHost holds the host objects handed to pre_gateway_dispatch callbacks as
// `gateway` and `session_store`. Build them as maps of Func (callable from Lua as
// gateway.send(...)) or wrap a facade in Object. nil values are passed as nil.
type DispatchHost struct {
	Gateway      any
	SessionStore any
}
