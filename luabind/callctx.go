package luabind

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// callContext is the context of one state's calls. A state runs one call at a time, so it
// keeps one callContext and re-arms it for every call: a call allocates no context, timer
// or goroutine (context.WithTimeout costs five allocations and a timer per call, a large
// share of a short hook's cost). begin arms the deadline, end disarms it; the interpreter
// polls Done between instructions.
type callContext struct {
	done atomic.Pointer[chan struct{}] // read by Done on every instruction

	mu         sync.Mutex // guards everything below
	parent     context.Context
	deadline   time.Time
	err        error
	armed      bool
	gen        uint64 // which call is armed, for the parent's late cancellation
	timer      *time.Timer
	stopParent func() bool
}

func newCallContext() *callContext {
	c := &callContext{parent: context.Background()}
	ch := make(chan struct{})
	c.done.Store(&ch)
	return c
}

// begin arms c for a call of at most timeout under parent.
func (c *callContext) begin(parent context.Context, timeout time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil { // the previous call was cancelled: its channel is closed
		ch := make(chan struct{})
		c.done.Store(&ch)
		c.err = nil
	}
	c.parent, c.armed = parent, true
	c.gen++
	c.deadline = time.Now().Add(timeout)
	if d, ok := parent.Deadline(); ok && d.Before(c.deadline) {
		c.deadline = d
	}
	if err := parent.Err(); err != nil {
		c.cancelLocked(err)
		return
	}
	wait := time.Until(c.deadline)
	if c.timer == nil {
		c.timer = time.AfterFunc(wait, c.expire)
	} else {
		c.timer.Reset(wait)
	}
	if parent.Done() != nil {
		gen := c.gen
		c.stopParent = context.AfterFunc(parent, func() { c.cancelGen(gen, parent.Err()) })
	}
}

// end disarms c after the call.
func (c *callContext) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed = false
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.stopParent != nil {
		c.stopParent()
		c.stopParent = nil
	}
	c.parent = context.Background()
}

// expire runs when the timer fires. A firing left over from an earlier call finds the
// call disarmed or its deadline not reached, and does nothing.
func (c *callContext) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed && !time.Now().Before(c.deadline) {
		c.cancelLocked(context.DeadlineExceeded)
	}
}

// cancel stops the call in progress (the memory guard uses it).
func (c *callContext) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed {
		c.cancelLocked(context.Canceled)
	}
}

func (c *callContext) cancelGen(gen uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed && c.gen == gen {
		c.cancelLocked(err)
	}
}

func (c *callContext) cancelLocked(err error) {
	if c.err == nil {
		c.err = err
		close(*c.done.Load())
	}
}

// Deadline implements context.Context.
func (c *callContext) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline, c.armed
}

// Done implements context.Context.
func (c *callContext) Done() <-chan struct{} { return *c.done.Load() }

// Err implements context.Context.
func (c *callContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value implements context.Context.
func (c *callContext) Value(key any) any {
	c.mu.Lock()
	p := c.parent
	c.mu.Unlock()
	return p.Value(key)
}
