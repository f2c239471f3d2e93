//go:build unix

package bench

import (
	"context"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// emptyWrap is the cheapest middleware: a wrap hook that passes every call on unchanged.
func emptyWrap(hook hookspec.Hook) map[string]string {
	return map[string]string{
		"plugins/wrap/plugin.yaml": "name: wrap\n",
		"plugins/wrap/handler.lua": "function register(ctx)\n  ctx.register_hook(\"" + hook.String() + "\", function(kw, next) return next() end)\nend\n",
	}
}

// BenchmarkWrapHook measures what an empty wrap hook (`return next()`) adds around a call,
// side by side with the same call and no hook, in the same run: blocks of 8 calls of each,
// timed in turn (which goes first alternates). `tool` is engine.RunTool of a tool that
// returns at once; `llm` is engine.RunLLM of a model call that returns at once. Reported:
// `bare-ns/call`, `wrapped-ns/call`, `added-ns/call` and their `ratio`, and the allocations
// of one call of each.
func BenchmarkWrapHook(b *testing.B) {
	const block = 8
	ctx := context.Background()
	call := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls -la /tmp"}, SessionID: "s", ToolCallID: "c"}
	tool := func(context.Context, hookspec.ToolCall) (string, error) { return "ok", nil }
	req := hookspec.SampleLLMRequest()
	model := func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		return hookspec.LLMResponse{Content: "ok"}, nil
	}
	cases := []struct {
		name string
		hook hookspec.Hook
		run  func(e *engine.Engine) bool // one call; false when it did not answer as expected
	}{
		{"tool", hookspec.WrapToolCall, func(e *engine.Engine) bool { return e.RunTool(ctx, call, tool).Result == "ok" }},
		{"llm", hookspec.WrapLLMCall, func(e *engine.Engine) bool { return e.RunLLM(ctx, req, model).Response.Content == "ok" }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			engines := [2]*engine.Engine{
				newEngine(b, testutil.Home(b, nil), engine.Options{}),
				newEngine(b, testutil.Home(b, emptyWrap(c.hook)), engine.Options{}),
			}
			if !engines[1].HasHooks(c.hook) {
				b.Fatal("the wrap hook did not load")
			}
			var allocs [2]float64
			for j, e := range engines {
				if !c.run(e) {
					b.Fatal("the call did not answer ok")
				}
				allocs[j] = testing.AllocsPerRun(100, func() { c.run(e) })
			}
			var in [2]time.Duration // bare, wrapped
			calls := 0
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				first := calls / block % 2
				for _, j := range []int{first, 1 - first} {
					start := time.Now()
					for range block {
						c.run(engines[j])
					}
					in[j] += time.Since(start)
				}
				calls += block
			}
			b.ReportMetric(float64(in[0])/float64(calls), "bare-ns/call")
			b.ReportMetric(float64(in[1])/float64(calls), "wrapped-ns/call")
			b.ReportMetric(float64(in[1]-in[0])/float64(calls), "added-ns/call")
			b.ReportMetric(float64(in[1])/float64(in[0]), "ratio")
			b.ReportMetric(allocs[0], "bare-allocs/call")
			b.ReportMetric(allocs[1], "wrapped-allocs/call")
		})
	}
}
