//go:build unix

package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// The load of TestSlowDependencies: depSessions conversations at once, each turn a
// pre_llm_call and three tool calls, for depWarmUp (not counted: a failing dependency's
// circuit opens then) and then depWindow per home.
const (
	depSessions = 64
	depWarmUp   = 3 * time.Second
	depWindow   = 2 * time.Second
)

// depGuard is a guard plugin with one Lua state, failing closed; with counting, every tool
// call also does a store.incr, the shape that used to hold the only state across the
// database call (and a call whose store fails is blocked).
func depGuard(counting bool) string {
	count := ""
	if counting {
		count = `require("store").incr("calls")`
	}
	return `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    ` + count + `
    if (kw.args.command or ""):find("rm -rf", 1, true) then return {action = "block", message = "no"} end
  end)
  ctx.register_hook("pre_llm_call", function(kw) return "be brief" end)
end`
}

// persistentGuard answers every payload line with its request_id and nothing else.
const persistentGuard = `#!/bin/sh
while IFS= read -r line; do
  id=${line#*'"request_id":"'}
  id=${id%%'"'*}
  printf '{"request_id":"%s"}\n' "$id"
done
`

// depFigures are what one home did under the load.
type depFigures struct {
	turns    int
	p99      time.Duration // of a tool call's hooks
	failures float64       // hook calls that failed, from the metrics (warm-up included)
	store    float64       // store calls that failed, from the metrics (warm-up included)
}

func (f depFigures) perSecond() float64 { return float64(f.turns) / depWindow.Seconds() }

