package engine

import (
	"context"
	"fmt"
)

// wrapKind is what one wrap hook (wrap_tool_call, wrap_llm_call) makes of the chain of
// wrap.go: how its call's input In and output Out cross to Lua and back. Everything else,
// the order, next, the reading of what a callback did, the trace, is the chain's, the same
// for both.
type wrapKind[In, Out any] struct {
	hook    string // the hook's name
	what    string // what next takes ("args", "request"): its errors name it, and the trace's outcome gives the input last run under this key
	outKey  string // the trace's outcome key of the output ("result", "response")
	runsKey string // the trace's outcome key of how many times the call ran ("runs", "calls")

	kwargs func(In) map[string]any // a callback's kw
	// input is in with the table a callback passed to next applied; changed: it differs
	// from in. An error is the callback's mistake: next raises it, and it is no run.
	input func(in In, t map[string]any) (out In, changed bool, err error)
	// recheck decides changed input again before the rest of the chain runs it, once the
	// next counts (a guard's block is next's error); nil: changed input runs as it is.
	recheck func(ctx context.Context, e *Engine, in In) (In, error)
	toLua   func(Out) any                  // what next returns to the callback, and the trace's output
	inTable func(In) any                   // the input in the trace's outcome
	answer  func(any) (any, error, string) // reads a callback's returned value (readWrap)
}

// wrapChain runs one call through the callbacks of one wrap hook, around the host's call.
type wrapChain[In, Out any] struct {
	k     *wrapKind[In, Out]
	e     *Engine
	set   *hookSet // the set the chain runs on
	cbs   []*pluginCallback
	run   func(context.Context, In) (Out, error)
	timed bool
	f     *firing // the chain's span; nil without a tracer

	steps   []*wrapStep // every callback run, in the order entered
	ran     In          // the input as the call last ran with it
	runs    int         // how many times the call ran
	changed bool        // a callback passed next an input other than its own
}

// wrapped is what a chain made of a call.
type wrapped[In, Out any] struct {
	out     Out
	err     error // the call's error, a callback's {error=...}, or a *blockedError
	ran     In    // the input as the call last ran with it; the one given when it never ran
	runs    int
	changed bool // a callback changed the input on the way
}

// runWrap runs in through the k chain of set around run, and reports it to the context's
// trace and the engine's tracer.
func runWrap[In, Out any](ctx context.Context, e *Engine, set *hookSet, k *wrapKind[In, Out], in In, run func(context.Context, In) (Out, error)) wrapped[In, Out] {
	sc := getScratch()
	s := e.acquire(set, sc.shard)
	defer func() { e.release(s, sc.shard); putScratch(sc) }()
	trace := traceOf(ctx)
	ctx, f := e.startWrapFiring(ctx, k.hook, k.kwargs(in))
	c := &wrapChain[In, Out]{k: k, e: e, set: s, cbs: wrappers(s, k.hook), run: run, timed: trace != nil || f != nil, ran: in, f: f}
	out, err := c.call(ctx, 0, in)
	if trace != nil || f != nil {
		rep := wrapReport(k.hook, k.kwargs(in), c.steps, c.outcome(out, err))
		if f != nil {
			f.end(rep)
		}
		if trace != nil {
			trace(rep)
		}
	}
	return wrapped[In, Out]{out: out, err: err, ran: c.ran, runs: c.runs, changed: c.changed}
}

// outcome is the trace's outcome of the chain: the output or the error, how many times the
// call ran and, when it ran, the input it last ran with.
func (c *wrapChain[In, Out]) outcome(out Out, err error) map[string]any {
	m := map[string]any{c.k.runsKey: c.runs}
	if err != nil {
		m["error"] = err.Error()
	} else {
		m[c.k.outKey] = c.k.toLua(out)
	}
	if c.runs > 0 {
		m[c.k.what] = c.k.inTable(c.ran)
	}
	return m
}

// call runs the chain from callback i on.
func (c *wrapChain[In, Out]) call(ctx context.Context, i int, in In) (Out, error) {
	if i == len(c.cbs) {
		c.ran = in
		c.runs++
		return c.run(ctx, in)
	}
	cb := c.cbs[i]
	step := &wrapStep{cb: cb}
	c.steps = append(c.steps, step)
	var last wrapOutcome
	next := func(ctx context.Context, arg any) (any, error) {
		inner, changed, err := c.input(in, arg, step.nexts)
		if err != nil { // the hook's mistake: not a run of the call
			return nil, err
		}
		step.nexts++
		out, err := c.next(ctx, i, inner, changed)
		last = wrapOutcome{v: out, err: err}
		if err != nil {
			return nil, err
		}
		return c.k.toLua(out), nil
	}
	hctx, end := startWrapHook(ctx, c.f)
	v, t, err := cb.p.lp.CallWrap(hctx, cb.index, c.k.kwargs(in), next, c.timed || cb.metrics != nil)
	r, out := cb.readWrap(c.set, c.k.hook, v, t, err, step.nexts, last, c.k.answer)
	end(r)
	step.result = r
	if out.skip {
		return c.call(ctx, i+1, in)
	}
	o, _ := out.v.(Out)
	return o, out.err
}

// input reads what a callback given in passed to next (after nexts calls of it) as the
// input of the rest of the chain: in itself when it passed nothing; changed when it is not in.
func (c *wrapChain[In, Out]) input(in In, arg any, nexts int) (In, bool, error) {
	t, err := nextArg(c.k.hook, arg, c.k.what, nexts)
	if err != nil || t == nil {
		return in, false, err
	}
	out, changed, err := c.k.input(in, t)
	if err != nil { // named as nextArg names its own: the hook, next, what it takes
		return in, false, fmt.Errorf("%s: next(%s): %w", c.k.hook, c.k.what, err)
	}
	return out, changed, nil
}

// next runs the rest of the chain after callback i on in, the input a callback passed to
// next: when it is not the one the callback was given, decided again first where the kind
// rechecks (a guard that blocks it blocks it; a guard's modification of it stands).
func (c *wrapChain[In, Out]) next(ctx context.Context, i int, in In, changed bool) (Out, error) {
	if changed {
		c.changed = true
		if c.k.recheck != nil {
			var err error
			if in, err = c.k.recheck(ctx, c.e, in); err != nil {
				var zero Out
				return zero, err
			}
		}
	}
	return c.call(ctx, i+1, in)
}
