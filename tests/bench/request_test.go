//go:build unix

package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// The pre_api_request handlers of BenchmarkRunLLMRequest.
var requestHandlers = []struct{ name, body string }{
	// reads the system prompt only.
	{"system", `if kw.request.system:find("secret", 1, true) then return {action = "respond", response = "no"} end`},
	// walks the messages.
	{"messages", `local n = 0
    for _, m in ipairs(kw.request.messages) do
      if m.role == "user" then n = n + 1 end
    end
    if n < 0 then return {action = "respond", response = "no"} end`},
}

// messages is n messages of a request: alternating user and assistant maps.
func messages(n int) []hookspec.Message {
	m := make([]hookspec.Message, n)
	for i := range m {
		m[i] = hookspec.Message{Role: []string{"user", "assistant"}[i%2], Content: fmt.Sprintf("message %d: some words of a conversation", i)}
	}
	return m
}

// BenchmarkRunLLMRequest measures RunLLM with an empty request and with one of 1,000
// messages and 20 tools in the same run, through one pre_api_request handler: each op is
// a block of requestBlock calls of each, timed separately, the two blocks in turn in either
// order. empty-ns/call and request-ns/call are the two costs, ratio their quotient.
// "system" is a handler that reads only request.system (the messages are never converted
// for it: it costs about the same either way), "messages" one that walks the messages.
func BenchmarkRunLLMRequest(b *testing.B) {
	const requestBlock = 8
	for _, h := range requestHandlers {
		b.Run(h.name, func(b *testing.B) {
			home := testutil.Home(b, map[string]string{
				"plugins/request/plugin.yaml": "name: request\n",
				"plugins/request/handler.lua": "function register(ctx)\n  ctx.register_hook(\"pre_api_request\", function(kw)\n    " +
					h.body + "\n  end)\nend\n",
			})
			eng := newEngine(b, home, engine.Options{})
			if p := eng.Plugins(); len(p) != 1 || p[0].Status != "loaded" {
				b.Fatalf("request handler not loaded: %v", eng.Warnings())
			}
			ctx := context.Background()
			model := func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
				return hookspec.LLMResponse{Content: "ok"}, nil
			}
			empty := hookspec.LLMRequest{SessionID: "s", Platform: "cli", Model: "gpt-4", System: "You are terse.", APICallCount: 1}
			long := empty
			long.Messages = messages(1000)
			long.Tools = make([]map[string]any, 20)
			for i := range long.Tools {
				long.Tools[i] = map[string]any{"name": fmt.Sprintf("tool%d", i), "description": "a tool", "parameters": map[string]any{"type": "object"}}
			}
			reqs := [2]hookspec.LLMRequest{empty, long}
			for _, r := range reqs {
				if run := eng.RunLLM(ctx, r, model); run.Calls != 1 || run.Response.Content != "ok" {
					b.Fatalf("run %+v, want the model called once", run)
				}
			}
			var in [2]time.Duration // empty, long
			calls := 0
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				first := calls / requestBlock % 2 // which goes first alternates
				for _, j := range []int{first, 1 - first} {
					start := time.Now()
					for range requestBlock {
						eng.RunLLM(ctx, reqs[j], model)
					}
					in[j] += time.Since(start)
				}
				calls += requestBlock
			}
			b.ReportMetric(float64(in[0])/float64(calls), "empty-ns/call")
			b.ReportMetric(float64(in[1])/float64(calls), "request-ns/call")
			b.ReportMetric(float64(in[1])/float64(in[0]), "ratio")
		})
	}
}