// TestSlowDependencies runs the same conversations against homes that differ in one
// dependency: none, a store in SQLite, a store in Redis (healthy, killed, paused), and a
// persistent shell hook with one or four instances. It reports turns per second and the
// tool-call p99 of each (docs/performance.md has the figures), and checks what must hold
// whatever the machine: every tool call was guarded, every failure was counted, and a
// dead or paused Redis does not stall the gateway (a stall loses nearly all throughput).
func TestSlowDependencies(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a load test: its figures need a build without the race detector")
	}
	redis := testutil.StartRedis(t)
	redisConfig := "store: {url: \"" + redis.URL + "\"}\n"
	home := func(counting bool, config string) string {
		return testutil.Home(t, map[string]string{
			"plugins/guard/plugin.yaml": "name: guard\nstates: 1\ntimeout: 5\nfail_closed: true\n",
			"plugins/guard/handler.lua": depGuard(counting),
			"config.yaml":               config,
		})
	}
	persistent := func(instances int) string {
		h := home(false, "")
		script := filepath.Join(h, "guard.sh")
		if err := os.WriteFile(script, []byte(persistentGuard), 0o755); err != nil {
			t.Fatal(err)
		}
		config := fmt.Sprintf("hooks:\n  pre_tool_call:\n    - {command: %s, persistent: true, instances: %d, timeout: 5}\n", script, instances)
		if err := os.WriteFile(filepath.Join(h, "config.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		return h
	}

	base := driveHome(t, home(false, ""), nil)
	sqlite := driveHome(t, home(true, ""), nil)
	healthy := driveHome(t, home(true, redisConfig), nil)
	killed := driveHome(t, home(true, redisConfig), func() func() { redis.Stop(); return redis.Start })
	paused := driveHome(t, home(true, redisConfig), func() func() { redis.Pause(); return redis.Resume })
	one := driveHome(t, persistent(1), nil)
	four := driveHome(t, persistent(4), nil)

	var b strings.Builder
	fmt.Fprintf(&b, "%d sessions, %v per home after %v of warm-up:\n", depSessions, depWindow, depWarmUp)
	fmt.Fprintf(&b, "| home | turns/s | tool-call p99 | hook failures | store failures |\n|---|---|---|---|---|\n")
	for _, r := range []struct {
		name string
		f    depFigures
	}{
		{"no dependency", base}, {"store.incr, SQLite, states: 1", sqlite}, {"store.incr, Redis", healthy},
		{"store.incr, Redis killed", killed}, {"store.incr, Redis paused (SIGSTOP)", paused},
		{"persistent hook, instances: 1", one}, {"persistent hook, instances: 4", four},
	} {
		fmt.Fprintf(&b, "| %s | %.0f | %v | %.0f | %.0f |\n", r.name, r.f.perSecond(), r.f.p99.Round(time.Microsecond), r.f.failures, r.f.store)
	}
	fmt.Fprintf(&b, "SQLite store vs none: %.2fx the turns, %.2fx the p99\n", sqlite.perSecond()/base.perSecond(), float64(sqlite.p99)/float64(base.p99))
	fmt.Fprintf(&b, "Redis killed vs healthy: %.2fx the turns; paused: %.2fx\n", killed.perSecond()/healthy.perSecond(), paused.perSecond()/healthy.perSecond())
	fmt.Fprintf(&b, "persistent instances 4 vs 1: %.2fx the p99\n", float64(four.p99)/float64(one.p99))
	t.Log(b.String())

	for name, f := range map[string]depFigures{"killed": killed, "paused": paused} {
		if f.store == 0 || f.failures != f.store {
			t.Errorf("Redis %s: %v hook failures for %v store failures, want every failure counted, once", name, f.failures, f.store)
		}
		// A stall (every turn waiting for the hook's 5s timeout) loses nearly everything.
		if f.perSecond() < healthy.perSecond()/10 {
			t.Errorf("Redis %s: %.0f turns/s against %.0f healthy: the gateway stalled", name, f.perSecond(), healthy.perSecond())
		}
	}
	for name, f := range map[string]depFigures{"none": base, "SQLite": sqlite, "healthy": healthy, "instances 1": one, "instances 4": four} {
		if f.failures != 0 {
			t.Errorf("%s: %v hook failures", name, f.failures)
		}
	}
}

// driveHome runs depSessions conversations against a new engine on home for depWindow and
// returns its figures; during, when not nil, runs when the load starts and returns what
// undoes it, run when the load ends. Every dangerous call must be blocked.
func driveHome(t *testing.T, home string, during func() func()) depFigures {
	t.Helper()
	ctx := context.Background()
	m := engine.NewMetrics()
	eng, err := engine.New(ctx, engine.Options{Home: home, Metrics: m, AcceptHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if w := eng.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	if during != nil {
		undo := during()
		defer undo()
	}
	var mu sync.Mutex
	var latencies []time.Duration
	turns := 0
	begin := time.Now().Add(depWarmUp)
	deadline := begin.Add(depWindow)
	var wg sync.WaitGroup
	for s := range depSessions {
		wg.Go(func() {
			var mine []time.Duration
			n := 0
			for i := 0; ; i++ {
				now := time.Now()
				if now.After(deadline) {
					break
				}
				counted := now.After(begin)
				eng.PreLLMCall(ctx, engine.LLMTurn{SessionID: fmt.Sprint(s), UserMessage: "hi"})
				for c, cmd := range []string{"ls", "rm -rf /", "pwd"} {
					start := time.Now()
					d := eng.DecideTool(ctx, engine.ToolCall{Name: "terminal", Args: map[string]any{"command": cmd},
						SessionID: fmt.Sprint(s), ToolCallID: fmt.Sprintf("%d-%d-%d", s, i, c)})
					if counted {
						mine = append(mine, time.Since(start))
					}
					if cmd == "rm -rf /" && d.Block == nil {
						t.Errorf("%s: rm -rf / was not blocked", home)
					}
				}
				if counted {
					n++
				}
			}
			mu.Lock()
			latencies, turns = append(latencies, mine...), turns+n
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(latencies)
	f := depFigures{turns: turns}
	if len(latencies) > 0 {
		f.p99 = latencies[len(latencies)*99/100]
	}
	// Failures over the whole run, warm-up included: a snapshot at the window's start
	// would cut calls in flight between their store failure and their hook failure.
	after := depCounters(t, m)
	f.failures, f.store = after.failures, after.store
	return f
}

// depCounters are the failures the metrics counted so far.
func depCounters(t *testing.T, m *engine.Metrics) depFigures {
	return depFigures{
		failures: sumMetric(t, m, "hermes_hook_errors_total") + sumMetric(t, m, "hermes_hook_timeouts_total") + sumMetric(t, m, "hermes_hook_busy_total"),
		store:    sumMetric(t, m, "hermes_store_errors_total"),
	}
}

// sumMetric is the sum of a metric's series.
func sumMetric(t *testing.T, c prometheus.Collector, name string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}
