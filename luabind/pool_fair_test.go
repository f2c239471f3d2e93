package luabind

import (
	"context"
	"github.com/hermes-hooks/hermes/hookspec"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
)

// cpuStore is a store whose incr costs a fixed amount of CPU outside Lua, as a local
// database's statement does: the call waits on I/O meanwhile, and other calls may take an
// extra state.
type cpuStore struct {
	hookspec.Store
	cost time.Duration
}

func (s cpuStore) Incr(ctx context.Context, _ string, _ int64, _ time.Duration) (int64, error) {
	for start := time.Now(); time.Since(start) < s.cost; {
	}
	return 1, nil
}

// BenchmarkContendedWaits runs 64 concurrent callers of a hook of one Lua state (and the
// default four while calls wait on I/O) that calls store.incr, a statement of 20 µs of CPU:
// the shape of a counting plugin under a gateway's load. It reports the distribution of the
// calls' waits for a state: a pool that lets a newcomer take a state before the calls that
// waited longest leaves a few calls waiting far longer than the rest.
func BenchmarkContendedWaits(b *testing.B) {
	p := loadPlugin(b, `function register(ctx)
  ctx.register_hook("h", function(kw) require("store").incr("calls") end)
end`, Options{Timeout: time.Minute, BusyTimeout: 100 * time.Millisecond, States: 1, MaxStates: 4, Store: cpuStore{cost: 20 * time.Microsecond}})
	var mu sync.Mutex
	var waits []time.Duration
	var busy atomic.Int64
	b.SetParallelism(32) // 64 callers on 2 cores
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			_, tm, err := p.CallTimed(context.Background(), 0, nil, false)
			if le, ok := err.(*Error); ok && le.Kind == KindBusy {
				busy.Add(1)
			} else if err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, tm.Wait)
		}
		mu.Lock()
		waits = append(waits, mine...)
		mu.Unlock()
	})
	took := time.Since(start)
	b.StopTimer()
	slices.Sort(waits)
	at := func(q float64) float64 {
		return float64(waits[int(q*float64(len(waits)-1))]) / float64(time.Microsecond)
	}
	b.ReportMetric(float64(len(waits))/took.Seconds(), "calls/s")
	b.ReportMetric(float64(busy.Load()), "busy-calls")
	b.ReportMetric(at(0.5), "p50-wait-µs")
	b.ReportMetric(at(0.99), "p99-wait-µs")
	b.ReportMetric(at(0.999), "p99.9-wait-µs")
	b.ReportMetric(at(1), "max-wait-µs")
}

// A call that waited for a state longer than the pool lets the head of its line wait is
// handed the state when it comes free: a call that comes later, and finds the state in
// that moment, waits behind it. (Before, whichever call looked first took the state, and
// under a steady load a few calls waited until their busy timeout.)
func TestLongestWaiterIsServedFirst(t *testing.T) {
	g := newGate(t)
	var mu sync.Mutex
	var order []string
	funcs := map[string]hookspec.Func{
		"block": func(ctx context.Context, _ []any) (any, error) { return nil, g.block(ctx) },
		"mark": func(_ context.Context, args []any) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, args[0].(string))
			return nil, nil
		},
	}
	p := loadPlugin(t, `function register(ctx)
  ctx.register_hook("h", function(kw)
    if kw.block then require("hermes").block() end
    require("hermes").mark(kw.name)
  end)
end`, Options{Timeout: time.Minute, BusyTimeout: time.Minute, States: 1, MaxStates: 1, HostFuncs: funcs})
	p.s.pool.starveAfter = limits.MonoTime(time.Millisecond)
	for round := range 20 {
		first := make(chan error, 1)
		go func() {
			_, err := p.Call(context.Background(), 0, map[string]any{"block": true, "name": "first"})
			first <- err
		}()
		<-g.entered
		waiting := make(chan error, 1)
		go func() { _, err := p.Call(context.Background(), 0, map[string]any{"name": "waiting"}); waiting <- err }()
		for p.s.pool.waiters.Load() == 0 {
			runtime.Gosched()
		}
		for seen := time.Now(); time.Since(seen) < 2*time.Millisecond; { // past the head's 1 ms
			runtime.Gosched()
		}
		g.release <- struct{}{}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		// The state came free as the first call returned: this call looks for it at once.
		if _, err := p.Call(context.Background(), 0, map[string]any{"name": "later"}); err != nil {
			t.Fatal(err)
		}
		if err := <-waiting; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := order
		order = nil
		mu.Unlock()
		if want := []string{"first", "waiting", "later"}; !slices.Equal(got, want) {
			t.Fatalf("round %d: calls ran in the order %v, want %v", round, got, want)
		}
	}
}

// Waits that end (their caller gave up) while every state that comes free is handed to
// the head of the line: a state handed in the moment its waiter left goes back, so that
// once the calls stop every state is idle and none is lost.
func TestHandedStatesAreNeverLost(t *testing.T) {
	p := loadPlugin(t, `function register(ctx)
  ctx.register_hook("h", function(kw) local n = 0 for i = 1, 200 do n = n + i end return n end)
end`, Options{Timeout: time.Minute, BusyTimeout: time.Minute, States: 2, MaxStates: 2})
	p.s.pool.starveAfter = 0 // every state that comes free is handed on while calls wait
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration((g*7+i)%50)*time.Microsecond)
				_, err := p.Call(ctx, 0, nil)
				cancel()
				if le, ok := err.(*Error); err != nil && (!ok || le.Kind != KindCanceled) {
					t.Error(err) // cancelled while waiting or while running is what a short deadline gives

					return
				}
			}
		}()
	}
	wg.Wait()
	pl := p.s.pool
	if n := pl.waiters.Load(); n != 0 || len(pl.line) != 0 {
		t.Fatalf("%d calls still in line (%d counted) after every call returned", len(pl.line), n)
	}
	for i := range pl.slots {
		if s := pl.slots[i].status.Load(); s == slotBusy {
			t.Fatalf("state %d is still held after every call returned: a handed state was lost", i)
		}
	}
	for range 2 { // both states are there to be taken at once
		if _, tm, err := p.CallTimed(context.Background(), 0, nil, true); err != nil || tm.Wait != 0 {
			t.Fatalf("call after the load: wait %v, %v", tm.Wait, err)
		}
	}
}

// The head of the line is handed states after a tenth of the busy timeout, from 1 to 10 ms
// (docs/lua.md).
func TestStarveAfterFollowsBusyTimeout(t *testing.T) {
	for busy, want := range map[time.Duration]time.Duration{
		5 * time.Millisecond: time.Millisecond, 50 * time.Millisecond: 5 * time.Millisecond,
		100 * time.Millisecond: 10 * time.Millisecond, 5 * time.Second: 10 * time.Millisecond,
	} {
		if got := starveAfterFor(busy); got != want {
			t.Errorf("busy_timeout %v: the head is handed states after %v, want %v", busy, got, want)
		}
	}
}
