//go:build unix

package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/engine"
)

// BenchmarkDecisionLogDown measures BenchmarkPreToolCallLua's call with a decision log whose
// endpoint is down against the same call without one, in the same run: each op is a block
// of declogBlock calls of each, timed separately, in turn in either order. plain-ns/call and
// logged-ns/call are the two costs, ratio their quotient (the goal: within 1.1).
// "refused": nothing listens at the URL; "503": the endpoint answers 503 to every batch.
// Either way the buffer fills and stays full, so a call's decision is dropped and counted:
// the buffer is filled before the timing starts.
func BenchmarkDecisionLogDown(b *testing.B) {
	const declogBlock = 8
	for _, down := range []string{"refused", "503"} {
		b.Run(down, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
			defer srv.Close()
			if down == "refused" {
				srv.Close()
			}
			// Both count in Metrics, as a server does: the difference is the log alone.
			engs := [2]*engine.Engine{referenceEngineWith(b, engine.Options{Metrics: engine.NewMetrics()}), referenceEngineWith(b, engine.Options{Metrics: engine.NewMetrics(),
				DecisionLog: &decisionlog.Options{URL: srv.URL, Mask: []string{"args.command"}, FlushInterval: 100 * time.Millisecond}})}
			ctx := context.Background()
			for range decisionlog.DefaultBuffer + 1 { // the steady state of an endpoint that is down: the buffer is full
				engs[1].DecideTool(ctx, allowed)
			}
			var in [2]time.Duration // plain, logged
			calls := 0
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				first := calls / declogBlock % 2
				for _, j := range []int{first, 1 - first} {
					start := time.Now()
					for range declogBlock {
						if engs[j].DecideTool(ctx, allowed).Block != nil {
							b.Fatal("allowed call blocked")
						}
					}
					in[j] += time.Since(start)
				}
				calls += declogBlock
			}
			b.ReportMetric(float64(in[0])/float64(calls), "plain-ns/call")
			b.ReportMetric(float64(in[1])/float64(calls), "logged-ns/call")
			b.ReportMetric(float64(in[1])/float64(in[0]), "ratio")
		})
	}
}
