package engine

import "context"

type traceKey struct{}

// WithTrace returns a context under which every firing that runs at least one hook, through
// a typed call, Invoke or Fire, also hands its full Report (payload, every hook's result,
// the decision) to f, in the calling goroutine, once the hooks have run. It is how a host
// records what happened without giving up the typed calls, like net/http/httptrace. f must
// not call back into the engine with the same context.
func WithTrace(ctx context.Context, f func(Report)) context.Context {
	return context.WithValue(ctx, traceKey{}, f)
}

// traceOf returns the trace function of ctx, or nil.
func traceOf(ctx context.Context) func(Report) {
	f, _ := ctx.Value(traceKey{}).(func(Report))
	return f
}
