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

// The pre_llm_call handlers of BenchmarkPreLLMCallHistory.
var historyHandlers = []struct{ name, body string }{
	// testdata/shapes/context.lua: reads four fields, never the history.
	{"unread", `return { context = "User " .. kw.sender_id .. " on " .. kw.platform .. " talks to " .. kw.model .. "; keep answers short." }`},
	// walks the history.
	{"read", `local n = 0
    for _, m in ipairs(kw.conversation_history) do
      if m.role == "user" then n = n + 1 end
    end
    return { context = n .. " earlier questions" }`},
	// the unread handler written with a helper that receives kw: the engine cannot prove
	// the history unseen, so it converts it.
	{"passed-on", `return context_of(kw)`},
}

const historyHelper = `local function context_of(kw)
  return { context = "User " .. kw.sender_id .. " on " .. kw.platform .. " talks to " .. kw.model .. "; keep answers short." }
end
`

// history is n messages as a host stores them: alternating user and assistant maps.
func history(n int) []hookspec.Message {
	h := make([]hookspec.Message, n)
	for i := range h {
		role := []string{"user", "assistant"}[i%2]
		h[i] = hookspec.Message{Role: role, Content: fmt.Sprintf("message %d: some words of a conversation", i)}
	}
	return h
}

// historyEngine loads one pre_llm_call handler as a plugin.
func historyEngine(tb testing.TB, body string) *engine.Engine {
	tb.Helper()
	home := testutil.Home(tb, map[string]string{
		"plugins/history/plugin.yaml": "name: history\n",
		"plugins/history/handler.lua": historyHelper + "function register(ctx)\n  ctx.register_hook(\"pre_llm_call\", function(kw)\n    " +
			body + "\n  end)\nend\n",
	})
	eng := newEngine(tb, home, engine.Options{})
	if p := eng.Plugins(); len(p) != 1 || p[0].Status != "loaded" {
		tb.Fatalf("history handler not loaded: %v", eng.Warnings())
	}
	return eng
}

// BenchmarkPreLLMCallHistory measures PreLLMCall with an empty conversation history and with
// one of 1,000 messages in the same run: each op is a block of historyBlock calls of each,
// timed separately, the two blocks in turn in either order. empty-ns/call and
// history-ns/call are the two costs, ratio their quotient; the allocations of one call of
// each are reported too. "unread" is a handler that never looks at the history (it costs
// the same either way), "read" one that walks it, "passed-on" the unread handler behind a
// helper that receives kw.
func BenchmarkPreLLMCallHistory(b *testing.B) {
	const historyBlock = 8
	for _, h := range historyHandlers {
		b.Run(h.name, func(b *testing.B) {
			eng := historyEngine(b, h.body)
			ctx := context.Background()
			empty := hookspec.LLMTurn{SessionID: "s", UserMessage: "hello", Model: "gpt-4", Platform: "cli", SenderID: "user1"}
			long := empty
			long.ConversationHistory = history(1000)
			for _, t := range []hookspec.LLMTurn{empty, long} {
				if eng.DecideTurn(ctx, t).Context == "" {
					b.Fatal("the handler added no context")
				}
			}
			allocsEmpty := testing.AllocsPerRun(100, func() { eng.DecideTurn(ctx, empty) })
			allocsLong := testing.AllocsPerRun(20, func() { eng.DecideTurn(ctx, long) })
			var in [2]time.Duration // empty, long
			turns := [2]hookspec.LLMTurn{empty, long}
			calls := 0
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				first := calls / historyBlock % 2 // which goes first alternates
				for _, j := range []int{first, 1 - first} {
					start := time.Now()
					for range historyBlock {
						eng.DecideTurn(ctx, turns[j])
					}
					in[j] += time.Since(start)
				}
				calls += historyBlock
			}
			inEmpty, inLong := in[0], in[1]
			b.ReportMetric(float64(inEmpty)/float64(calls), "empty-ns/call")
			b.ReportMetric(float64(inLong)/float64(calls), "history-ns/call")
			b.ReportMetric(float64(inLong)/float64(inEmpty), "ratio")
			b.ReportMetric(allocsEmpty, "empty-allocs/call")
			b.ReportMetric(allocsLong, "history-allocs/call")
		})
	}
}
