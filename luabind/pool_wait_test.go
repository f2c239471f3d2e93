package luabind

import (
	"context"
	"github.com/hermes-hooks/hermes/hookspec"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"
)

// gate is a blocking point a test controls: entered receives when a call reaches it, and
// the call stays there until release is closed (or its context ends).
type gate struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newGate(t *testing.T) *gate {
	g := &gate{entered: make(chan struct{}, 16), release: make(chan struct{})}
	t.Cleanup(g.open)
	return g
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

func (g *gate) block(ctx context.Context) error {
	g.entered <- struct{}{}
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gateStore is a store whose incr waits at the gate, like a database that is slow to answer.
type gateStore struct {
	hookspec.Store
	g *gate
}

func (s gateStore) Incr(ctx context.Context, _ string, _ int64, _ time.Duration) (int64, error) {
	return 1, s.g.block(ctx)
}

// waitIO waits until n calls of p wait on I/O: the only way to see a call inside
// time.sleep or exec from outside.
func waitIO(p *Plugin, n int32) {
	for p.s.pool.inIO.Load() < n {
		runtime.Gosched()
	}
}

// A call blocked on I/O (a host function, the store, http, time.sleep) does not hold the
// hook's only state: a second call of the same hook runs to completion meanwhile, in an
// extra state, while the first is still blocked.
func TestIOWaitDoesNotHoldTheLine(t *testing.T) {
	type setup struct {
		lua     string // the blocking call
		opts    func(g *gate, opts *Options)
		entered func(g *gate, p *Plugin) // returns once the first call is blocked
	}
	viaGate := func(g *gate, _ *Plugin) { <-g.entered }
	cases := map[string]setup{
		"host function": {`require("hermes").block()`, func(g *gate, o *Options) {
			o.HostFuncs = map[string]hookspec.Func{"block": func(ctx context.Context, _ []any) (any, error) { return nil, g.block(ctx) }}
		}, viaGate},
		"store": {`require("store").incr("k")`, func(g *gate, o *Options) { o.Store = gateStore{g: g} }, viaGate},
		"http": {`require("http").get(kw.url)`, func(g *gate, o *Options) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = g.block(r.Context()) }))
			t.Cleanup(srv.Close)
			t.Cleanup(g.open) // runs before srv.Close, which waits for the handler
			o.Permissions.Net = []string{"127.0.0.1"}
			o.Config = srv.URL
		}, viaGate},
		"time.sleep": {`require("time").sleep(300)`, func(*gate, *Options) {}, func(_ *gate, p *Plugin) { waitIO(p, 1) }},
		"exec": {`require("exec").run({"sleep", "300"}, {timeout = 300})`, func(_ *gate, o *Options) { o.Permissions.Exec = []string{"sleep"} },
			func(_ *gate, p *Plugin) { waitIO(p, 1) }},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			g := newGate(t)
			opts := Options{Timeout: time.Minute, BusyTimeout: 20 * time.Second, MaxStates: 4} // busy only without the fix
			c.opts(g, &opts)
			src := `local url
function register(ctx)
  url = ctx.config
  ctx.register_hook("h", function(kw)
    if kw.block then kw.url = url; ` + c.lua + ` end
    return "ran"
  end)
end`
			p := loadPlugin(t, src, opts)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := make(chan error, 1)
			go func() { _, err := p.Call(ctx, 0, map[string]any{"block": true}); first <- err }()
			c.entered(g, p)

			v, err := p.Call(context.Background(), 0, map[string]any{"block": false})
			if err != nil || v != "ran" {
				t.Fatalf("second call while the first waits on I/O: %v, %v; want it to run", v, err)
			}
			select {
			case err := <-first:
				t.Fatalf("the first call ended (%v) before it was released", err)
			default:
			}
			if n := p.s.pool.size(); n != 2 {
				t.Errorf("pool holds %d states, want 2 (the first, and one extra)", n)
			}
			if name == "time.sleep" || name == "exec" { // ended by the host, not by the gate
				cancel()
				wantKind(t, <-first, KindCanceled, "canceled by the host")
				return
			}
			g.open()
			if err := <-first; err != nil {
				t.Fatalf("first call: %v", err)
			}
		})
	}
}

