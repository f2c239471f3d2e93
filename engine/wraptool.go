package engine

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// toolChain runs one tool call through the wrap_tool_call callbacks (wrap.go), around the
// host's tool.
type toolChain struct {
	e     *Engine
	set   *hookSet // the set the chain runs on
	cbs   []*pluginCallback
	run   func(context.Context, hookspec.ToolCall) (string, error)
	timed bool

	steps   []*wrapStep       // every callback run, in the order entered
	ran     hookspec.ToolCall // the call as the tool last ran it
	runs    int               // how many times the tool ran
	changed bool              // a callback passed next arguments other than its own
	f       *firing           // the chain's span; nil without a tracer
}

// wrappedTool is what a chain made of a tool call.
type wrappedTool struct {
	result  string
	err     error
	block   *Block            // a guard blocked the arguments a wrap hook passed (or a fail_closed wrap hook failed)
	ran     hookspec.ToolCall // the call as the tool last ran it (Args: the arguments it really got)
	runs    int
	changed bool // a wrap hook changed the arguments on the way
}

// runWrapped runs call (decided: pre_tool_call let it run with call.Args) through the
// wrap_tool_call chain of set around run.
func (e *Engine) runWrapped(ctx context.Context, set *hookSet, call hookspec.ToolCall, run func(context.Context, hookspec.ToolCall) (string, error)) wrappedTool {
	sc := getScratch()
	s := e.acquire(set, sc.shard)
	defer func() { e.release(s, sc.shard); putScratch(sc) }()
	trace := traceOf(ctx)
	ctx, f := e.startWrapFiring(ctx, hooknames.WrapToolCall, call.Kwargs(false))
	c := &toolChain{e: e, set: s, cbs: wrappers(s, hooknames.WrapToolCall), run: run, timed: trace != nil || f != nil, ran: call, f: f}
	res, err := c.call(ctx, 0, call)
	w := wrappedTool{result: res, err: err, ran: c.ran, runs: c.runs, changed: c.changed}
	if be := (*blockedError)(nil); errors.As(err, &be) {
		w.block, w.err = be.b, nil
	}
	if trace != nil || f != nil {
		out := map[string]any{"result": res, "runs": c.runs}
		if err != nil {
			out = map[string]any{"error": err.Error(), "runs": c.runs}
		}
		if c.runs > 0 {
			out["args"] = hookspec.ArgsOrEmpty(c.ran.Args)
		}
		rep := wrapReport(hooknames.WrapToolCall, call.Kwargs(false), c.steps, out)
		if f != nil {
			f.end(rep)
		}
		if trace != nil {
			trace(rep)
		}
	}
	return w
}

// call runs the chain from callback i on.
func (c *toolChain) call(ctx context.Context, i int, call hookspec.ToolCall) (string, error) {
	if i == len(c.cbs) {
		c.ran = call
		c.runs++
		return c.run(ctx, call)
	}
	cb := c.cbs[i]
	step := &wrapStep{cb: cb}
	c.steps = append(c.steps, step)
	var last wrapOutcome
	next := func(ctx context.Context, arg any) (any, error) {
		args, err := nextArg(hooknames.WrapToolCall, arg, "args", step.nexts)
		if err != nil { // the hook's mistake: not a run of the call
			return nil, err
		}
		step.nexts++
		res, err := c.next(ctx, i, call, args)
		last = wrapOutcome{v: res, err: err}
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	hctx, end := startWrapHook(ctx, c.f)
	v, t, err := cb.p.lp.CallWrap(hctx, cb.index, call.Kwargs(false), next, c.timed || cb.metrics != nil)
	r, out := cb.readWrap(c.set, hooknames.WrapToolCall, v, t, err, step.nexts, last, toolAnswer)
	end(r)
	step.result = r
	if out.skip {
		return c.call(ctx, i+1, call)
	}
	s, _ := out.v.(string)
	return s, out.err
}

// next is callback i's next(args): arguments other than the ones it was given are decided
// again by pre_tool_call (a guard that blocks them blocks them; a guard's modification of
// them stands), then the rest of the chain runs.
func (c *toolChain) next(ctx context.Context, i int, call hookspec.ToolCall, args map[string]any) (string, error) {
	if args != nil && !sameArgs(args, hookspec.ArgsOrEmpty(call.Args)) {
		c.changed = true
		call.Args = args
		d := c.e.DecideTool(ctx, call)
		if d.Block != nil {
			return "", &blockedError{d.Block, nil}
		}
		call.Args = d.Args
	}
	return c.call(ctx, i+1, call)
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
