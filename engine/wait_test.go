package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	promtest "github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/metrics/promcollector"
)

// holdOrPass holds its call in a host function when the tool is "hold".
var holdOrPass = one(hooknames.PreToolCall, `if kw.tool_name == "hold" then local h = require("hermes"); h.started("p"); h.wait() end`)

// The time a call waits for a free Lua state is its own figure: the result's Wait (wait_ms
// in JSON), hermes_hook_wait_seconds, never part of Duration or
// hermes_hook_duration_seconds. A call that did not run has no duration.
func TestWaitIsReportedApartFromTheRun(t *testing.T) {
	funcs, started, release := hostGate()
	home := testutil.Home(t, pluginFiles("p", "timeout: 30\nbusy_timeout: 0.05\nmax_states: 1\n", holdOrPass))
	metrics := NewMetrics()
	e := engineWith(t, home, Options{HostFuncs: funcs, Metrics: metrics})

	first := make(chan Report, 1)
	go func() {
		first <- e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "hold"})
	}()
	<-started
	busy := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "x"}).Hooks[0]
	close(release)
	held := (<-first).Hooks[0]

	if busy.Status != hookspec.StatusBusy || busy.Wait < 50*time.Millisecond || busy.Duration != 0 {
		t.Errorf("busy call: status %s, wait %v, duration %v; want busy, a wait of the busy timeout, no duration", busy.Status, busy.Wait, busy.Duration)
	}
	if held.Status != hookspec.StatusOK || held.Wait != 0 || held.Duration <= 0 {
		t.Errorf("first call: status %s, wait %v, duration %v; want ok, no wait, a duration", held.Status, held.Wait, held.Duration)
	}
	var shape map[string]any
	for r, want := range map[*hookspec.Result]bool{&busy: true, &held: false} {
		b, _ := json.Marshal(*r)
		shape = nil
		_ = json.Unmarshal(b, &shape)
		if ms, ok := shape["wait_ms"].(float64); ok != want || want && ms < 50 {
			t.Errorf("JSON %s: wait_ms present %v, want %v (omitted when zero)", b, ok, want)
		}
	}

	h := metrics.wait.With(hookspec.SourcePlugin, "p", hooknames.PreToolCall).Value()
	if h.Count != 2 || h.Sum < 0.05 {
		t.Errorf("hermes_hook_wait_seconds: %d samples, sum %v; want 2 (every call), at least the busy wait", h.Count, h.Sum)
	}
	if n := promtest.CollectAndCount(promcollector.New(metrics), "hermes_hook_wait_seconds"); n != 1 {
		t.Errorf("hermes_hook_wait_seconds series: %d, want 1", n)
	}
	d := metrics.latency.With(hookspec.SourcePlugin, "p", hooknames.PreToolCall).Value()
	if got, want := d.Sum, held.Duration.Seconds(); got > want+1e-6 || got < want-1e-6 {
		t.Errorf("hermes_hook_duration_seconds sum %v, want the first call's run %v alone (the busy call ran 0)", got, want)
	}
}

// By default a plugin whose call waits on I/O does not make its other calls wait: the
// second call runs in an extra state while the first is blocked.
func TestIOWaitDoesNotHoldThePlugin(t *testing.T) {
	funcs, started, release := hostGate()
	home := testutil.Home(t, pluginFiles("p", "timeout: 30\nbusy_timeout: 20\n", holdOrPass))
	e := engineWith(t, home, Options{HostFuncs: funcs})
	if p := e.Plugins()[0]; p.States != 1 || p.MaxStates != 4 {
		t.Errorf("states %d, max_states %d; want 1 and 4 (the default, four times states)", p.States, p.MaxStates)
	}
	first := make(chan Report, 1)
	go func() {
		first <- e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "hold"})
	}()
	<-started
	second := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "x"}).Hooks[0]
	if second.Status != hookspec.StatusOK {
		t.Errorf("second call while the first waits in a host function: %s %q, want ok", second.Status, second.Err)
	}
	select {
	case <-first:
		t.Fatal("the first call ended before it was released")
	default:
	}
	close(release)
	if r := (<-first).Hooks[0]; r.Status != hookspec.StatusOK {
		t.Errorf("first call: %s %q", r.Status, r.Err)
	}
}

