package engine

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// toolWrap is wrap_tool_call's kind of chain (wrapchain.go): kw are pre_tool_call's, next
// takes the arguments (a table replaces them whole) and returns the tool's result, a string.
// Arguments other than the ones a callback was given are decided again by pre_tool_call:
// no wrap hook runs arguments past a guard.
var toolWrap = wrapKind[hookspec.ToolCall, string]{
	hook: hooknames.WrapToolCall, what: "args", outKey: "result", runsKey: "runs",
	kwargs: func(c hookspec.ToolCall) map[string]any { return c.Kwargs(false) },
	input: func(c hookspec.ToolCall, args map[string]any) (hookspec.ToolCall, bool, error) {
		if sameArgs(args, hookspec.ArgsOrEmpty(c.Args)) {
			return c, false, nil
		}
		c.Args = args
		return c, true, nil
	},
	recheck: func(ctx context.Context, e *Engine, c hookspec.ToolCall) (hookspec.ToolCall, error) {
		d := e.DecideTool(ctx, c)
		if d.Block != nil {
			return c, &blockedError{d.Block, nil}
		}
		c.Args = d.Args
		return c, nil
	},
	toLua:   func(s string) any { return s },
	inTable: func(c hookspec.ToolCall) any { return hookspec.ArgsOrEmpty(c.Args) },
	answer:  toolAnswer,
}

// blockOf is the block of a chain's error: a guard blocked the arguments a wrap hook
// passed on, or a fail_closed wrap hook failed; nil for any other error.
func blockOf(err error) *Block {
	if be := (*blockedError)(nil); errors.As(err, &be) {
		return be.b
	}
	return nil
}

// toolAnswer reads what a wrap_tool_call callback returned: a string (the result),
// {result="..."}, or {error="..."} (the call fails with that message).
func toolAnswer(v any) (any, error, string) {
	if s, ok := v.(string); ok {
		return s, nil, ""
	}
	if err, ok := errorAnswer(v); ok {
		return nil, err, ""
	}
	if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
		if s, ok := obj["result"].(string); ok {
			return s, nil, ""
		}
	}
	return nil, nil, wrapAnswerProblem(hooknames.WrapToolCall, v,
		`a string (the result), {result="..."}, {error="..."}, or nothing after calling next`, []string{"result", "error"})
}

// sameArgs reports whether a and b are the same arguments once sent as JSON: Lua gives
// back 2 where the host gave 2.0, which is no change. Equal values are told at once.
func sameArgs(a, b map[string]any) bool {
	return reflect.DeepEqual(a, b) || sameJSON(a, b)
}

// sameJSON reports whether a and b encode to the same JSON.
func sameJSON(a, b map[string]any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
