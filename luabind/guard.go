package luabind

import (
	"context"
	"fmt"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// defaultMemoryLimit is the heap growth a call may cause when Options.MemoryLimit is 0.
const defaultMemoryLimit = 256 << 20

// A callGuard watches the calls of one state (and its loading). It is registered with the
// watchdog once, when the state is built, and armed for each call under the lock of the
// state's callContext, which the call takes anyway: watching a call costs no lock and no
// allocation of its own, and states never contend with each other.
type callGuard struct {
	mu      *sync.Mutex        // guards the fields below against the sampler
	active  bool               // a call is being watched
	budget  int64              // heap growth allowed; <= 0: no memory check
	cancel  context.CancelFunc // stops the call; nil once used
	timeout time.Duration      // how long the call may run; 0: no limit
	seen    bool               // the sampler has seen the call ...
	since   monoTime           // ... first at this time
	expire  func()             // times the call out; nil once used
	sampled bool               // base and last are set
	base    int64              // heap size the call's growth is measured from

	waiting  atomic.Int32 // > 0 while the call waits in a host function (sleep, http, exec, ...)
	forgiven atomic.Int64 // heap growth during the call's waits, which is the host's
	tripped  atomic.Bool  // the watchdog stopped the call
}

// wait marks the call as blocked in a host function (sleep, http, exec, a host function)
// until the returned func is called. What the heap gains meanwhile is the host's and is
// forgiven, so the wait must not cover building what Lua receives (strings copied out of
// a response, tables converted from a result). What the call grew before the wait is
// judged when the wait starts, so a call that allocates and then waits, again and again,
// cannot hide its growth in the waits.
func (g *callGuard) wait() (done func()) {
	h0 := heapObjects()
	g.mu.Lock()
	g.judge(h0)
	g.mu.Unlock()
	g.waiting.Add(1)
	return func() {
		if d := heapObjects() - h0; d > 0 {
			g.forgiven.Add(d)
		}
		g.waiting.Add(-1)
	}
}

// heapObjects reads the bytes in heap objects, live or not yet swept (about 250ns).
func heapObjects() int64 {
	s := [1]metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s[:])
	return int64(s[0].Value.Uint64())
}

// limitError is the error of a call the watchdog stopped.
func (g *callGuard) limitError(file string) *Error {
	return &Error{Kind: KindLimit, File: file, Msg: fmt.Sprintf(
		"%smemory: the call grew the heap by more than %s (runaway allocation?)", limitPrefix, byteSize(g.budget))}
}

// watchdog samples the Go heap while Lua calls are in flight and stops a call whose growth
// passes its budget, or that has run for its timeout, by cancelling the call's context: the
// interpreter polls it every 1024 instructions and before every call of a Go function
// (internal/lua/vm.go). One sampler goroutine serves every call in the process, because the
// heap is one process-wide resource; it runs only while calls are in flight, and exits after
// a second without any (see doc.go).
type watchdog struct {
	every time.Duration // sampling period
	idle  time.Duration // the sampler exits after this long without calls

	running atomic.Bool // the sampler goroutine is running; read by every call, so never
	// put a field written per call next to it

	mu     sync.Mutex // guards guards
	guards map[*callGuard]struct{}

	// What hooks keep between calls (a growing global) is not growth of any one call. The
	// sampler watches the heap that survived the last collection; each time it has grown by
	// retainStep since the last mark, epoch advances, and every state measures what it keeps
	// at the end of its next call (see keptSize).
	epoch    atomic.Uint64
	liveMark int64 // guarded by mu
}

// retainStep is the growth of the live heap after which every state measures what it keeps.
const retainStep = 32 << 20

// noteLive advances the epoch when the live heap has grown by retainStep since the mark.
func (w *watchdog) noteLive(live int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case live < w.liveMark:
		w.liveMark = live
	case live-w.liveMark > retainStep:
		w.liveMark = live
		w.epoch.Add(1)
	}
}

var heapWatch = &watchdog{every: 5 * time.Millisecond, idle: time.Second, guards: map[*callGuard]struct{}{}}

// register adds a state's guard; unregister removes it when the state closes.
func (w *watchdog) register(g *callGuard) {
	w.mu.Lock()
	w.guards[g] = struct{}{}
	w.mu.Unlock()
}

