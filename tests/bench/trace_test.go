//go:build unix

package bench

import (
	"context"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hermes-hooks/hermes/engine"
)

// countingProcessor counts the spans that end and keeps none: the SDK's own cost of a
// recorded span, without an exporter's.
type countingProcessor struct{ ended atomic.Int64 }

func (p *countingProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (p *countingProcessor) OnEnd(sdktrace.ReadOnlySpan)                     { p.ended.Add(1) }
func (p *countingProcessor) Shutdown(context.Context) error                  { return nil }
func (p *countingProcessor) ForceFlush(context.Context) error                { return nil }

// BenchmarkPreToolCallLuaTraced is BenchmarkPreToolCallLua with Options.TracerProvider:
// nil (no tracing: the same as BenchmarkPreToolCallLua), the API's no-op provider (the
// engine's span code with spans that record nothing), and the SDK recording every span
// (one for the firing, one for the hook) into a processor that drops them.
func BenchmarkPreToolCallLuaTraced(b *testing.B) {
	proc := &countingProcessor{}
	for _, c := range []struct {
		name string
		tp   trace.TracerProvider
	}{
		{"nil", nil},
		{"noop", noop.NewTracerProvider()},
		{"recording", sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(proc))},
	} {
		b.Run(c.name, func(b *testing.B) {
			eng := referenceEngineWith(b, engine.Options{TracerProvider: c.tp})
			before := proc.ended.Load()
			benchPreToolCall(b, eng)
			if spans := proc.ended.Load() - before; b.N > 0 {
				b.ReportMetric(float64(spans)/float64(b.N), "spans/op")
			}
		})
	}
}
