package gateway

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// startSpan starts the span of the gateway hook name handling event: with emit (a queued
// event), the root of a trace of its own linked to the Emit that queued it; else a child
// of ctx's span.
func (g *Gateway) startSpan(ctx context.Context, name, event string, data map[string]any, emit *trace.SpanContext) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{engine.AttrEvent.String(event), engine.AttrHookName.String(name),
		engine.AttrHookSource.String(hookspec.SourceGateway), engine.AttrHookDialect.String("hermes")}
	if s, _ := data["session_id"].(string); s != "" {
		attrs = append(attrs, engine.AttrConversationID.String(s))
	}
	opts := []trace.SpanStartOption{trace.WithAttributes(attrs...)}
	if emit != nil {
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: *emit,
			Attributes: []attribute.KeyValue{engine.AttrLinkedEmit.String("emit")}}))
	}
	return g.tracer.Start(ctx, "hook "+name, opts...)
}

// EventDropped is the span event an EmitContext records on its caller's span for each hook
// that did not get the event (a full queue, a closed gateway).
const EventDropped = "hermes.dropped"

// dropped records on the span of ctx (emit: traced) that hook did not get event, and why.
func dropped(ctx context.Context, emit *trace.SpanContext, hook, event string, reason hookspec.DropReason) {
	if emit == nil {
		return
	}
	trace.SpanFromContext(ctx).AddEvent(EventDropped, trace.WithAttributes(engine.AttrHookName.String(hook),
		engine.AttrEvent.String(event), attrDropReason.String(reason.String())))
}

// endSpan records how the hook's call ended and ends span; a failure is the span's error.
func endSpan(span trace.Span, r hookspec.Result) {
	span.SetAttributes(engine.AttrHookStatus.String(r.Status.String()),
		engine.AttrDurationMS.Float64(hookspec.DurationMS(r.Duration)))
	if r.Status != hookspec.StatusOK && r.Status != hookspec.StatusSkipped {
		span.SetAttributes(engine.AttrErrorType.String(r.Status.String()), engine.AttrHookError.String(r.Err))
		span.SetStatus(codes.Error, r.Err)
	}
	span.End()
}

// noSpan records nothing.
var noSpan = trace.SpanFromContext(context.Background())

// GenAI semantic-convention attributes of the runner's spans.
const (
	attrDropReason = attribute.Key("hermes.drop.reason") // why a hook did not get an event: queue_full, closed
)

// GenAI semantic-convention attributes of a turn's spans.
const (
	attrOperation     = attribute.Key("gen_ai.operation.name") // invoke_agent, execute_tool, chat
	attrRequestModel  = attribute.Key("gen_ai.request.model")  // the model a request asks for
	attrResponseModel = attribute.Key("gen_ai.response.model") // the model that answered
	attrBlocked       = attribute.Key("hermes.tool.blocked")   // a tool call's pre_tool_call hooks blocked it
	attrSynthetic     = attribute.Key("hermes.llm.synthetic")  // a hook answered the request: the model was not called
	attrTurnOutcome   = attribute.Key("hermes.turn.outcome")   // skipped, blocked, finished, failed, interrupted
)

// startSpan starts the turn's span (GenAI's invoke_agent), a child of ctx's, and returns
// ctx inside it: the firings, tool calls and model calls of the turn are its children.
func (t *Turn) startSpan(ctx context.Context) context.Context {
	t.parent = trace.SpanContextFromContext(ctx)
	if t.g.tracer == nil {
		return ctx
	}
	ctx, t.span = t.g.tracer.Start(ctx, "invoke_agent", trace.WithAttributes(attrOperation.String("invoke_agent"),
		engine.AttrConversationID.String(t.msg.SessionID)))
	return ctx
}

// in is ctx for a call of the turn: with the turn's chat, and inside the turn's span when
// ctx is one the turn started from (a host's own span inside the turn is kept).
func (t *Turn) in(ctx context.Context) context.Context {
	if t.span != nil && trace.SpanContextFromContext(ctx).Equal(t.parent) {
		ctx = trace.ContextWithSpan(ctx, t.span)
	}
	return engine.WithOrigin(ctx, t.origin)
}

// endSpan ends the turn's span with its outcome.
func (t *Turn) endSpan(outcome string) {
	if t.span != nil {
		t.span.SetAttributes(attrTurnOutcome.String(outcome))
		t.span.End()
	}
}

// childSpan starts a span of the turn named name, a child of ctx's (after in), with attrs
// built only when traced.
func (t *Turn) childSpan(ctx context.Context, name string, attrs func() []attribute.KeyValue) (context.Context, trace.Span) {
	if t.g.tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return t.g.tracer.Start(ctx, name, trace.WithAttributes(attrs()...))
}

// endLLMSpan ends the span of a model call with what came of it.
func endLLMSpan(span trace.Span, run engine.LLMRun) {
	if span.IsRecording() {
		span.SetAttributes(attrSynthetic.Bool(run.Synthetic))
		if run.Response.Model != "" {
			span.SetAttributes(attrResponseModel.String(run.Response.Model))
		}
		if run.Err != nil {
			span.SetStatus(codes.Error, run.Err.Error())
		}
	}
	span.End()
}
