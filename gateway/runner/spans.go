package runner

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
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

// loadSpan starts the span of loading the home of a replay, when p traces.
func loadSpan(ctx context.Context, p trace.TracerProvider) (context.Context, trace.Span) {
	if p == nil {
		return ctx, noSpan
	}
	return p.Tracer(engine.TracerName).Start(ctx, "load home")
}

// noSpan records nothing.
var noSpan = trace.SpanFromContext(context.Background())

// attrCommand is a slash command's name, on the runner's span of it.
const attrCommand = attribute.Key("hermes.command")
