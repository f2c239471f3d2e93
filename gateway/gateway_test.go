package gateway

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

func hookFiles(name, manifest, handler string) map[string]string {
	return map[string]string{"hooks/" + name + "/HOOK.yaml": manifest, "hooks/" + name + "/handler.lua": handler}
}

func newGateway(t *testing.T, home string, opts Options) (*Gateway, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	opts.Engine.Home, opts.Engine.Logger = home, logger
	g, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(context.Background()) })
	return g, logs
}

const echoHandler = `function handle(ev, ctx) return ev end`

func TestDiscovery(t *testing.T) {
	files := testutil.Merge(
		hookFiles("good", "events: [agent:start]\n", echoHandler),
		map[string]string{"hooks/nomanifest/handler.lua": echoHandler, "hooks/nohandler/HOOK.yaml": "events: [agent:start]\n"},
		hookFiles("emptyevents", "events: []\n", echoHandler),
		hookFiles("noevents", "name: x\n", echoHandler),
		hookFiles("nohandle", "events: [agent:start]\n", "function other() end"),
		hookFiles("syntax", "events: [agent:start]\n", "function handle(ev, ctx)\n  return = 1\nend"),
		hookFiles("badyaml", "events: [agent:start\n", echoHandler),
		hookFiles("off", "events: [agent:start]\nenabled: false\n", echoHandler),
		hookFiles("typo", "events: [agent:stpe, agent:start]\ncolour: red\n", echoHandler),
	)
	home := testutil.Home(t, files)
	g, _ := newGateway(t, home, Options{})
	got := map[string]string{}
	for _, h := range g.Hooks() {
		got[filepath.Base(h.Dir)] = h.Status
	}
	want := map[string]string{"good": "loaded", "nomanifest": "error", "nohandler": "error", "emptyevents": "error", "noevents": "error",
		"nohandle": "error", "syntax": "error", "badyaml": "error", "off": "disabled", "typo": "loaded"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	var warns []string
	for _, w := range g.Warnings() {
		warns = append(warns, strings.TrimPrefix(w.String(), home+"/"))
	}
	for _, want := range []string{
		"hooks/nomanifest/HOOK.yaml: missing HOOK.yaml",
		"hooks/nohandler/handler.lua: missing handler.lua",
		"hooks/emptyevents/HOOK.yaml:1: events is empty",
		"hooks/noevents/HOOK.yaml:1: missing events",
		"hooks/nohandle/handler.lua: no global function handle",
		"hooks/syntax/handler.lua:2:",
		"hooks/badyaml/HOOK.yaml:",
		`hooks/typo/HOOK.yaml:1: unknown event "agent:stpe"; did you mean "agent:step"?`,
		`hooks/typo/HOOK.yaml:2: unknown key "colour"`,
	} {
		found := false
		for _, w := range warns {
			found = found || strings.HasPrefix(w, want)
		}
		if !found {
			t.Errorf("no warning starting with %q in:\n%s", want, strings.Join(warns, "\n"))
		}
	}
	if got := collect(g.EmitSync(context.Background(), hookspec.NamedEvent{Name: "agent:start", Data: nil})); len(got) != 2 {
		t.Errorf("agent:start reached %v, want good and typo", got)
	}
}

func TestNoHooksDir(t *testing.T) {
	g, _ := newGateway(t, t.TempDir(), Options{})
	if len(g.Hooks()) != 0 || len(g.Warnings()) != 0 {
		t.Errorf("hooks %v warnings %v", g.Hooks(), g.Warnings())
	}
	g.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:start", Data: nil})
}

func TestWildcards(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		hookFiles("a_wild", `events: ["command:*"]`, `function handle(ev, ctx) return "wild " .. ev .. " " .. ctx.command end`),
		hookFiles("b_both", `events: ["command:*", "command:reset"]`, `n = 0 function handle(ev) n = n + 1 return "both " .. n end`),
		hookFiles("c_exact", `events: ["command:reset"]`, `function handle(ev) return "exact" end`),
		hookFiles("d_agent", `events: ["agent:*"]`, `function handle(ev) return ev end`),
	))
	g, _ := newGateway(t, home, Options{})
	ctx := context.Background()
	got := collect(g.EmitSync(ctx, hookspec.NamedEvent{Name: "command:reset", Data: map[string]any{"command": "reset"}}))
	if diff := cmp.Diff([]any{"both 1", "exact", "wild command:reset reset"}, got); diff != "" {
		t.Errorf("command:reset (-want +got):\n%s", diff)
	}
	got = collect(g.EmitSync(ctx, hookspec.NamedEvent{Name: "command:model", Data: map[string]any{"command": "model"}}))
	if diff := cmp.Diff([]any{"wild command:model model", "both 2"}, got); diff != "" {
		t.Errorf("command:model (-want +got):\n%s", diff)
	}
	if got := collect(g.EmitSync(ctx, hookspec.NamedEvent{Name: "agent:step", Data: nil})); !cmp.Equal(got, []any{"agent:step"}) {
		t.Errorf("agent:step = %v", got)
	}
	if got := collect(g.EmitSync(ctx, hookspec.NamedEvent{Name: "session:start", Data: nil})); got != nil {
		t.Errorf("session:start = %v", got)
	}
}

