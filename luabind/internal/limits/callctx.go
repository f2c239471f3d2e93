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
type Call struct {
	_    cacheLinePad
	poll atomic.Pointer[chan struct{}] // nil, or done once closed: what PollContext returns
	done atomic.Pointer[chan struct{}] // the current call's Done channel

	mu         sync.Mutex // guards everything below
	parent     context.Context
	err        error
	armed      bool   // a call was armed; it runs until End (live)
	gen        uint64 // which call is armed, for the parent's late cancellation; written by Begin only
	stopParent func() bool
	guard      Guard  // watched by heapWatch while a call is armed
	budget     int64  // the guard's memory budget; <= 0: none
	onDeadline func() // the guard's expire, bound once
	_          cacheLinePad
}

// cacheLinePad keeps what one state writes on every call off the cache lines of objects
// allocated next to it (another state's): two cores writing one line take turns owning it.
// It is two lines long because x86 cores prefetch lines in pairs.
type cacheLinePad [128]byte

// NewCall makes a state's context; budget is its memory guard's (<= 0: none).
func NewCall(budget int64) *Call {
	c := &Call{parent: background, budget: budget}
	ch := make(chan struct{})
	c.done.Store(&ch)
	c.guard.mu = &c.mu
	c.onDeadline = func() {
		if c.live() {
			c.cancelLocked(context.DeadlineExceeded)
		}
	}
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
	defer heapWatch.start()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil { // the previous call was cancelled: its channel is closed
		ch := make(chan struct{})
		c.done.Store(&ch)
		c.poll.Store(nil)
		c.err = nil
	}
	c.parent, c.armed = parent, true
	c.gen++
	c.guard.arm(c.budget, timeout, c.onDeadline, c.gen)
	if err := parent.Err(); err != nil {
		c.cancelLocked(StoppedBy(parent))
		return
	}
	if parent.Done() != nil {
		gen := c.gen
		c.stopParent = context.AfterFunc(parent, func() { c.cancelGen(gen, StoppedBy(parent)) })
	}
}

// End disarms c after the call. A call under context.Background (no AfterFunc to stop, no
// parent to forget) ends with one atomic store and no lock: the call and its guard are no
// longer live (Guard.ended), which is what the watchdog and every cancellation look at
// under the lock, and the next Begin re-arms the rest under it. A cancellation that looked
// just before the store may still cancel the call that ended: Begin then starts the next
// one afresh, as after any cancelled call.
func (c *Call) End() {
	if c.stopParent == nil && c.parent == background {
		c.guard.ended.Store(c.gen)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed = false
	c.guard.disarm()
	if c.stopParent != nil {
		c.stopParent()
		c.stopParent = nil
	}
	c.parent = background
}

// background is the parent of a state's Call between calls.
var background = context.Background()

// live reports whether a call is armed and has not ended; the caller holds c.mu.
func (c *Call) live() bool { return c.armed && c.guard.live() }

func (c *Call) cancelGen(gen uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live() && c.gen == gen {
		c.cancelLocked(err)
	}
}

// Interrupt stops the call in flight, if any, because the hook is being closed.
func (c *Call) Interrupt(why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live() {
		c.cancelLocked(&HostStop{err: context.Canceled, why: why})
	}
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

func (c *Call) cancelLocked(err error) {
	if c.err == nil {
		c.err = err
		close(*c.done.Load())
		c.poll.Store(c.done.Load())
	}
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
