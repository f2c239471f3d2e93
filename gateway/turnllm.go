package gateway

import (
	"context"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// RunLLM runs one request of the turn to the model through engine.Engine.RunLLM
// (pre_api_request, which may rewrite or answer it, the wrap_llm_call chain around call,
// post_api_request), with the turn's session, platform and chat; a request that names no
// model gets the turn's. Send the request call receives: the hooks may have rewritten it.
func (t *Turn) RunLLM(ctx context.Context, req hookspec.LLMRequest, call func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error)) engine.LLMRun {
	if req.SessionID == "" {
		req.SessionID = t.msg.SessionID
	}
	if req.Platform == "" {
		req.Platform = t.msg.Platform
	}
	if req.Model == "" {
		req.Model = t.msg.Model
	}
	return t.g.eng.RunLLM(engine.WithOrigin(ctx, t.origin), req, call)
}