// emitAll emits events from another goroutine and fails the test if they do not all return
// within a minute (a loose bound: Emit waiting for a handler held by the test never returns).
func emitAll(t *testing.T, g *Gateway, events int) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= events; i++ {
			g.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:step", Data: map[string]any{"iteration": i}})
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Emit waited for a handler")
	}
}

// holdFuncs is a host function hold, which a handler calls to wait until release is closed.
func holdFuncs(release <-chan struct{}) map[string]hookspec.Func {
	return map[string]hookspec.Func{"hold": func(context.Context, []any) (any, error) { <-release; return nil, nil }}
}

func TestEmitDoesNotWaitAndKeepsOrder(t *testing.T) {
	var mu sync.Mutex
	var seen []any
	release := make(chan struct{})
	funcs := holdFuncs(release)
	funcs["record"] = hookspec.Func(func(_ context.Context, args []any) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, args[0])
		return nil, nil
	})
	home := testutil.Home(t, hookFiles("slow", "events: [\"agent:step\"]\ntimeout: 60\n", `
local hermes = require("hermes")
function handle(ev, ctx)
  if ctx.iteration == 1 then hermes.hold() end
  hermes.record(ctx.iteration)
end`))
	g, _ := newGateway(t, home, Options{HostFuncs: funcs})
	emitAll(t, g, 5) // while the first event's handler is held
	closed := make(chan error)
	go func() { closed <- g.Close(context.Background()) }()
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]any{int64(1), int64(2), int64(3), int64(4), int64(5)}, seen); diff != "" {
		t.Errorf("events handled when Close returned (-want +got):\n%s", diff)
	}
}

func TestFullQueueDropsAndCounts(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	home := testutil.Home(t, hookFiles("slow", "events: [\"agent:step\"]\ntimeout: 60\n", `function handle() require("hermes").hold() end`))
	g, logs := newGateway(t, home, Options{QueueSize: 2, HostFuncs: holdFuncs(release)})
	emitAll(t, g, 50) // the first handler is held: the queue fills
	dropped := g.Dropped()["slow"]
	if dropped < 47 || dropped > 48 {
		t.Errorf("dropped %d of 50 with a queue of 2 and one event held, want 47 or 48", dropped)
	}
	if n := strings.Count(logs.String(), "queue full"); n != 1 {
		t.Errorf("%d drop warnings, want 1 (rate-limited)", n)
	}
}

func TestFailuresNeverReachTheCaller(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		hookFiles("a_err", `events: ["agent:end"]`, "function handle()\n  error('boom')\nend"),
		hookFiles("b_slow", "events: [agent:end]\ntimeout: 0.2\n", `function handle() while true do end end`),
		hookFiles("c_ok", `events: ["agent:end"]`, `function handle() return "ok" end`),
	))
	g, logs := newGateway(t, home, Options{})
	rs := g.EmitSync(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: nil})
	var statuses []hookspec.Status
	for _, r := range rs {
		statuses = append(statuses, r.Status)
	}
	if diff := cmp.Diff([]hookspec.Status{hookspec.StatusError, hookspec.StatusTimeout, hookspec.StatusOK}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if !strings.Contains(rs[0].Err, "a_err/handler.lua:2: boom") {
		t.Errorf("error %q does not name file and line", rs[0].Err)
	}
	g.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: nil})
	g.Close(context.Background())
	if !strings.Contains(logs.String(), "hook=a_err") {
		t.Errorf("failure not logged with the hook name:\n%s", logs.String())
	}
}

func TestCloseDeadlineInterrupts(t *testing.T) {
	home := testutil.Home(t, hookFiles("stuck", "events: [agent:end]\ntimeout: 60\n", `function handle() require("hermes").started() while true do end end`))
	started := make(chan struct{}, 1)
	g, _ := newGateway(t, home, Options{HostFuncs: map[string]hookspec.Func{"started": func(context.Context, []any) (any, error) {
		started <- struct{}{}
		return nil, nil
	}}})
	g.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: nil})
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := g.Close(ctx); err == nil {
		t.Error("Close with a stuck handler returned nil")
	}
	if d := time.Since(start); d > 30*time.Second { // a loose bound: the handler's timeout is 60s
		t.Errorf("Close took %v", d)
	}
	g.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: nil}) // after Close: ignored, no panic
}

func writeFileErr(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// collect is the non-nil values the handlers returned.
func collect(rs []hookspec.Result) []any {
	var out []any
	for _, r := range rs {
		if r.Result != nil {
			out = append(out, r.Result)
		}
	}
	return out
}
