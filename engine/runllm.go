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
		w := runWrap(ctx, e, set, &llmWrap, run.Request, call)
		run.Response, run.Err, run.Calls = w.out, w.err, w.runs
		run.Synthetic = w.runs == 0 && w.err == nil
		if w.runs > 0 {
			run.Modified = run.Modified || !sameArgs(w.ran.Table(), req.Table())
			run.Request = w.ran
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

// llmWrap is wrap_llm_call's kind of chain (wrapchain.go): kw are pre_api_request's, next
// takes a request table (its fields replace the request's) and returns the response table.
// A changed request is not decided again: pre_api_request rewrites or answers a request,
// it does not guard one, and it ran before the chain.
var llmWrap = wrapKind[hookspec.LLMRequest, hookspec.LLMResponse]{
	hook: hooknames.WrapLLMCall, what: "request", outKey: "response", runsKey: "calls",
	kwargs: hookspec.LLMRequest.Kwargs,
	input: func(r hookspec.LLMRequest, t map[string]any) (hookspec.LLMRequest, bool, error) {
		out, err := r.WithTable(t)
		return out, true, err // no recheck to spare: RunLLM compares the request the model got with the one given
	},
	toLua:   func(r hookspec.LLMResponse) any { return r.Table() },
	inTable: func(r hookspec.LLMRequest) any { return r.Table() },
	answer:  llmAnswer,
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
