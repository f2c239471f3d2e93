package limits

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Waiter is told when a call starts and stops waiting outside Lua: the pool of the call's
// state, which lets other calls have a state meanwhile.
type Waiter interface {
	IOBegin()
	IOEnd()
}

// A Guard watches the calls of one state (and its loading). It is registered with the
// watchdog once, when the state is built, and armed for each call by the call's word (run),
// which the state's Call writes: watching a call costs no lock and no allocation of its
// own, and states never contend with each other. What the watchdog keeps of a call
// (seen, since, sampled, base) it resets itself when it first sees a call's number.
//
// The memory limit itself is the state's memory account (internal/lua/memory.go), charged where the
// interpreter allocates. The guard is its backstop: when the process heap has grown by
// more than the budget while the call ran, the guard asks the state to measure what it
// holds at its next allocation (check), and the account decides. A call is never stopped
// because the heap grew: another hook may have grown it.
type Guard struct {
	// run is the call being watched: its number times 4, plus runLive while it runs, and
	// runCancelled once a cancellation claimed it (Call.cancelLocked). The state's goroutine
	// writes it without the lock for the common call (Call.Begin, End); a cancellation
	// claims a call by compare-and-swap under the lock.
	run atomic.Uint64

	mu      *sync.Mutex       // guards the fields below against the sampler
	budget  int64             // heap growth that makes the state measure itself; <= 0: none
	check   func()            // asks the state to measure what it holds; safe from any goroutine
	timeout time.Duration     // how long a call may run; 0: no limit. Written by the state's goroutine only
	expire  func(call uint64) // times call number call out; called with mu held
	seenRun uint64            // the number of the call the fields below are about
	seen    bool              // the sampler has seen the call ...
	since   MonoTime          // ... first at this time
	expired bool              // expire was called for it
	sampled bool              // base is set
	base    int64             // heap size the call's growth is measured from

	pool      Waiter       // the state's pool, told of each wait (IOBegin): a waiting call does not hold the line
	paused    bool         // the call's clock is stopped (Pause): it is not timed out meanwhile
	pausedRun uint64       // the number of the call paused
	pausedAt  MonoTime     // when the pause began
	waiting   atomic.Int32 // > 0 while the call waits in a host function (sleep, http, exec, ...)
	forgiven  atomic.Int64 // heap growth during the call's waits, which is the host's
	checks    atomic.Int32 // times the guard asked for a check (for tests)
	outside   atomic.Bool  // the state read something outside Lua: waited in a host function, or MarkOutside
}

// Wait marks the call as blocked in a host function (sleep, http, exec, a host function)
// until the returned func is called. What the heap gains meanwhile is the host's and is
// forgiven, so the wait must not cover building what Lua receives (strings copied out of
// a response, tables converted from a result). What the call grew before the wait is
// judged when the wait starts, so a call that allocates and then waits, again and again,
// cannot hide its growth in the waits. The state's pool counts the wait too, so that other
// calls of the hook need not wait for this one's state meanwhile (the pool's tryExtra).
func (g *Guard) Wait() (done func()) {
	g.MarkOutside()
	h0 := heapObjects()
	g.mu.Lock()
	g.judge(h0)
	g.mu.Unlock()
	g.waiting.Add(1)
	if g.pool != nil {
		g.pool.IOBegin()
	}
	return func() {
		if g.pool != nil {
			g.pool.IOEnd()
		}
		if d := heapObjects() - h0; d > 0 {
			g.forgiven.Add(d)
		}
		g.waiting.Add(-1)
	}
}

// MarkOutside records that the state read something from outside Lua without waiting (the
// clock, the environment, a file): what it computed may differ from one load to the next.
// Every Wait marks it too.
func (g *Guard) MarkOutside() {
	if !g.outside.Load() { // a load, not a write, on the calls after the first
		g.outside.Store(true)
	}
}

// Outside reports whether the state read something from outside Lua since it was made
// (MarkOutside, Wait).
func (g *Guard) Outside() bool { return g.outside.Load() }

// Pause stops the call's clock until the returned func is called: the time between is not
// the call's own and never times it out (a wrap hook waiting in next for the call it wraps).
// It is a Wait as well: the pool lets other calls have a state meanwhile. The caller's
// context still bounds the whole call.
func (g *Guard) Pause() (resume func()) {
	done := g.Wait()
	g.mu.Lock()
	g.paused, g.pausedRun, g.pausedAt = true, g.run.Load()>>2, MonoNow()
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		if g.paused && g.seen && g.seenRun == g.pausedRun { // the sampler's clock for the call moves on by the pause
			g.since += MonoNow() - g.pausedAt
		}
		g.paused = false
		g.mu.Unlock()
		done()
	}
}

// heapObjects reads the bytes in heap objects, live or not yet swept (about 250ns).
func heapObjects() int64 {
	s := [1]metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s[:])
	return int64(s[0].Value.Uint64())
}