// max_states is checked against states.
func TestMaxStatesManifest(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("low", "states: 2\nmax_states: 1\n", one(hooknames.PreToolCall, "")),
		pluginFiles("high", "max_states: 257\n", one(hooknames.PreToolCall, "")),
		pluginFiles("set", "states: 2\nmax_states: 2\n", one(hooknames.PreToolCall, "")),
		pluginFiles("scaled", "states: 3\n", one(hooknames.PreToolCall, "")),
	))
	e, _ := newEngine(t, home)
	want := map[string]string{
		"low":  "plugins/low/plugin.yaml:3: max_states must be between states (2) and 256",
		"high": "plugins/high/plugin.yaml:2: max_states must be between states (1) and 256",
	}
	for _, p := range e.Plugins() {
		switch p.Name {
		case "low", "high":
			if p.Status != "error" || !strings.Contains(p.Error, want[p.Name]) {
				t.Errorf("%s: %s %q, want an error containing %q", p.Name, p.Status, p.Error, want[p.Name])
			}
		case "set":
			if p.Status != "loaded" || p.MaxStates != 2 {
				t.Errorf("set: %s, max_states %d; want loaded, 2", p.Status, p.MaxStates)
			}
		case "scaled":
			if p.MaxStates != 12 {
				t.Errorf("scaled: max_states %d, want 12 (four times states: 3)", p.MaxStates)
			}
		}
	}
}

// The host's Limits bound what manifests ask: a manifest asking more gets the bound, with a
// warning naming its line; a default above it is lowered without one.
func TestLimitsBoundManifests(t *testing.T) {
	wrap := `function register(ctx)
  ctx.register_hook("wrap_tool_call", function(kw, next) return next(kw) end)
end`
	for _, tc := range []struct {
		name, manifest, handler string
		limits                  Limits
		states, maxStates       int
		warning                 string // "" for none
	}{
		{"states", "states: 8\n", "", Limits{States: 2}, 2, 8, "plugin.yaml:2: states: 8 is more than this host allows; the plugin gets 2"},
		{"max_states", "states: 2\nmax_states: 16\n", "", Limits{MaxStates: 4}, 2, 4, "plugin.yaml:3: max_states: 16 is more than this host allows; the plugin gets 4"},
		{"states under max_states", "states: 8\n", "", Limits{States: 6, MaxStates: 4}, 4, 4, "plugin.yaml:2: states: 8 is more than this host allows; the plugin gets 4"},
		{"default", "", "", Limits{MaxStates: 2}, 1, 2, ""},
		{"wrap default", "", wrap, Limits{MaxStates: 8}, 1, 8, ""},
		{"within", "states: 2\nmax_states: 3\n", "", Limits{States: 2, MaxStates: 3}, 2, 3, ""},
		{"none", "states: 8\n", "", Limits{}, 8, 32, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handler := cmp.Or(tc.handler, one(hooknames.PreToolCall, ""))
			home := testutil.Home(t, pluginFiles("p", tc.manifest, handler))
			e, err := New(context.Background(), Options{Home: home, Limits: tc.limits})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close(context.Background())
			if p := e.Plugins()[0]; p.Status != "loaded" || p.States != tc.states || p.MaxStates != tc.maxStates {
				t.Errorf("%s: states %d, max_states %d; want %d and %d", p.Status, p.States, p.MaxStates, tc.states, tc.maxStates)
			}
			var warns []string
			for _, w := range e.Warnings() {
				warns = append(warns, w.String())
			}
			if got := strings.Join(warns, "\n"); (tc.warning == "") != (got == "") || !strings.Contains(got, tc.warning) {
				t.Errorf("warnings %q, want %q", got, tc.warning)
			}
		})
	}
}
