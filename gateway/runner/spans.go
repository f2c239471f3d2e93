package runner

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// span starts a span of the runner's own (a message, a turn, a tool call), a child of
// ctx's, named name (and suffix, if any), with the attributes attrs returns, so the hooks'
// spans sit inside the host's. Without a tracer it is a span that records nothing, and
// neither the name nor the attributes are built.
func (r *Runner) span(ctx context.Context, name, suffix string, attrs func() []attribute.KeyValue) (context.Context, trace.Span) {
	if r.tracer == nil {
		return ctx, noSpan
	}
	if suffix != "" {
		name += " " + suffix
	}
	var opts []trace.SpanStartOption
	if attrs != nil {
		opts = append(opts, trace.WithAttributes(attrs()...))
	}
	return r.tracer.Start(ctx, name, opts...)
}

// toolSpan starts the span of one tool call of session s (GenAI's execute_tool).
func (r *Runner) toolSpan(ctx context.Context, s *session, call hookspec.ToolCall) (context.Context, trace.Span) {
	return r.span(ctx, "execute_tool", call.Name, func() []attribute.KeyValue {
		return []attribute.KeyValue{attrOperation.String("execute_tool"), engine.AttrToolName.String(call.Name),
			engine.AttrToolCallID.String(call.ToolCallID), engine.AttrConversationID.String(s.id)}
	})
}

// endToolSpan records whether the call was blocked and ends span.
func endToolSpan(span trace.Span, blocked bool) {
	if span.IsRecording() {
		span.SetAttributes(attrBlocked.Bool(blocked))
	}
	span.End()
}

// loadSpan starts the span of loading the home of a replay, when p traces.
func loadSpan(ctx context.Context, p trace.TracerProvider) (context.Context, trace.Span) {
	if p == nil {
		return ctx, noSpan
	}
	return p.Tracer(engine.TracerName).Start(ctx, "load home")
}

// noSpan records nothing.
var noSpan = trace.SpanFromContext(context.Background())

// GenAI semantic-convention attributes of the runner's spans.
const (
	attrOperation = attribute.Key("gen_ai.operation.name") // invoke_agent, execute_tool
	attrBlocked   = attribute.Key("hermes.tool.blocked")   // a tool call's pre_tool_call hooks blocked it
	attrCommand   = attribute.Key("hermes.command")        // a slash command's name
)
