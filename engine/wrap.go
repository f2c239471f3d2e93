package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"github.com/hermes-hooks/hermes/luabind"
)

// The wrap hooks (SPEC §4.6): wrap_tool_call and wrap_llm_call callbacks stand around a
// call as an onion, outermost first (the order of every hook: priority, then directory
// name, then registration). Each gets (kw, next); next(x) runs the rest of the chain and the
// call, and returns its result or raises its error. One chain runs both (wrapchain.go), each
// hook a kind of it (toolWrap, wraptool.go; llmWrap, runllm.go). One rule reads what every
// callback did:
//
//   - it returned a value: that is the call's outcome (a result, a response, or {error=...});
//   - it returned nothing after calling next: the outcome of its last next stands;
//   - it failed (error, timeout, busy) after calling next: the outcome of its last next
//     stands, and its failure is reported; an error that is the one its last next raised,
//     passed on, is the call's error, not the hook's failure;
//   - it failed, or returned nothing, without calling next: it is skipped, and the call goes
//     on through the rest of the chain as if it were not there (a failing hook never stops a
//     call), unless its plugin is fail_closed: then the call fails with a block naming it;
//     or unless Close ended it (what it would have done is unknown): then the call fails
//     with a block saying the hook engine closed.
//
// A callback waiting in next holds no Lua state against other calls: the wait counts as
// I/O (luabind.Plugin.CallWrap), so the plugin's other calls may take an extra state, up to
// max_states; and the wait is not the callback's time: its own timeout is stopped meanwhile,
// while the host's context bounds the whole call.

// wrapStep is one callback of a chain as it ran: its result and what its nexts gave.
type wrapStep struct {
	cb     *pluginCallback
	result hookspec.Result
	nexts  int
}

// wrappers are the wrap callbacks of hook in set: Lua plugin callbacks only (a shell hook
// cannot call next, and none is ever registered for a wrap hook).
func wrappers(set *hookSet, hook string) []*pluginCallback {
	var out []*pluginCallback
	for _, cb := range set.callbacks(hook) {
		if pc, ok := cb.(*pluginCallback); ok {
			out = append(out, pc)
		}
	}
	return out
}

// wrapOutcome is what one callback of a chain made of the call: a value and an error, or
// skip (go on without it).
type wrapOutcome struct {
	v    any
	err  error
	skip bool
}

// readWrap reads what a wrap callback did (the rule in this file's comment), given what it
// returned (v, err, after t) and the outcome of its last next (last, when nexts > 0); answer reads a
// returned value ("" when it is not one: the problem is then reported).
func (c *pluginCallback) readWrap(set *hookSet, hook string, v any, t luabind.Timing, err error, nexts int, last wrapOutcome,
	answer func(any) (any, error, string)) (r hookspec.Result, out wrapOutcome) {
	r = hookspec.Result{Source: hookspec.SourcePlugin, Name: c.p.info.Name, Status: hookspec.StatusOK, Result: v, Duration: t.Run, Nexts: &nexts}
	if err != nil {
		r = hookspec.Failed(hookspec.SourcePlugin, c.p.info.Name, statusOf(err), err.Error(), t.Run)
		r.Nexts = &nexts
	}
	r.Wait = t.Wait
	out = wrapOutcome{skip: true}
	defer func() {
		c.metrics.observe(r.Status, r.Duration)
		c.metrics.observeWait(r.Status, r.Wait)
	}()
	if passedOn(err, nexts, last) { // the call's error raised through the hook: not the hook's failure
		r.Status, r.Err = hookspec.StatusOK, ""
		return r, last
	}
	switch {
	case err != nil:
	case v == nil && nexts == 0:
		r.Status, r.Err = hookspec.StatusError, c.where()+"returned nothing and never called next: return next(...) to run the call, or a result to answer without it"
	case v == nil:
		out = last
	default:
		val, verr, problem := answer(v)
		if problem != "" {
			r.Status, r.Err = hookspec.StatusError, c.where()+problem
			break
		}
		out = wrapOutcome{v: val, err: verr}
	}
	if r.Status != hookspec.StatusOK {
		c.warns.warn(c.logger, "plugin hook failed", "plugin", c.p.info.Name, "hook", hook, "status", r.Status.String(), "error", r.Err)
		if nexts > 0 {
			out = last
		} else if c.p.info.FailClosed {
			out = wrapOutcome{err: &blockedError{&Block{Source: hookspec.SourcePlugin, Hook: c.p.info.Name,
				Message: failedClosed(c.p.info.Name, r.Status)}, nil}}
		} else if set.closing.Load() {
			out = wrapOutcome{err: &blockedError{&Block{Source: hookspec.SourceEngine, Hook: "engine",
				Message: fmt.Sprintf("blocked: %s: %s", hook, ErrClosed)}, ErrClosed}}
		}
	}
	return r, out
}

// passedOn reports whether err, a wrap callback's failure, is the error its last next
// raised, passed on unchanged (uncaught, or raised again): the call failed, the hook did
// not.
func passedOn(err error, nexts int, last wrapOutcome) bool {
	if err == nil || nexts == 0 || last.err == nil || statusOf(err) != hookspec.StatusError {
		return false
	}
	var le *luabind.Error
	return errors.As(err, &le) && le.Kind == luabind.KindRuntime && strings.Contains(le.Msg, last.err.Error())
}

