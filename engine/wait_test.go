package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	promtest "github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
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

	h := histogram(t, metrics.wait.WithLabelValues(hookspec.SourcePlugin, "p", hooknames.PreToolCall))
	if h.GetSampleCount() != 2 || h.GetSampleSum() < 0.05 {
		t.Errorf("hermes_hook_wait_seconds: %d samples, sum %v; want 2 (every call), at least the busy wait", h.GetSampleCount(), h.GetSampleSum())
	}
	if n := promtest.CollectAndCount(metrics, "hermes_hook_wait_seconds"); n != 1 {
		t.Errorf("hermes_hook_wait_seconds series: %d, want 1", n)
	}
	d := histogram(t, metrics.latency.WithLabelValues(hookspec.SourcePlugin, "p", hooknames.PreToolCall))
	if got, want := d.GetSampleSum(), held.Duration.Seconds(); got > want+1e-6 || got < want-1e-6 {
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

func histogram(t *testing.T, o prometheus.Observer) *dto.Histogram {
	t.Helper()
	var m dto.Metric
	if err := o.(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram()
}
