package engine

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/hookspec"
)

// AttrNexts, on a wrap hook's span, is how many times the callback called next (0: it
// answered without running the call).
const AttrNexts = attribute.Key("hermes.hook.nexts")

// startWrapFiring starts the span of a wrap chain ("fire wrap_tool_call"), when the engine
// traces; its callbacks' spans are its children, each the parent of the one inside it, and
// the innermost one the parent of what the call does (a re-check firing of pre_tool_call,
// the host's own spans under ctx).
func (e *Engine) startWrapFiring(ctx context.Context, hook string, kw map[string]any) (context.Context, *firing) {
	if e.tracer == nil {
		return ctx, nil
	}
	return e.startFiring(ctx, hook, mapArgs(kw))
}

// startWrapHook starts the span of one wrap callback under f (nil: none) and returns the
// context it runs under and the function that records its result and ends the span.
func startWrapHook(ctx context.Context, f *firing) (context.Context, func(hookspec.Result)) {
	if f == nil {
		return ctx, func(hookspec.Result) {}
	}
	ctx, span := f.tracer.Start(ctx, "hook")
	return ctx, func(r hookspec.Result) { endWrapHook(span, f, r) }
}

func endWrapHook(span trace.Span, f *firing, r hookspec.Result) {
	span.SetName("hook " + r.Name)
	if !span.IsRecording() {
		span.End()
		return
	}
	attrs := make([]attribute.KeyValue, 0, 10+len(f.ids))
	attrs = append(attrs, AttrEvent.String(f.event), AttrHookName.String(r.Name), AttrHookSource.String(r.Source),
		AttrHookStatus.String(r.Status.String()), AttrDurationMS.Float64(hookspec.DurationMS(r.Duration)))
	if r.Nexts != nil {
		attrs = append(attrs, AttrNexts.Int(*r.Nexts))
	}
	if r.Wait > 0 {
		attrs = append(attrs, AttrWaitMS.Float64(hookspec.DurationMS(r.Wait)))
	}
	if failedStatus(r.Status) {
		attrs = append(attrs, AttrErrorType.String(r.Status.String()), AttrHookError.String(r.Err))
		span.SetStatus(codes.Error, r.Err)
	}
	span.SetAttributes(append(attrs, f.ids...)...)
	span.End()
}
