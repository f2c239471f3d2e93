package gateway

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/metrics/promcollector"
	"github.com/prometheus/client_golang/prometheus"
)

// recording is the host functions of a test that records what each hook saw, in order.
func recording(rec *testutil.Recorder) map[string]hookspec.Func {
	return map[string]hookspec.Func{"record": rec.Func()}
}

// counting is a handler that records the event's seq and how many events this Lua state
// has seen (its global counter).
func counting(name string) string {
	return `local n = 0
function handle(event, ctx)
  n = n + 1
  require("hermes").record("` + name + `", ctx.seq or 0)
  require("hermes").record("` + name + `-count", n)
  return n
end`
}

// A gateway reload keeps unchanged hooks as they run: the same Lua state (its counter goes
// on) and the same queue, so events arrive in order across reloads; a changed hook's new
// version starts after the old one has handled its queue, so its order holds too.
func TestReloadKeepsHooksAndOrder(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		hookFiles("same", "events: [agent:step]", counting("same")),
		hookFiles("edited", "events: [agent:step]", counting("edited")),
	))
	rec := &testutil.Recorder{}
	g, _ := newGateway(t, home, Options{HostFuncs: recording(rec), QueueSize: 4096})
	ctx := context.Background()
	const events = 2000
	for i := range events {
		g.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: map[string]any{"seq": i + 1}})
		if i%200 == 199 {
			edit := counting("edited") + "\n-- edit " + string(rune('a'+i/200)) + "\n"
			if err := os.WriteFile(filepath.Join(home, "hooks/edited/handler.lua"), []byte(edit), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := g.Reload(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"same", "edited"} {
		got := rec.Get(name)
		if len(got) != events {
			t.Fatalf("%s saw %d events, want %d (dropped: %v)", name, len(got), events, g.Dropped())
		}
		for i, seq := range got {
			if seq != int64(i+1) {
				t.Fatalf("%s: event %d arrived as number %d: out of order across reloads", name, seq, i+1)
			}
		}
	}
	if counts := rec.Get("same-count"); counts[len(counts)-1] != events {
		t.Errorf("the unchanged hook's counter ended at %d, want %d: its Lua state was rebuilt", counts[len(counts)-1], events)
	}
	if counts := rec.Get("edited-count"); counts[len(counts)-1] == events {
		t.Errorf("the edited hook kept its state across edits")
	}
}

// A hook whose directory changes between loads under the same name (a bundle's new
// revision is a new directory; here the user's hook is moved) also starts its new version
// after the old one has handled its queue: it sees its events in order across the move.
func TestReloadKeepsOrderWhenAHookMoves(t *testing.T) {
	manifest := "name: moved\nevents: [agent:step]\n"
	home := testutil.Home(t, map[string]string{"hooks/moved-0/HOOK.yaml": manifest, "hooks/moved-0/handler.lua": counting("moved")})
	rec := &testutil.Recorder{}
	g, _ := newGateway(t, home, Options{HostFuncs: recording(rec), QueueSize: 4096})
	ctx := context.Background()
	const events = 2000
	for i := range events {
		g.Emit(ctx, hookspec.NamedEvent{Name: hookspec.AgentStep, Data: map[string]any{"seq": i + 1}})
		if i%200 == 199 {
			from, to := filepath.Join(home, "hooks", "moved-"+strconv.Itoa(i/200)), filepath.Join(home, "hooks", "moved-"+strconv.Itoa(i/200+1))
			if err := os.Rename(from, to); err != nil {
				t.Fatal(err)
			}
			if err := g.Reload(ctx); err != nil {
				t.Fatal(err)
			}
			if hs := g.Hooks(); len(hs) != 1 || hs[0].Dir != to {
				t.Fatalf("after the move: %+v, want the hook in %s", hs, to)
			}
		}
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got := rec.Get("moved")
	if len(got) != events {
		t.Fatalf("the hook saw %d events, want %d (dropped: %v)", len(got), events, g.Dropped())
	}
	for i, seq := range got {
		if seq != int64(i+1) {
			t.Fatalf("event %d arrived as number %d: out of order across the moves", seq, i+1)
		}
	}
}

// Dropped counts across reloads, counts events emitted after Close (reason closed), and
// counts what Close left queued when it gave up waiting; those events never run.
func TestDropsAreCountedAcrossReloadsAndClose(t *testing.T) {
	started, release := make(chan struct{}, 16), make(chan struct{})
	funcs := map[string]hookspec.Func{
		"started": func(context.Context, []any) (any, error) { started <- struct{}{}; return nil, nil },
		"wait": func(ctx context.Context, _ []any) (any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		},
	}
	home := testutil.Home(t, hookFiles("slow", "events: [agent:step]\ntimeout: 60\n",
		`function handle(event, ctx) require("hermes").started() require("hermes").wait() end`))
	metrics := engine.NewMetrics()
	g, logs := newGateway(t, home, Options{HostFuncs: funcs, QueueSize: 2, Metrics: metrics})
	g.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: nil})
	<-started // one runs, the next two wait in the queue, the rest are dropped
	for range 9 {
		g.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: nil})
	}
	if n := g.Dropped()["slow"]; n != 7 {
		t.Fatalf("Dropped = %d, want 7", n)
	}
	if err := g.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: nil})
	if n := g.Dropped()["slow"]; n != 8 {
		t.Errorf("after a reload Dropped = %d, want 8 (counted across reloads)", n)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want the deadline's error", err)
	}
	g.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: nil})
	// 8 dropped while running, 2 left queued at Close, 1 after Close.
	if n := g.Dropped()["slow"]; n != 11 {
		t.Errorf("after Close Dropped = %d, want 11", n)
	}
	closed, full := drops(t, metrics, hookspec.DropClosed.String()), drops(t, metrics, hookspec.DropQueueFull.String())
	if closed != 3 || full != 8 {
		t.Errorf("drops_total: closed %v, queue_full %v; want 3 and 8", closed, full)
	}
	if n := len(started); n != 0 {
		t.Errorf("%d queued events ran after Close gave up", n)
	}
	if n := strings.Count(logs.String(), "gateway hook failed"); n != 1 {
		t.Errorf("%d failure warnings, want 1 (the interrupted call):\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "status=cancelled") || !strings.Contains(logs.String(), "gateway closed") {
		t.Errorf("the interrupted call is not reported as cancelled by the gateway closing:\n%s", logs)
	}
}

