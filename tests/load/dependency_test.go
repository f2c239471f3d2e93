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
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/metrics"
	"github.com/hermes-hooks/hermes/metrics/promcollector"
)

// The load of TestSlowDependencies: depSessions conversations at once, each turn two
// gateway events, pre_llm_call, three tool calls (each decided, and when it runs,
// post_tool_call and transform_tool_result) and post_llm_call, for depWarmUp (not counted:
// a failing dependency's circuit opens then) and then depWindow per home, while the home is
// reloaded every depReload. The conversations never wait for a model: they saturate the
// machine, and the turns per second are what each home sustains.
//
// Then the paced phase, on the same gateway: the same conversations, each waiting
// depModelTime for the model after pre_llm_call, for depPacedWarmUp and then
// depPacedWindow. Every home is offered the same load, about depSessions/depModelTime turns a
// second, well below what the slowest home sustains, so that a tool call's latency is its
// hooks' own cost (and their waits for one another), not the queue of a saturated machine.
const (
	depSessions    = 64
	depWarmUp      = 3 * time.Second
	depWindow      = 2 * time.Second
	depReload      = 100 * time.Millisecond
	depModelTime   = 100 * time.Millisecond
	depPacedWarmUp = time.Second
	depPacedWindow = 3 * time.Second
)

// gatewayHome writes the home every row shares, the shape of a gateway's: six plugins (a
// guard with one Lua state failing closed, a counter with one Lua state, context, a
// redactor, an audit trail, a session observer), two gateway hooks, and config as
// config.yaml, where {guard.sh} and {guard.py} are the paths of a persistent shell guard in
// /bin/sh (persistentGuard) and in Python (persistentGuardPython). With
// store, the counter counts each tool call with store.incr, the shape that used to hold the
// only state across the database call (a call whose store fails fails closed, and the call
// is blocked); without, it counts in a Lua table. The two plugins of one state wait up to
// 60 s for it (busy_timeout): a call that waits is measured, not failed, however busy the
// machine.
func gatewayHome(t *testing.T, store bool, config string) string {
	t.Helper()
	count := `calls = calls + 1`
	if store {
		count = `require("store").incr("calls")`
	}
	files := map[string]string{
		"plugins/guard/plugin.yaml": "name: guard\nstates: 1\ntimeout: 5\nbusy_timeout: 60\nfail_closed: true\n",
		"plugins/guard/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if (kw.args.command or ""):find("rm -rf", 1, true) then return {action = "block", message = "no"} end
  end)
end`,
		"plugins/counter/plugin.yaml": "name: counter\nstates: 1\ntimeout: 5\nbusy_timeout: 60\nfail_closed: true\n",
		"plugins/counter/handler.lua": `calls = 0
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) ` + count + ` end)
end`,
		"plugins/context/plugin.yaml": "name: context\n",
		"plugins/context/handler.lua": `function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw) return {context = "be brief"} end)
end`,
		"plugins/redactor/plugin.yaml": "name: redactor\n",
		"plugins/redactor/handler.lua": `function register(ctx)
  ctx.register_hook("transform_tool_result", function(kw)
    if kw.result:find("sk-", 1, true) then return (kw.result:gsub("sk%-%w+", "[redacted]")) end
  end)
end`,
		"plugins/audit/plugin.yaml": "name: audit\n",
		"plugins/audit/handler.lua": `local seen = 0
function register(ctx)
  ctx.register_hook("post_tool_call", function(kw) seen = seen + 1 end)
end`,
		"plugins/observer/plugin.yaml": "name: observer\n",
		"plugins/observer/handler.lua": `local turns = {}
function register(ctx)
  ctx.register_hook("post_llm_call", function(kw) turns[kw.session_id] = (turns[kw.session_id] or 0) + 1 end)