// A call running Lua (a loop) holds its state: a second call waits and ends busy, and no
// extra state is built. An extra state taken while a call waits on I/O counts as running
// when it runs Lua: a third call then waits too, so states: 1 never runs two calls of Lua.
func TestPureLuaDoesNotGrowThePool(t *testing.T) {
	g := newGate(t)
	src := `function register(ctx)
  ctx.register_hook("h", function(kw)
    local h = require("hermes")
    if kw.io then h.block() end
    h.started()
    while true do end
  end)
end`
	started := make(chan struct{}, 4)
	funcs := map[string]hookspec.Func{
		"block":   func(ctx context.Context, _ []any) (any, error) { return nil, g.block(ctx) },
		"started": func(context.Context, []any) (any, error) { started <- struct{}{}; return nil, nil },
	}
	p := loadPlugin(t, src, Options{Timeout: time.Minute, BusyTimeout: 30 * time.Millisecond, MaxStates: 4, HostFuncs: funcs})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, 2)
	go func() { _, err := p.Call(ctx, 0, map[string]any{"io": false}); errs <- err }()
	<-started
	waitInIO(p, 0)
	_, err := p.Call(context.Background(), 0, map[string]any{"io": false})
	wantKind(t, err, KindBusy, "all 1 Lua state(s) of the hook stayed in use for 30ms")
	if n := p.s.pool.size(); n != 1 {
		t.Fatalf("a call looping in Lua grew the pool to %d states, want 1", n)
	}
	cancel()
	wantKind(t, <-errs, KindCanceled, "canceled by the host")

	// One call waits on I/O, another runs Lua in the extra state it could take: a third
	// call finds one call running Lua, which is all states: 1 allows, and ends busy.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go func() { _, err := p.Call(ctx, 0, map[string]any{"io": true}); errs <- err }()
	<-g.entered
	go func() { _, err := p.Call(ctx, 0, map[string]any{"io": false}); errs <- err }()
	<-started
	waitInIO(p, 1)
	_, err = p.Call(context.Background(), 0, map[string]any{"io": false})
	wantKind(t, err, KindBusy, "all 2 Lua state(s) of the hook stayed in use for 30ms")
	if n := p.s.pool.size(); n != 2 {
		t.Fatalf("pool holds %d states, want 2", n)
	}
	cancel()
	for range 2 {
		wantKind(t, <-errs, KindCanceled, "canceled by the host")
	}
}

// waitInIO waits until n calls of the plugin's pool wait on I/O. A host function (started)
// counts as I/O until it returns, which is after it has said so.
func waitInIO(p *Plugin, n int32) {
	for p.s.pool.inIO.Load() != n {
		runtime.Gosched()
	}
}

