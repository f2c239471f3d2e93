package limits

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Call is the context of one state's calls. A state runs one call at a time, so it
// keeps one Call and re-arms it for every call: a call allocates no context, timer
// or goroutine (context.WithTimeout costs five allocations and a timer per call, a large
// share of a short hook's cost). begin arms the timeout and the memory guard, end disarms
// them; the watchdog (guard.go) stops a call past its timeout, and asks a state whose call
// saw the heap grow past its budget to measure what it holds; the interpreter polls the
// context every 1024 instructions and before every call of a Go function
// (internal/lua/vm.go).
//
// The common call, under context.Background and the timeout of the call before, that
// nothing cancelled, begins and ends with one atomic write each and no lock: the call's
// number and whether it runs are one word (Guard.run), which the watchdog and every
// cancellation read under the lock, and a cancellation claims the call it read by
// compare-and-swap, so it never reaches a later call. Any other Begin or End takes the
// lock.
type Call struct {
	_    cacheLinePad
	poll atomic.Pointer[chan struct{}] // nil, or done once closed: what PollContext returns
	done atomic.Pointer[chan struct{}] // the current call's Done channel
	n    uint64                        // the number of the current (or last) call; the state's goroutine's own

	mu         sync.Mutex // guards everything below
	parent     context.Context
	err        error
	stopParent func() bool // written by Begin and End only
	guard      Guard       // watched by heapWatch while a call runs
	_          cacheLinePad
}

// cacheLinePad keeps what one state writes on every call off the cache lines of objects
// allocated next to it (another state's): two cores writing one line take turns owning it.
// It is two lines long because x86 cores prefetch lines in pairs.
type cacheLinePad [128]byte

// NewCall makes a state's context; budget is its memory guard's (<= 0: none).
func NewCall(budget int64) *Call {
	c := &Call{parent: background}
	ch := make(chan struct{})
	c.done.Store(&ch)
	c.guard.mu, c.guard.budget = &c.mu, budget
	c.guard.expire = func(n uint64) { c.cancelLocked(n, context.DeadlineExceeded) }
	heapWatch.register(&c.guard)
	return c
}

// SetCheck gives the guard the function that asks the state to measure what it holds.
func (c *Call) SetCheck(check func()) {
	c.mu.Lock()
	c.guard.check = check
	c.mu.Unlock()
}

// Begin arms c, and its guard, for a call of at most timeout under parent. It reads no
// clock: the watchdog times the call from when it first sees it (see Guard), and the
// parent's own deadline reaches the call through its Done.
func (c *Call) Begin(parent context.Context, timeout time.Duration) {
	g := &c.guard
	// The common call: under Background, with the timeout of the call before (the state's
	// goroutine alone writes it), which ended and was not cancelled.
	if parent == background && timeout == g.timeout && g.run.Load() == c.n<<2 {
		g.forgive()
		c.n++
		g.run.Store(c.n<<2 | runLive)
		heapWatch.start()
		return
	}
	defer heapWatch.start()
	c.mu.Lock()
	defer c.mu.Unlock()
	if g.run.Load()&runCancelled != 0 || c.err != nil { // its channel is closed
		ch := make(chan struct{})
		c.done.Store(&ch)
		c.poll.Store(nil)
		c.err = nil
	}
	g.forgive()
	c.parent, g.timeout = parent, timeout
	c.n++
	n := c.n
	g.run.Store(n<<2 | runLive)
	if err := parent.Err(); err != nil {
		c.cancelLocked(n, StoppedBy(parent))
		return
	}
	if parent.Done() != nil {
		c.stopParent = context.AfterFunc(parent, func() { c.cancelGen(n, StoppedBy(parent)) })
	}
}

// End disarms c after the call. The common call (see Call) ends with a compare-and-swap
// of its word; a call that was cancelled, or that has a parent of its own to forget and
// stop watching, ends under the lock.
func (c *Call) End() {
	g := &c.guard
	if c.stopParent == nil && c.parent == background && g.run.CompareAndSwap(c.n<<2|runLive, c.n<<2) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	g.run.Store(c.n<<2 | g.run.Load()&runCancelled) // a cancellation stays for Begin to see
	if c.stopParent != nil {
		c.stopParent()
		c.stopParent = nil
	}
	c.parent = background
}

// background is the parent of a state's Call between calls.
var background = context.Background()

func (c *Call) cancelGen(n uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancelLocked(n, err)
}