end`,
	}
	for _, name := range []string{"gw-start", "gw-end"} {
		files["hooks/"+name+"/HOOK.yaml"] = `events: ["agent:*"]` + "\n"
		files["hooks/"+name+"/handler.lua"] = "local n = 0\nfunction handle(event, ctx) n = n + 1 end\n"
	}
	home := testutil.Home(t, files)
	for name, src := range map[string]string{"guard.sh": persistentGuard, "guard.py": persistentGuardPython} {
		script := filepath.Join(home, name)
		if err := os.WriteFile(script, []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
		config = strings.ReplaceAll(config, "{"+name+"}", script)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// persistentGuardPython answers every payload line with its request_id and nothing else, the
// way a persistent hook is usually written: in a language that reads a line at once.
const persistentGuardPython = `#!/usr/bin/env python3
import json, sys
for line in sys.stdin:
    sys.stdout.write(json.dumps({"request_id": json.loads(line)["request_id"]}) + "\n")
    sys.stdout.flush()
`

// persistentGuard answers every payload line with its request_id and nothing else, in
// /bin/sh, whose read builtin takes a line one byte (one system call) at a time.
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
	failures float64       // hook calls that failed, from the metrics (both phases, warm-ups included)
	timeouts float64       // those of them that timed out
	store    float64       // store calls that failed, from the metrics (both phases, warm-ups included)

	// The paced phase.
	pacedTurns         int
	pacedP50, pacedP99 time.Duration
}

func (f depFigures) perSecond() float64 { return float64(f.turns) / depWindow.Seconds() }

func (f depFigures) pacedPerSecond() float64 { return float64(f.pacedTurns) / depPacedWindow.Seconds() }

// TestSlowDependencies runs the same conversations, with a reload every depReload, against
// the gateway's home (with a persistent guard in Python of four instances) and homes that
// differ from it in one dependency: a store in SQLite, a store in Redis (healthy, killed,
// paused), no persistent hook, a persistent hook of one instance, a persistent hook in
// /bin/sh. It reports turns per second and the tool-call p99 of each under a saturating
// load, and the tool-call p50 and p99 of each at the same paced load (docs/performance.md
// has the figures), and checks what must hold
// whatever the machine, however busy: every tool call was guarded, every failure was
// counted, and a dead or paused Redis does not stall the gateway (no hook call waits for its
// timeout). The figures are only reported: they depend on what else the machine runs.
func TestSlowDependencies(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a load test: its figures need a build without the race detector")
	}
	redis := testutil.StartRedis(t)
	redisConfig := "store: {url: \"" + redis.URL + "\"}\n"
	// hooks is the config of the persistent shell guard with n instances (none for 0). Its
	// timeout is generous: a Python process starting on a busy machine is slow, not failing.
	hooks := func(script string, n int) string {
		if n == 0 {
			return ""
		}
		return fmt.Sprintf("hooks:\n  pre_tool_call:\n    - {command: {%s}, persistent: true, instances: %d, timeout: 60}\n", script, n)
	}

	four := hooks("guard.py", 4)
	base := driveHome(t, gatewayHome(t, false, four), nil)
	sqlite := driveHome(t, gatewayHome(t, true, four), nil)
	healthy := driveHome(t, gatewayHome(t, true, redisConfig+four), nil)
	killed := driveHome(t, gatewayHome(t, true, redisConfig+four), func() func() { redis.Stop(); return redis.Start })
	paused := driveHome(t, gatewayHome(t, true, redisConfig+four), func() func() { redis.Pause(); return redis.Resume })
	none := driveHome(t, gatewayHome(t, false, ""), nil)
	one := driveHome(t, gatewayHome(t, false, hooks("guard.py", 1)), nil)
	shFour := driveHome(t, gatewayHome(t, false, hooks("guard.sh", 4)), nil)

	var b strings.Builder
	fmt.Fprintf(&b, "%d sessions, %v per home after %v of warm-up, a reload every %v:\n", depSessions, depWindow, depWarmUp, depReload)
	fmt.Fprintf(&b, "| home | turns/s | tool-call p99 | hook failures | store failures |\n|---|---|---|---|---|\n")
	rows := []struct {
		name string
		f    depFigures
	}{
		{"the gateway's home (persistent hook in Python, instances: 4)", base}, {"+ store.incr, SQLite", sqlite}, {"+ store.incr, Redis", healthy},
		{"+ store.incr, Redis killed", killed}, {"+ store.incr, Redis paused (SIGSTOP)", paused},
		{"without the persistent hook", none}, {"persistent hook in Python, instances: 1", one},
		{"persistent hook in /bin/sh, instances: 4", shFour},
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.0f | %v | %.0f | %.0f |\n", r.name, r.f.perSecond(), r.f.p99.Round(time.Microsecond), r.f.failures, r.f.store)
	}
	for _, r := range []struct {
		name    string
		f, than depFigures
	}{{"SQLite store vs none", sqlite, base}, {"Redis store vs none", healthy, base}, {"Redis killed vs healthy", killed, healthy},
		{"Redis paused vs healthy", paused, healthy}, {"persistent hook, instances: 4 vs no persistent hook", base, none},
		{"persistent hook, instances: 1 vs no persistent hook", one, none}, {"persistent hook in /bin/sh, instances: 4 vs no persistent hook", shFour, none}} {
		fmt.Fprintf(&b, "%s: %.2fx the turns, %.2fx the p99\n", r.name, r.f.perSecond()/r.than.perSecond(), float64(r.f.p99)/float64(r.than.p99))
	}
	fmt.Fprintf(&b, "\npaced: each conversation waits %v for the model after pre_llm_call, %v per home after %v of warm-up:\n", depModelTime, depPacedWindow, depPacedWarmUp)
	fmt.Fprintf(&b, "| home | turns/s | tool-call p50 | tool-call p99 |\n|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.0f | %v | %v |\n", r.name, r.f.pacedPerSecond(), r.f.pacedP50.Round(time.Microsecond), r.f.pacedP99.Round(time.Microsecond))
	}
	for _, r := range []struct {
		name    string
		f, than depFigures
	}{{"SQLite store vs none", sqlite, base}, {"Redis store vs none", healthy, base},
		{"persistent hook, instances: 4 vs no persistent hook", base, none}, {"persistent hook, instances: 1 vs no persistent hook", one, none},
		{"persistent hook in /bin/sh, instances: 4 vs no persistent hook", shFour, none}} {
		fmt.Fprintf(&b, "paced, %s: %.2fx the p50, %.2fx the p99\n", r.name, float64(r.f.pacedP50)/float64(r.than.pacedP50), float64(r.f.pacedP99)/float64(r.than.pacedP99))
	}
	t.Log(b.String())

	for name, f := range map[string]depFigures{"killed": killed, "paused": paused} {
		if f.store == 0 || f.failures != f.store {
			t.Errorf("Redis %s: %v hook failures for %v store failures, want every failure counted, once", name, f.failures, f.store)
		}
		// A stall is a hook call waiting for its 5s timeout, where the store should have
		// answered within its 1s operation timeout, or at once with its circuit open.
		if f.timeouts != 0 {
			t.Errorf("Redis %s: %v hook calls timed out: the gateway stalled", name, f.timeouts)
		}
	}
	for name, f := range map[string]depFigures{"base": base, "no persistent hook": none, "instances 1": one, "in /bin/sh": shFour} {
		if f.failures != 0 {
			t.Errorf("%s: %v hook failures", name, f.failures)
		}
	}
	// A healthy store may still miss its operation timeout on a busy machine: such a
	// failure is the store's, counted once as each.
	for name, f := range map[string]depFigures{"SQLite": sqlite, "healthy": healthy} {
		if f.failures != f.store {
			t.Errorf("%s: %v hook failures for %v store failures, want only store failures", name, f.failures, f.store)
		}
	}
}

// driveHome runs depSessions conversations against a new engine on home, saturating and then
// paced (see depModelTime), and returns its figures; during, when not nil, runs when the load
// starts and returns what undoes it, run when the load ends. Every dangerous call must be
// blocked.
func driveHome(t *testing.T, home string, during func() func()) depFigures {
	t.Helper()
	ctx := context.Background()
	m := engine.NewMetrics()
	gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: home, Metrics: m, AcceptHooks: true}, QueueSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close(ctx)
	eng := gw.Engine()
	if w := eng.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	if n := len(gw.Hooks()); n != 2 {
		t.Fatalf("%d gateway hooks loaded, want 2: %v", n, gw.Warnings())
	}
	if during != nil {
		undo := during()
		defer undo()
	}
	stop := make(chan struct{})
	reloads := reloadAll(t, eng, depReload, stop)
	defer func() { close(stop); <-reloads }()
	failing := during != nil
	begin := time.Now().Add(depWarmUp)
	latencies, turns := converse(t, gw, home, failing, begin, begin.Add(depWindow), 0)
	f := depFigures{turns: turns, p99: percentile(latencies, 99)}
	begin = time.Now().Add(depPacedWarmUp)
	latencies, f.pacedTurns = converse(t, gw, home, failing, begin, begin.Add(depPacedWindow), depModelTime)
	f.pacedP50, f.pacedP99 = percentile(latencies, 50), percentile(latencies, 99)
	// Failures over the whole run, warm-up included: a snapshot at the window's start
	// would cut calls in flight between their store failure and their hook failure.
	after := depCounters(t, m)
	f.failures, f.timeouts, f.store = after.failures, after.timeouts, after.store
	return f
}

// converse runs depSessions conversations against gw until deadline, each waiting model for
// the model after pre_llm_call, and returns the latencies of the tool calls decided after
// begin and the turns ended after begin. Every dangerous call must be blocked; when the home
// is not failing, nothing else may be, but for a store that failed closed (checked by the
// caller in the metrics).
func converse(t *testing.T, gw *gateway.Gateway, home string, failing bool, begin, deadline time.Time, model time.Duration) ([]time.Duration, int) {
	ctx := context.Background()
	eng := gw.Engine()
	var mu sync.Mutex
	var latencies []time.Duration
	turns := 0
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
				session := fmt.Sprint(s)
				gw.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:start", Data: map[string]any{"session_id": session}})
				eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: session, UserMessage: "hi"})
				if model > 0 {
					time.Sleep(model) // the model answering: the load, not a synchronisation
				}
				for c, cmd := range []string{"ls", "rm -rf /", "pwd"} {
					call := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": cmd},
						SessionID: session, ToolCallID: fmt.Sprintf("%d-%d-%d", s, i, c)}
					start := time.Now()
					d := eng.DecideTool(ctx, call)
					if counted {
						mine = append(mine, time.Since(start))
					}
					if d.Block != nil {
						// A failing store fails closed; so does a healthy one that did not
						// answer within its operation timeout, on a busy machine: the
						// failures are checked at the end.
						if cmd != "rm -rf /" && !failing && !strings.Contains(d.Block.Message, `plugin "counter" failed closed (error)`) {
							t.Errorf("%s: %s was blocked: %s", home, cmd, d.Block.Message)
						}
						continue
					}
					if cmd == "rm -rf /" {
						t.Errorf("%s: rm -rf / was not blocked", home)
					}
					call.Result = `{"output": "key sk-abc123 listed", "exit_code": 0}`
					eng.PostToolCall(ctx, call)
					eng.TransformToolResult(ctx, call)
				}
				eng.PostLLMCall(ctx, hookspec.LLMTurn{SessionID: session, UserMessage: "hi", AssistantResponse: "done"})
				gw.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: map[string]any{"session_id": session}})
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
	return latencies, turns
}

// percentile is the p-th percentile of sorted latencies (0 for none).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[len(sorted)*p/100]
}

// reloadAll reloads eng every period until stop is closed, then closes the channel it
// returned. A reload must not fail: the home does not change.
func reloadAll(t *testing.T, eng *engine.Engine, period time.Duration, stop <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if err := eng.Reload(context.Background()); err != nil {
					t.Errorf("reload: %v", err)
				}
			}
		}
	}()
	return done
}

// depCounters are the failures the metrics counted so far.
func depCounters(t *testing.T, m *engine.Metrics) depFigures {
	return depFigures{
		failures: sumMetric(t, m, "hermes_hook_errors_total") + sumMetric(t, m, "hermes_hook_timeouts_total") + sumMetric(t, m, "hermes_hook_busy_total"),
		timeouts: sumMetric(t, m, "hermes_hook_timeouts_total"),
		store:    sumMetric(t, m, "hermes_store_errors_total"),
	}
}

// sumMetric is the sum of a metric's series.
func sumMetric(t *testing.T, c metrics.Collector, name string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(promcollector.New(c))
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