// watchdog samples the Go heap while Lua calls are in flight, stops a call that has run
// for its timeout by cancelling its context (the interpreter polls it every 1024
// instructions and before every call of a Go function, internal/lua/vm.go), and asks a
// state whose call has seen the heap grow by more than its budget to measure what it
// holds. One sampler goroutine serves every call in the process, because the heap is one
// process-wide resource; it runs only while calls are in flight, and exits after a second
// without any (see doc.go).
type watchdog struct {
	every time.Duration // sampling period
	idle  time.Duration // the sampler exits after this long without calls

	running atomic.Bool // the sampler goroutine is running; read by every call, so never
	// put a field written per call next to it

	mu     sync.Mutex // guards guards
	guards map[*Guard]struct{}
}

var heapWatch = &watchdog{every: 5 * time.Millisecond, idle: time.Second, guards: map[*Guard]struct{}{}}

// register adds a state's guard; unregister removes it when the state closes.
func (w *watchdog) register(g *Guard) {
	w.mu.Lock()
	w.guards[g] = struct{}{}
	w.mu.Unlock()
}

func (w *watchdog) unregister(g *Guard) {
	w.mu.Lock()
	delete(w.guards, g)
	w.mu.Unlock()
}

// Bits of Guard.run below the call's number.
const (
	runLive      = 1 // the call runs
	runCancelled = 2 // a cancellation claimed it
)

// watch starts watching g for a call (a Call's Begin does it for its state): g.check runs
// when the call has seen the heap grow by more than budget (<= 0: never), expire when it
// has run for timeout (0: no limit). The sampler times the call from the first sample
// that sees it, which is at most one period after it started: a call is never stopped
// early, and at most two periods late. In return a call arms no timer and reads no clock.
// The sampler calls check and expire holding g.mu.
func (w *watchdog) watch(g *Guard, budget int64, timeout time.Duration, expire func()) {
	g.mu.Lock()
	g.budget, g.timeout, g.expire = budget, timeout, nil
	if expire != nil {
		g.expire = func(uint64) { expire() }
	}
	g.forgive()
	g.run.Store((g.run.Load()>>2+1)<<2 | runLive)
	g.mu.Unlock()
	w.start()
}

// unwatch stops watching g.
func (w *watchdog) unwatch(g *Guard) {
	g.mu.Lock()
	g.run.Store(g.run.Load() >> 2 << 2)
	g.mu.Unlock()
}

// forgive starts a call with nothing forgiven.
func (g *Guard) forgive() {
	if g.forgiven.Load() != 0 { // a store is a locked instruction: most calls never waited
		g.forgiven.Store(0)
	}
}

// live reports whether a call is being watched.
func (g *Guard) live() bool { return g.run.Load()&runLive != 0 }

// seeCall brings the sampler's view up to the call running now, number n: a call not seen
// before starts with nothing seen, sampled or expired.
func (g *Guard) seeCall(n uint64) {
	if g.seenRun != n {
		g.seenRun, g.seen, g.sampled, g.expired = n, false, false, false
	}
}

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
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	lastBusy := MonoNow()
	for range t.C {
		now := MonoNow()
		metrics.Read(samples)
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
		active := g.live()
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
func (w *watchdog) check(heap, goal int64, now MonoTime) (busy bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for g := range w.guards {
		g.mu.Lock()
		if run := g.run.Load(); run&runLive != 0 {
			busy = true
			n := run >> 2
			g.seeCall(n)
			if g.paused && g.pausedRun == n { // not the call's time: neither first seen nor expired now
			} else if !g.seen {
				g.seen, g.since = true, now
			} else if !g.expired && g.expire != nil && g.timeout > 0 && time.Duration(now-g.since) >= g.timeout {
				g.expire(n)
				g.expired = true
			}
			if g.budget > 0 {
				g.sample(heap, goal)
			}
		}
		g.mu.Unlock()
	}
	return busy
}

func (g *Guard) sample(heap, goal int64) {
	if !g.sampled {
		g.sampled, g.base = true, heap+min(max(goal-heap, 0), g.budget)
		return
	}
	if g.waiting.Load() == 0 { // a wait in progress is judged when it ends
		g.judge(heap)
	}
}

// judge asks the state to measure what it holds when the heap, less what the call's waits
// are forgiven, has grown past its budget since the base, and moves the base up to the
// heap: the next request needs another budget of growth. The caller holds g.mu.
func (g *Guard) judge(heap int64) {
	if run := g.run.Load(); run&runLive == 0 || g.seenRun != run>>2 || !g.sampled || g.budget <= 0 || g.check == nil {
		return
	}
	if heap-g.forgiven.Load()-g.base > g.budget {
		g.checks.Add(1)
		g.check()
		g.base = heap - g.forgiven.Load()
	}
}

// Timeout is how long the call being watched may run; 0: no limit.
func (g *Guard) Timeout() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.timeout
}

// Budget is the memory budget of the call being watched; <= 0: none.
func (g *Guard) Budget() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.budget
}