// where locates the callback: "file:line: ".
func (c *pluginCallback) where() string {
	return fmt.Sprintf("%s:%d: ", c.p.file, c.p.lp.Registrations()[c.index].Line)
}

// blockedError is the error of a call a guard blocked: arguments a wrap hook passed to next
// that pre_tool_call blocks, or a fail_closed wrap hook that failed.
type blockedError struct {
	b   *Block
	why error // ErrClosed when Close ended the hook; nil otherwise
}

func (e *blockedError) Error() string { return e.b.Message }
func (e *blockedError) Unwrap() error { return e.why }

// wrapAnswerProblem is the report of a wrap callback's answer that is not one of want's
// shapes, with a did-you-mean for a misspelled key.
func wrapAnswerProblem(hook string, v any, want string, keys []string) string {
	msg := fmt.Sprintf("answer %s does nothing for %s: expected %s", showValue(v), hook, want)
	if obj, ok := v.(map[string]any); ok {
		for _, k := range sortedKeys(obj) {
			if !slices.Contains(keys, k) {
				if s := suggest.Closest(k, keys); s != "" {
					return msg + fmt.Sprintf(" (did you mean %q instead of %q?)", s, k)
				}
			}
		}
	}
	return msg
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// showValue renders v in JSON, shortened, for a message.
func showValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// errorAnswer reads {error="..."}: the call fails with that message.
func errorAnswer(v any) (error, bool) {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return nil, false
	}
	msg, ok := obj["error"].(string)
	if !ok || strings.TrimSpace(msg) == "" {
		return nil, false
	}
	return errors.New(msg), true
}

// wrapReport is the report of one chain, for a trace: every callback's result in the order
// they were entered (a callback a retry runs again is there once per run), and what the
// call gave in the end.
func wrapReport(hook string, payload map[string]any, steps []*wrapStep, outcome map[string]any) Report {
	rep := Report{Event: hookspec.HookNamed(hook), Payload: payload, Decision: hookspec.Decision{By: -1}, Outcome: outcome}
	for _, s := range steps {
		rep.Hooks = append(rep.Hooks, s.result)
	}
	return rep
}

// maxNexts bounds how many times one wrap callback may call next for one call: a retry
// loop that never gives up stops there, with an error, rather than hammering the tool.
const maxNexts = 32

// nextArg reads the one argument a callback passed to next (which it called nexts times
// before) as a table: nil when it passed none (the call goes on as it came), an error naming
// what it passed otherwise, or saying it called next too often.
func nextArg(hook string, arg any, what string, nexts int) (map[string]any, error) {
	if nexts >= maxNexts {
		return nil, fmt.Errorf("%s: next called more than %d times for one call: give up sooner", hook, maxNexts)
	}
	switch x := arg.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	case []any:
		if len(x) == 0 {
			return map[string]any{}, nil
		}
	}
	return nil, fmt.Errorf("%s: next(%s): expected a table of %s, not %s", hook, what, what, showValue(arg))
}

// fireWrap runs a wrap hook's chain for Fire and Invoke (`hermesctl hooks test`), around a
// stand-in call that answers at once: for wrap_tool_call the kwargs' tool call, which
// returns its "result" key (else "ok"); for wrap_llm_call the kwargs' request, answered
// with {content="ok"}. The report is the chain's.
func (e *Engine) fireWrap(ctx context.Context, hook string, kw map[string]any) Report {
	var rep Report
	ctx = WithTrace(ctx, func(r Report) {
		if r.Event.String() == hook {
			rep = r
		}
	})
	set := e.set.Load()
	if hook == hooknames.WrapToolCall {
		call := hookspec.ToolCall{Args: map[string]any{}}
		call.Name, _ = kw["tool_name"].(string)
		call.Args, _ = kw["args"].(map[string]any)
		call.TaskID, _ = kw["task_id"].(string)
		call.SessionID, _ = kw["session_id"].(string)
		call.ToolCallID, _ = kw["tool_call_id"].(string)
		result, ok := kw["result"].(string)
		if !ok {
			result = "ok"
		}
		runWrap(ctx, e, set, &toolWrap, call, func(context.Context, hookspec.ToolCall) (string, error) { return result, nil })
	} else {
		req := hookspec.LLMRequest{}
		req.SessionID, _ = kw["session_id"].(string)
		req.Platform, _ = kw["platform"].(string)
		req.Model, _ = kw["model"].(string)
		if t, ok := kw["request"].(map[string]any); ok {
			if r, err := req.WithTable(t); err == nil {
				req = r
			}
		}
		runWrap(ctx, e, set, &llmWrap, req, func(_ context.Context, r hookspec.LLMRequest) (hookspec.LLMResponse, error) {
			return hookspec.LLMResponse{Model: r.Model, Content: "ok", StopReason: "end_turn"}, nil
		})
	}
	rep.Payload = kw
	return rep
}
