package gateway

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// RunLLM runs one request of the turn to the model through engine.Engine.RunLLM
// (pre_api_request, which may rewrite or answer it, the wrap_llm_call chain around call,
// post_api_request), with the turn's session, platform and chat; a request that names no
// model gets the turn's, and a response that names its model makes it the turn's. Send
// the request call receives: the hooks may have rewritten it. A request past the turn's
// step limit (Options.MaxSteps; with Message.Recorded, the requests hooks answered in a
// row) runs no hook and no call: its Err is ErrStepLimit, logged as a warning; end the
// turn with Fail.
func (t *Turn) RunLLM(ctx context.Context, req hookspec.LLMRequest, call func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error)) engine.LLMRun {
	if err := t.g.StepLimit(t.msg.SessionID, t.llmCalls); err != nil {
		return engine.LLMRun{Request: req, Err: err}
	}
	t.llmCalls++
	if req.SessionID == "" {
		req.SessionID = t.msg.SessionID
	}
	if req.Platform == "" {
		req.Platform = t.msg.Platform
	}
	if req.Model == "" {
		req.Model = t.msg.Model
	}
	ctx, span := t.childSpan(t.in(ctx), "chat "+req.Model, func() []attribute.KeyValue {
		return []attribute.KeyValue{attrOperation.String("chat"), attrRequestModel.String(req.Model),
			engine.AttrConversationID.String(req.SessionID)}
	})
	run := t.g.eng.RunLLM(ctx, req, call)
	endLLMSpan(span, run)
	if t.msg.Recorded && !run.Synthetic {
		t.llmCalls = 0
	}
	if run.Err == nil && run.Response.Model != "" {
		t.msg.Model = run.Response.Model
	}
	return run
}

// StepLimit is the error of a turn's request to the model made after done of them, when
// done has reached the step limit (Options.MaxSteps): ErrStepLimit, logged as a warning
// naming the session. It is nil below the limit. Turn.RunLLM checks it; a host that drives
// its own loop of model requests calls it before each.
func (g *Gateway) StepLimit(sessionID string, done int) error {
	if done < g.opts.MaxSteps {
		return nil
	}
	g.logger.Warn("a turn reached its step limit and was ended: a hook may be answering every request to the model with a tool call",
		"session", sessionID, "max_steps", g.opts.MaxSteps)
	return fmt.Errorf("%w of %d requests to the model (gateway.Options.MaxSteps)", ErrStepLimit, g.opts.MaxSteps)
}