// Interrupt stops the call in flight, if any, because the hook is being closed.
func (c *Call) Interrupt(why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancelLocked(0, &HostStop{err: context.Canceled, why: why})
}

// HostStop is why a call ended early on its caller's side rather than at its own timeout:
// the host's context was cancelled or passed its deadline, or the hook was closed. It is
// the call context's Err and unwraps to context.Canceled or context.DeadlineExceeded.
type HostStop struct {
	err error // what the host's context said
	why error // its cause, when it gave one
}

func StoppedBy(parent context.Context) *HostStop {
	return &HostStop{err: parent.Err(), why: context.Cause(parent)}
}

func (h *HostStop) Error() string { return h.err.Error() }
func (h *HostStop) Unwrap() error { return h.err }

// Message says what stopped the call, for its Error.
func (h *HostStop) Message() string {
	msg := "canceled by the host"
	if errors.Is(h.err, context.DeadlineExceeded) {
		msg = "canceled by the host: its context's deadline passed"
	}
	if h.why != nil && h.why != h.err {
		msg += " (" + h.why.Error() + ")"
	}
	return msg
}

// cancelLocked cancels call n (0: the one running) with err, when it runs and nothing
// cancelled it yet; the caller holds c.mu. It claims the call by compare-and-swap of its
// word, which fails when the call ended meanwhile (End takes no lock): then a later call,
// which reuses the channel, is not reached.
func (c *Call) cancelLocked(n uint64, err error) {
	g := &c.guard
	w := g.run.Load()
	if w&runLive == 0 || w&runCancelled != 0 || n != 0 && w>>2 != n || !g.run.CompareAndSwap(w, w|runCancelled) {
		return
	}
	c.err = err
	close(*c.done.Load())
	c.poll.Store(c.done.Load())
}

// Deadline implements context.Context: the parent's deadline, if it has one. The call's own
// timeout is not known as a point in time (begin reads no clock); it reaches host functions
// through Done.
func (c *Call) Deadline() (time.Time, bool) {
	c.mu.Lock()
	p := c.parent
	c.mu.Unlock()
	return p.Deadline()
}

// Done implements context.Context.
func (c *Call) Done() <-chan struct{} { return *c.done.Load() }

// Err implements context.Context.
func (c *Call) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value implements context.Context.
func (c *Call) Value(key any) any {
	c.mu.Lock()
	p := c.parent
	c.mu.Unlock()
	return p.Value(key)
}

// PollContext is the view of a Call the interpreter polls: it is a
// lua.ContextPoller, whose Stopped reads one pointer that stays nil until the call is
// cancelled, where a receive from a channel reads the channel's lock word, which two cores
// running two states keep stealing from each other when the channels sit on one cache line.
// Its Done is nil until the call is cancelled, for the same reason (a context derived from
// it, such as gopher-lua's coroutines' before luabind/sandbox.go replaces it, registers nothing).
// Host functions, which wait on Done, get the Call itself through limits.Context.
// Successive calls of Done may return different values, so a PollContext must not be
// handed to anything but the interpreter.
type PollContext struct{ *Call }

// Stopped implements lua.ContextPoller: whether the call was cancelled.
func (p PollContext) Stopped() bool { return p.poll.Load() != nil }

// Done implements context.Context, for the interpreter only.
func (p PollContext) Done() <-chan struct{} {
	if ch := p.poll.Load(); ch != nil {
		return *ch
	}
	return nil
}

// HostContext implements limits.HostContexter: host functions wait on the Call.
func (p PollContext) HostContext() context.Context { return p.Call }

// MonoTime is a point in time as the monotonic clock's nanoseconds since clockBase. Reading
// it (MonoNow) costs one clock read where time.Now costs two (wall and monotonic); on a
// virtual machine a read can take 50ns, a tenth of a short call.
type MonoTime time.Duration

var clockBase = time.Now()

func MonoNow() MonoTime { return MonoTime(time.Since(clockBase)) }

// Guard is the call's memory and timeout guard.
func (c *Call) Guard() *Guard { return &c.guard }

// Poll is the context the interpreter polls (and coroutines): a PollContext of c.
func (c *Call) Poll() PollContext { return PollContext{c} }

// SetWaiter tells the guard whom to tell of the call's waits outside Lua (IOBegin, IOEnd).
func (c *Call) SetWaiter(w Waiter) {
	c.mu.Lock()
	c.guard.pool = w
	c.mu.Unlock()
}

// Close stops the watchdog's watching of c's state, which is closing.
func (c *Call) Close() { heapWatch.unregister(&c.guard) }