// A reload of a home that vanished fails and keeps every hook.
func TestFailedReloadKeepsGatewayHooks(t *testing.T) {
	for _, breakIt := range []func(home string){
		func(home string) { os.Rename(home, home+".old") },
		func(home string) { os.RemoveAll(home) },
		func(home string) { writeFileErr(filepath.Join(home, "config.yaml"), "gateway_hooks: [oops\n") },
		func(home string) {
			os.RemoveAll(filepath.Join(home, "hooks"))
			writeFileErr(filepath.Join(home, "hooks"), "")
		},
	} {
		home := filepath.Join(t.TempDir(), "home")
		testutil.WriteFiles(t, home, hookFiles("a", "events: [agent:end]", `function handle() return "a" end`))
		g, _ := newGateway(t, home, Options{})
		breakIt(home)
		if err := g.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), "keep running") {
			t.Errorf("Reload = %v, want an error saying the hooks keep running", err)
		}
		if got := collect(g.EmitSync(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentEnd, Data: nil})); len(got) != 1 {
			t.Errorf("after a failed reload the hook answered %v", got)
		}
	}
}

// drops is the total of hermes_hook_drops_total for reason.
func drops(t *testing.T, m *engine.Metrics, reason string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(promcollector.New(m))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != "hermes_hook_drops_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == reason {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}
