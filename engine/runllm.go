package engine

import (
	"context"
	"fmt"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// LLMRun is what RunLLM did with one request to the model.
type LLMRun struct {
	// Request is the request as the model last received it, after pre_api_request and the
	// wrap hooks rewrote it; when the model was not called, the request as the hooks left it.
	Request  hookspec.LLMRequest
	Response hookspec.LLMResponse
	Modified bool // a hook changed the request: Request differs from the one given
	// Synthetic: a hook answered and the model was not called (pre_api_request's respond,
	// or a wrap_llm_call hook that answered without calling next).
	Synthetic bool
	Calls     int    // how many times the model was called (a retrying wrap hook: more than once)
	Hook      string // the pre_api_request hook that answered, or that modified the request last; "" for none
	Err       error  // the model call's error, or a wrap hook's {error=...}
}

// RunLLM runs one request to the model through its hooks around call, the host's model
// call: pre_api_request (a respond answers instead of the model, and nothing else runs; a
// modify rewrites the request, the hooks after it seeing the rewritten one), call inside the
// wrap_llm_call chain (wrap.go), then post_api_request. The context, its deadline and its
// cancellation reach call. When Close kept pre_api_request's or wrap_llm_call's hooks from
// running, the model is not called and Err wraps ErrClosed. Use WithTrace to see every
// firing.
func (e *Engine) RunLLM(ctx context.Context, req hookspec.LLMRequest, call func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error)) LLMRun {
	run := LLMRun{Request: req}
	if set := e.set.Load(); set.refuses(hooknames.PreAPIRequest) || set.refuses(hooknames.WrapLLMCall) {
		run.Err = refusedLLM(set)
		return run
	}
	if set := e.with(hooknames.PreAPIRequest); set != nil {
		dec := invokeFor(e, ctx, set, hooknames.PreAPIRequest, mapArgs(req.Kwargs()), apiDecisionOf)
		if dec.refused {
			run.Err = fmt.Errorf("%s: %w", hooknames.PreAPIRequest, ErrClosed)
			return run
		}
		switch dec.kind {
		case hookspec.Respond:
			run.Response, _ = hookspec.ResponseFrom(dec.response) // Normalise took only a valid one
			run.Synthetic, run.Hook = true, dec.hook
			return run
		case hookspec.Modify:
			if r, err := req.WithTable(dec.request); err == nil { // Normalise took only a valid one
				run.Request, run.Modified, run.Hook = r, true, dec.hook
			}
		}
	}
	if set := e.with(hooknames.WrapLLMCall); set != nil {
		w := e.runWrappedLLM(ctx, set, run.Request, call)
		run.Response, run.Err, run.Calls = w.resp, w.err, w.calls
		run.Synthetic = w.calls == 0 && w.err == nil
		if w.calls > 0 {
			run.Modified = run.Modified || !sameArgs(w.sent.Table(), req.Table())
			run.Request = w.sent
		}
	} else {
		run.Response, run.Err = call(ctx, run.Request)
		run.Calls = 1
	}
	if run.Calls > 0 {
		e.PostAPIRequest(ctx, run.Request.APIRequest())
	}
	return run
}

// refusedLLM is why a closed engine does not call the model: the point whose hooks did not
// run.
func refusedLLM(set *hookSet) error {
	hook := hooknames.WrapLLMCall
	if set.refuses(hooknames.PreAPIRequest) {
		hook = hooknames.PreAPIRequest
	}
	return fmt.Errorf("%s: %w", hook, ErrClosed)
}

// apiDecision is what RunLLM keeps of pre_api_request's report.
type apiDecision struct {
	kind     hookspec.Kind
	request  map[string]any
	response map[string]any
	hook     string
	refused  bool // Report.refused
}

func apiDecisionOf(r Report) apiDecision {
	d := apiDecision{kind: r.Decision.Kind, request: r.Decision.Request, response: r.Decision.Response, refused: r.refused()}
	if h := r.decider(); h != nil {
		d.hook = h.Name
	}
	return d
}

