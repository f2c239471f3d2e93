package engine

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	promtest "github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/metrics/promcollector"
)

// TestReloadWhileCalling edits a plugin while calls run: no call fails, every call sees the
// old or the new behaviour, and after the reload only the new one.
func TestReloadWhileCalling(t *testing.T) {
	home := testutil.Home(t, pluginFiles("p", "", one("pre_llm_call", `return "old"`)))
	e, _ := newEngine(t, home)
	const workers = 4
	var stop atomic.Bool
	var bad atomic.Int64
	calling, sawNew := make(chan struct{}, workers), make(chan struct{}, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			first, newSeen := true, false
			for !stop.Load() {
				switch got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got {
				case "old":
				case "new":
					if !newSeen {
						newSeen = true
						sawNew <- struct{}{}
					}
				default:
					bad.Add(1)
				}
				if first {
					first = false
					calling <- struct{}{}
				}
			}
		})
	}
	for range workers { // every worker is calling
		<-calling
	}
	writeFile(t, filepath.Join(home, "plugins/p/handler.lua"), one("pre_llm_call", `return "new"`))
	for range 5 {
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for range workers { // every worker has seen the new version
		<-sawNew
	}
	stop.Store(true)
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d calls saw neither version", bad.Load())
	}
	for range 10 {
		if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "new" {
			t.Fatalf("after reload got %q", got)
		}
	}
}

func TestBrokenEditKeepsPreviousVersion(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("p", "", one("pre_llm_call", `return "v1"`)),
		pluginFiles("q", "", one("pre_llm_call", `return "q1"`)),
	))
	e, logs := newEngine(t, home)
	writeFile(t, filepath.Join(home, "plugins/p/handler.lua"), "function register(ctx)\n  ctx.register_hook('pre_llm_call', function() return = end)\nend")
	writeFile(t, filepath.Join(home, "plugins/q/handler.lua"), one("pre_llm_call", `return "q2"`))
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "v1\n\nq2" {
		t.Errorf("got %q, want the old p and the new q", got)
	}
	if !strings.Contains(logs.String(), "plugins/p/handler.lua:2:") || !strings.Contains(logs.String(), "previous version keeps running") {
		t.Errorf("reload problem not reported with file and line:\n%s", logs.String())
	}
	// Fixing it loads the new version; the kept one was not closed by the first reload.
	writeFile(t, filepath.Join(home, "plugins/p/handler.lua"), one("pre_llm_call", `return "v3"`))
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "v3\n\nq2" {
		t.Errorf("after the fix got %q", got)
	}
}

func TestMetricsCountPerHook(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("guard", "", one("pre_tool_call", `if kw.args.command == "rm" then return {action="block", message="no"} end`)),
		pluginFiles("flaky", "timeout: 0.1", one("pre_tool_call", `if kw.args.command == "loop" then while true do end end error("x")`)),
	))
	m := NewMetrics()
	e, err := New(context.Background(), Options{Home: home, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	for _, cmd := range []string{"rm", "ls", "loop", "rm"} {
		e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": cmd}})
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(promcollector.New(m))
	want := `
# HELP hermes_hook_blocks_total Tool calls blocked, counted for the hook whose block won.
# TYPE hermes_hook_blocks_total counter
hermes_hook_blocks_total{event="pre_tool_call",hook="flaky",source="plugin"} 0
hermes_hook_blocks_total{event="pre_tool_call",hook="guard",source="plugin"} 2
# HELP hermes_hook_calls_total Hook calls, by hook and event.
# TYPE hermes_hook_calls_total counter
hermes_hook_calls_total{event="pre_tool_call",hook="flaky",source="plugin"} 4
hermes_hook_calls_total{event="pre_tool_call",hook="guard",source="plugin"} 4
# HELP hermes_hook_errors_total Hook calls that failed (error raised, crashed, could not start).
# TYPE hermes_hook_errors_total counter
hermes_hook_errors_total{event="pre_tool_call",hook="flaky",source="plugin"} 3
hermes_hook_errors_total{event="pre_tool_call",hook="guard",source="plugin"} 0
# HELP hermes_hook_timeouts_total Hook calls interrupted at their timeout.
# TYPE hermes_hook_timeouts_total counter
hermes_hook_timeouts_total{event="pre_tool_call",hook="flaky",source="plugin"} 1
hermes_hook_timeouts_total{event="pre_tool_call",hook="guard",source="plugin"} 0
`
	if err := promtest.GatherAndCompare(reg, strings.NewReader(want), "hermes_hook_calls_total", "hermes_hook_errors_total",
		"hermes_hook_timeouts_total", "hermes_hook_blocks_total"); err != nil {
		t.Error(err)
	}
	if n := promtest.CollectAndCount(promcollector.New(m), "hermes_hook_duration_seconds"); n != 2 {
		t.Errorf("%d latency series, want 2", n)
	}
}

func TestAuditRecords(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("guard", "", one("pre_tool_call", `return {action="block", message="no"}`)),
		pluginFiles("mem", "", one("pre_llm_call", `return {context="secret fact"}`)),
		pluginFiles("redact", "", one("transform_tool_result", `return "[redacted]"`)),
	))
	e, logs := newEngine(t, home)
	ctx := context.Background()
	e.DecideTool(ctx, call)
	e.DecideTurn(ctx, hookspec.LLMTurn{UserMessage: "hi"})
	c := call
	c.Result = "sk-verysecret"
	e.TransformToolResult(ctx, c)
	out := logs.String()
	for _, want := range []string{
		`msg="hook decision" audit=block event=pre_tool_call by=guard before_sha256=`,
		`audit=inject_context event=pre_llm_call by=mem`,
		`audit=transform event=transform_tool_result by=redact`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing audit record %q in:\n%s", want, out)
		}
	}
	for _, secret := range []string{"sk-verysecret", "secret fact"} {
		if strings.Contains(out, secret) {
			t.Errorf("audit log contains %q in full", secret)
		}
	}
}

// TestRevokeStopsShellHookAtReload: a revoke written by another process (another Store on
// the same file) unregisters the hook at the next reload, without a restart.
func TestRevokeStopsShellHookAtReload(t *testing.T) {
	home := t.TempDir()
	s := script(t, home, "ctx.sh", `cat >/dev/null; echo '{"context":"from shell"}'`)
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_llm_call:\n    - command: "+s+"\n")
	other := consent.Open(consent.DefaultPath(home), nil)
	if _, err := other.Approve(context.Background(), hooknames.PreLLMCall, s); err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), Options{Home: home, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "from shell" {
		t.Fatalf("approved hook not registered: %q", got)
	}
	if n, err := consent.Open(consent.DefaultPath(home), nil).Revoke(context.Background(), s); n != 1 || err != nil {
		t.Fatalf("revoke: %d, %v", n, err)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "" {
		t.Errorf("revoked hook still runs after reload: %q", got)
	}
}
