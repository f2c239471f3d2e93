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