// The pool grows no further than MaxStates; MaxStates = States, the default, turns growth
// off.
func TestPoolGrowthIsBounded(t *testing.T) {
	for _, maxStates := range []int{0, 1, 3} {
		limit := max(maxStates, 1)
		g := newGate(t)
		funcs := map[string]hookspec.Func{"block": func(ctx context.Context, _ []any) (any, error) { return nil, g.block(ctx) }}
		p := loadPlugin(t, `function register(ctx) ctx.register_hook("h", function() require("hermes").block() end) end`,
			Options{Timeout: time.Minute, BusyTimeout: 30 * time.Millisecond, MaxStates: maxStates, HostFuncs: funcs})
		errs := make(chan error, limit)
		for range limit {
			go func() { _, err := p.Call(context.Background(), 0, nil); errs <- err }()
			<-g.entered
		}
		_, err := p.Call(context.Background(), 0, nil)
		wantKind(t, err, KindBusy, "stayed in use for 30ms")
		if n := p.s.pool.size(); n != limit {
			t.Errorf("MaxStates %d: pool holds %d states, want %d", maxStates, n, limit)
		}
		g.open()
		for range limit {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		// The extra states stay for reuse: calls that come later find them idle.
		if n := p.s.pool.size(); n != limit {
			t.Errorf("MaxStates %d: pool holds %d states after the calls, want them kept", maxStates, n)
		}
	}
}

// The time a call waits for a free state is reported apart from how long it ran: the wait
// covers the time the state was held by another call, the run does not.
func TestWaitIsNotRun(t *testing.T) {
	g := newGate(t)
	funcs := map[string]hookspec.Func{"block": func(ctx context.Context, _ []any) (any, error) { return nil, g.block(ctx) }}
	p := loadPlugin(t, `function register(ctx)
  ctx.register_hook("h", function(kw) if kw.block then require("hermes").block() end return 1 end)
end`, Options{Timeout: time.Minute, BusyTimeout: time.Minute, MaxStates: 1, HostFuncs: funcs})
	first := make(chan error, 1)
	go func() { _, err := p.Call(context.Background(), 0, map[string]any{"block": true}); first <- err }()
	<-g.entered

	type result struct {
		t   Timing
		err error
	}
	second := make(chan result, 1)
	go func() {
		_, tm, err := p.CallTimed(context.Background(), 0, map[string]any{"block": false}, true)
		second <- result{tm, err}
	}()
	for p.s.pool.waiters.Load() == 0 { // the second call waits for the state the first holds
		runtime.Gosched()
	}
	seen := time.Now()
	for time.Since(seen) < 2*time.Millisecond { // a wait of a known least length
		runtime.Gosched()
	}
	released := time.Now()
	gap := released.Sub(seen)
	g.open()
	r := <-second
	sinceRelease := time.Since(released)
	if r.err != nil {
		t.Fatal(r.err)
	}
	// The wait began before seen and ended after released; the run began after released.
	if r.t.Wait < gap {
		t.Errorf("wait %v, want at least %v (the time the state was held while the call waited)", r.t.Wait, gap)
	}
	if r.t.Run <= 0 || r.t.Run > sinceRelease {
		t.Errorf("run %v, want above 0 and at most %v (the time since the state came free): the wait is not part of it", r.t.Run, sinceRelease)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}

	// A call with a state at once waited nothing; an untimed call reports no run.
	_, tm, err := p.CallTimed(context.Background(), 0, map[string]any{"block": false}, false)
	if err != nil || tm != (Timing{}) {
		t.Errorf("uncontended untimed call: %+v, %v; want no wait and no run", tm, err)
	}
}

// A busy call did not run: its run is 0 and its wait is the busy timeout.
func TestBusyCallWaitedAndDidNotRun(t *testing.T) {
	ch := make(chan struct{}, 1)
	p := loadPlugin(t, loopAfterStart, Options{Timeout: time.Minute, BusyTimeout: 30 * time.Millisecond, HostFuncs: started(ch)})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := p.Call(ctx, 0, nil); first <- err }()
	<-ch
	_, tm, err := p.CallTimed(context.Background(), 0, nil, true)
	wantKind(t, err, KindBusy, "stayed in use")
	if tm.Run != 0 || tm.Wait < 30*time.Millisecond {
		t.Errorf("busy call: %+v, want run 0 and a wait of at least the busy timeout", tm)
	}
	cancel()
	<-first
}

// Reporting the wait costs an uncontended call nothing: no allocation, timed or not.
func TestUncontendedCallAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := loadPlugin(t, `function register(ctx) ctx.register_hook("h", function(kw) return kw.n end) end`, Options{})
	kw := map[string]any{"n": true}
	for _, timed := range []bool{false, true} {
		if n := testing.AllocsPerRun(1000, func() { _, _, _ = p.CallTimed(context.Background(), 0, kw, timed) }); n != 0 {
			t.Errorf("timed %v: %v allocations per call, want 0", timed, n)
		}
	}
}