func (w *watchdog) unregister(g *callGuard) {
	w.mu.Lock()
	delete(w.guards, g)
	w.mu.Unlock()
}

// watch starts watching g for a call: cancel stops it when it grows the heap by more than
// budget (<= 0: no limit), expire when it has run for timeout (0: no limit). The sampler
// times the call from the first sample that sees it, which is at most one period after it
// started: a call is never stopped early, and at most two periods late. In return a call
// arms no timer and reads no clock. The sampler calls cancel and expire holding g.mu.
func (w *watchdog) watch(g *callGuard, budget int64, timeout time.Duration, cancel context.CancelFunc, expire func()) {
	g.mu.Lock()
	g.arm(budget, timeout, cancel, expire)
	g.mu.Unlock()
	w.start()
}

// unwatch stops watching g.
func (w *watchdog) unwatch(g *callGuard) {
	g.mu.Lock()
	g.disarm()
	g.mu.Unlock()
}

// arm and disarm are watch and unwatch for a caller holding g.mu, which must then call
// start.
func (g *callGuard) arm(budget int64, timeout time.Duration, cancel context.CancelFunc, expire func()) {
	g.tripped.Store(false)
	g.forgiven.Store(0)
	g.active, g.budget, g.cancel, g.sampled = true, budget, cancel, false
	g.timeout, g.expire, g.seen = timeout, expire, false
}

func (g *callGuard) disarm() { g.active, g.cancel, g.expire = false, nil, nil }

// start makes sure the sampler runs.
func (w *watchdog) start() {
	if !w.running.Load() && w.running.CompareAndSwap(false, true) {
		go w.run()
	}
}

// run is the sampler goroutine.
func (w *watchdog) run() {
	t := time.NewTicker(w.every)
	defer t.Stop()
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/goal:bytes"}, {Name: "/gc/heap/live:bytes"}}
	lastBusy := monoNow()
	for range t.C {
		now := monoNow()
		metrics.Read(samples)
		w.noteLive(int64(samples[2].Value.Uint64()))
		if w.check(int64(samples[0].Value.Uint64()), int64(samples[1].Value.Uint64()), now) {
			lastBusy = now
			continue
		}
		if time.Duration(now-lastBusy) < w.idle {
			continue
		}
		w.running.Store(false)
		// A call may have started between the check and the store: keep going for it
		// unless another sampler has already been started.
		if !w.busy() || !w.running.CompareAndSwap(false, true) {
			return
		}
	}
}

// busy reports whether a call is being watched.
func (w *watchdog) busy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for g := range w.guards {
		g.mu.Lock()
		active := g.active
		g.mu.Unlock()
		if active {
			return true
		}
	}
	return false
}

// check compares one heap sample with every watched call. A call's first sample sets its
// base: the heap then, plus the headroom the GC was going to allow anyway (the heap goal,
// at most the budget), so that garbage others leave behind does not count against it.
// While a call waits in a host function its base follows the heap up.
// A call that has run for its timeout is expired. check reports whether any call is being
// watched.
func (w *watchdog) check(heap, goal int64, now monoTime) (busy bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for g := range w.guards {
		g.mu.Lock()
		if g.active {
			busy = true
			if !g.seen {
				g.seen, g.since = true, now
			} else if g.expire != nil && g.timeout > 0 && time.Duration(now-g.since) >= g.timeout {
				g.expire()
				g.expire = nil
			}
			if g.budget > 0 {
				g.sample(heap, goal)
			}
		}
		g.mu.Unlock()
	}
	return busy
}

func (g *callGuard) sample(heap, goal int64) {
	if !g.sampled {
		g.sampled, g.base = true, heap+min(max(goal-heap, 0), g.budget)
		return
	}
	if g.waiting.Load() == 0 { // a wait in progress is judged when it ends
		g.judge(heap)
	}
}

// judge stops the call when the heap, less what its waits are forgiven, has grown past
// its budget since its first sample. The caller holds g.mu.
func (g *callGuard) judge(heap int64) {
	if !g.active || !g.sampled || g.budget <= 0 || g.cancel == nil {
		return
	}
	if heap-g.forgiven.Load()-g.base > g.budget {
		g.tripped.Store(true)
		g.cancel()
		g.cancel = nil
	}
}

// byteSize formats n for messages: "256 MiB", "1 MiB", "512 bytes".
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
