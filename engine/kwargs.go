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

// toolArgs are pre_tool_call's kwargs (with withResult, post_tool_call's and
// transform_tool_result's): the hot path. Lua gets them written straight into its table
// (luabind.Table); the map is built only when a shell hook or an audit needs it.
type toolArgs struct {
	call       hookspec.ToolCall
	withResult bool
	m          map[string]any
}

func (a *toolArgs) lua() any { return a }

func (a *toolArgs) withToolArgs(args map[string]any) args {
	call := a.call
	call.Args = args
	return &toolArgs{call: call, withResult: a.withResult}
}

func (a *toolArgs) Map() map[string]any {
	if a.m == nil {
		a.m = a.call.Kwargs(a.withResult)
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
	if a.withResult {
		w.String("result", a.call.Result)
		w.Value("duration_ms", a.call.DurationMS)
	}
}

// FieldCount implements luabind.Table.
func (a *toolArgs) FieldCount() int {
	if a.withResult {
		return 7
	}
	return 5
}

// turnArgs are pre_llm_call's kwargs, written straight into Lua's table like toolArgs.
type turnArgs struct {
	turn hookspec.LLMTurn
	m    map[string]any
}

func (a *turnArgs) lua() any { return a }

func (a *turnArgs) withToolArgs(map[string]any) args { return a }

func (a *turnArgs) Map() map[string]any {
	if a.m == nil {
		a.m = a.turn.PreKwargs()
	}
	return a.m
}

// emptyList is an empty history, boxed once.
var emptyList any = []any{}

// FillLua implements luabind.Table: the keys of hookspec.LLMTurn.PreKwargs.
func (a *turnArgs) FillLua(w luabind.TableWriter) {
	w.String("session_id", a.turn.SessionID)
	w.String("user_message", a.turn.UserMessage)
	if history := a.turn.ConversationHistory; len(history) > 0 {
		w.Messages("conversation_history", history) // not even boxed for a callback that never reads it
	} else {
		w.Value("conversation_history", emptyList)
	}
	w.Value("is_first_turn", a.turn.IsFirstTurn)
	w.String("model", a.turn.Model)
	w.String("platform", a.turn.Platform)
	w.String("sender_id", a.turn.SenderID)
}

// FieldCount implements luabind.Table.
func (a *turnArgs) FieldCount() int { return 7 }

// DispatchHost holds the host objects handed to pre_gateway_dispatch callbacks as
// `gateway` and `session_store`. Build them as maps of Func (callable from Lua as
// gateway.send(...)) or wrap a facade in Object. nil values are passed as nil.
type DispatchHost struct {
	Gateway      any
	SessionStore any
}
