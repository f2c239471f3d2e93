package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
)

// BenchmarkToolCallWithWebhook measures a tool call guarded by one Lua hook with a webhook
// whose endpoint answers at once (the baseline) and with one whose endpoint never answers
// (its queue stays full, so every delivery after the first few is dropped): the call never
// waits on delivery, so the two cost about the same (ratio stuck/healthy near 1). The cost
// of a webhook itself (building the payload, signing is done by the worker) is the
// difference to the same call without webhooks, reported as none-ns/call.
func BenchmarkToolCallWithWebhook(b *testing.B) {
	release := make(chan struct{})
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer stuck.Close()
	defer close(release)
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer healthy.Close()
	guard := pluginFiles("guard", "", one("pre_tool_call", `if kw.args.command == "rm" then return {action = "block"} end`))
	build := func(b *testing.B, webhooks string) *Engine {
		home := b.TempDir()
		for name, body := range guard {
			os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
			os.WriteFile(filepath.Join(home, name), []byte(body), 0o644)
		}
		os.WriteFile(filepath.Join(home, "config.yaml"), []byte(webhooks), 0o644)
		e, err := New(context.Background(), Options{Home: home, ManagedHome: b.TempDir(), Getenv: webhookEnv})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	call := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}
	run := func(e *Engine, n int) time.Duration {
		start := time.Now()
		for range n {
			e.DecideTool(context.Background(), call)
		}
		return time.Since(start)
	}
	config := func(url string) string {
		return "webhooks:\n  - {name: w, url: \"" + url + "\", events: [pre_tool_call], secret_env: HOOK_SECRET, allow_private_network: true, timeout: 60}\n"
	}
	none, base, hooked := build(b, ""), build(b, config(healthy.URL)), build(b, config(stuck.URL))
	defer func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // what is queued is abandoned
		for _, e := range []*Engine{none, base, hooked} {
			e.Close(ctx)
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	var tn, tb, th time.Duration
	for range b.N {
		tn += run(none, 1)
		tb += run(base, 1)
		th += run(hooked, 1)
	}
	b.ReportMetric(float64(tn.Nanoseconds())/float64(b.N), "none-ns/call")
	b.ReportMetric(float64(tb.Nanoseconds())/float64(b.N), "healthy-ns/call")
	b.ReportMetric(float64(th.Nanoseconds())/float64(b.N), "stuck-ns/call")
	b.ReportMetric(float64(th)/float64(tb), "stuck/healthy")
}