// withRequest are pre_api_request's kwargs with the request's fields replaced by those of
// t (a hook modified it: the callbacks after it see the new one).
func (m mapArgs) withRequest(t map[string]any) args {
	c := make(mapArgs, len(m))
	for k, v := range m {
		c[k] = v
	}
	req, _ := m["request"].(map[string]any)
	merged := make(map[string]any, len(req)+len(t))
	for k, v := range req {
		merged[k] = v
	}
	for k, v := range t {
		merged[k] = v
	}
	c["request"] = merged
	if model, ok := t["model"].(string); ok {
		c["model"] = model
	}
	return c
}

// llmChain runs one request through the wrap_llm_call callbacks (wrap.go), around the
// host's model call.
type llmChain struct {
	set   *hookSet // the set the chain runs on
	cbs   []*pluginCallback
	call  func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error)
	timed bool

	steps []*wrapStep
	sent  hookspec.LLMRequest // the request as the model last received it
	calls int
	f     *firing // the chain's span; nil without a tracer
}

// wrappedLLM is what a chain made of a request.
type wrappedLLM struct {
	resp  hookspec.LLMResponse
	err   error
	sent  hookspec.LLMRequest
	calls int
}

func (e *Engine) runWrappedLLM(ctx context.Context, set *hookSet, req hookspec.LLMRequest, call func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error)) wrappedLLM {
	sc := getScratch()
	s := e.acquire(set, sc.shard)
	defer func() { e.release(s, sc.shard); putScratch(sc) }()
	trace := traceOf(ctx)
	ctx, f := e.startWrapFiring(ctx, hooknames.WrapLLMCall, req.Kwargs())
	c := &llmChain{set: s, cbs: wrappers(s, hooknames.WrapLLMCall), call: call, timed: trace != nil || f != nil, sent: req, f: f}
	resp, err := c.run(ctx, 0, req)
	if trace != nil || f != nil {
		out := map[string]any{"response": resp.Table(), "calls": c.calls}
		if err != nil {
			out = map[string]any{"error": err.Error(), "calls": c.calls}
		}
		if c.calls > 0 {
			out["request"] = c.sent.Table()
		}
		rep := wrapReport(hooknames.WrapLLMCall, req.Kwargs(), c.steps, out)
		if f != nil {
			f.end(rep)
		}
		if trace != nil {
			trace(rep)
		}
	}
	return wrappedLLM{resp: resp, err: err, sent: c.sent, calls: c.calls}
}

// run runs the chain from callback i on.
func (c *llmChain) run(ctx context.Context, i int, req hookspec.LLMRequest) (hookspec.LLMResponse, error) {
	if i == len(c.cbs) {
		c.sent = req
		c.calls++
		return c.call(ctx, req)
	}
	cb := c.cbs[i]
	step := &wrapStep{cb: cb}
	c.steps = append(c.steps, step)
	var last wrapOutcome
	next := func(ctx context.Context, arg any) (any, error) {
		t, err := nextArg(hooknames.WrapLLMCall, arg, "request", step.nexts)
		inner := req
		if err == nil && t != nil {
			inner, err = req.WithTable(t)
		}
		if err != nil { // the hook's mistake: not a call of the model
			return nil, err
		}
		step.nexts++
		resp, err := c.run(ctx, i+1, inner)
		last = wrapOutcome{v: resp, err: err}
		if err != nil {
			return nil, err
		}
		return resp.Table(), nil
	}
	hctx, end := startWrapHook(ctx, c.f)
	v, t, err := cb.p.lp.CallWrap(hctx, cb.index, req.Kwargs(), next, c.timed || cb.metrics != nil)
	r, out := cb.readWrap(c.set, hooknames.WrapLLMCall, v, t, err, step.nexts, last, llmAnswer)
	end(r)
	step.result = r
	if out.skip {
		return c.run(ctx, i+1, req)
	}
	resp, _ := out.v.(hookspec.LLMResponse)
	return resp, out.err
}

// llmAnswer reads what a wrap_llm_call callback returned: a response table (or a string,
// its content), or {error="..."}.
func llmAnswer(v any) (any, error, string) {
	if err, ok := errorAnswer(v); ok {
		return nil, err, ""
	}
	resp, err := hookspec.ResponseFrom(v)
	if err != nil {
		return nil, nil, wrapAnswerProblem(hooknames.WrapLLMCall, v,
			`a response {content="...", tool_calls={...}, ...} (or a string, its content), {error="..."}, or nothing after calling next (`+err.Error()+`)`,
			append(hookspec.ResponseKeys, "error"))
	}
	return resp, nil, ""
}
