package luabind

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

var errClosed = errors.New("closed")

// pool holds a script's Lua states: at most one per slot, created on first need. Taking
// an idle state and giving it back are a compare-and-swap and a store on the state's own
// slot, so calls of one hook running on different cores do not contend: a channel or a
// mutex shared by every call costs more than a short callback on two cores.
type pool struct {
	slots   []slot
	hints   sync.Pool // slot numbers (int), kept per processor: where to look first
	create  func(ctx context.Context) (*state, error)
	waiters atomic.Int32  // acquire calls waiting for a state
	wake    chan struct{} // a state was released or a slot emptied (buffered)
	done    chan struct{} // closed by close
	closed  atomic.Bool
	intr    atomic.Pointer[interruption] // the calls waiting now end when it is closed
}

// interruption ends the calls waiting for a state when its channel is closed, for why.
type interruption struct {
	ch  chan struct{}
	why error
}

// interrupted is the error of a call whose wait was interrupted.
type interrupted struct{ why error }

func (e interrupted) Error() string { return e.why.Error() }

// interrupt ends the calls waiting for a state now with why; calls that come later wait as
// usual.
func (p *pool) interrupt(why error) {
	old := p.intr.Swap(&interruption{ch: make(chan struct{})})
	old.why = why
	close(old.ch)
}

// Slot statuses.
const (
	slotEmpty uint32 = iota // no state
	slotIdle                // a state waits for a call
	slotBusy                // a call (or the state's creation) holds the slot
)

type slot struct {
	_      cacheLinePad
	status atomic.Uint32
	st     *state // written only by whoever holds the slot busy
}

func newPool(n int, create func(context.Context) (*state, error)) *pool {
	p := &pool{slots: make([]slot, n+1)[:n], create: create, wake: make(chan struct{}, n), done: make(chan struct{})}
	p.intr.Store(&interruption{ch: make(chan struct{})})
	return p
}

// tryIdle takes an idle state, if there is one. It looks first at the slot this processor
// released last, so that each core keeps using its own state (and its cache lines), then
// from a random slot, so that concurrent callers spread over the states.
func (p *pool) tryIdle() *state {
	n := len(p.slots)
	if n == 1 {
		if s := &p.slots[0]; s.status.CompareAndSwap(slotIdle, slotBusy) {
			return s.st
		}
		return nil
	}
	if i, ok := p.hints.Get().(int); ok {
		if s := &p.slots[i]; s.status.Load() == slotIdle && s.status.CompareAndSwap(slotIdle, slotBusy) {
			return s.st
		}
	}
	start := int(rand.Uint32() % uint32(n))
	for i := range n {
		s := &p.slots[(start+i)%n]
		if s.status.Load() == slotIdle && s.status.CompareAndSwap(slotIdle, slotBusy) {
			return s.st
		}
	}
	return nil
}

// tryCreate fills an empty slot with a new state; ok is false when every slot is taken.
func (p *pool) tryCreate(ctx context.Context) (st *state, err error, ok bool) {
	for i := range p.slots {
		s := &p.slots[i]
		if s.status.Load() != slotEmpty || !s.status.CompareAndSwap(slotEmpty, slotBusy) {
			continue
		}
		st, err = p.create(ctx)
		if err != nil {
			s.status.Store(slotEmpty)
			p.signal()
			return nil, err, true
		}
		st.slot, st.index, s.st = s, i, st
		return st, nil, true
	}
	return nil, nil, false
}

// acquire takes an idle state, creates one in an empty slot, or waits for one.
func (p *pool) acquire(ctx context.Context) (*state, error) {
	for {
		if st := p.tryIdle(); st != nil {
			return st, nil
		}
		if p.closed.Load() {
			return nil, errClosed
		}
		if st, err, ok := p.tryCreate(ctx); ok {
			return st, err
		}
		// Announce the wait before looking again: a release either sees the waiter or
		// happened before the second look.
		intr := p.intr.Load()
		p.waiters.Add(1)
		if st := p.tryIdle(); st != nil {
			p.waiters.Add(-1)
			return st, nil
		}
		select {
		case <-p.wake:
			select {
			case <-intr.ch: // woken by the state of a call the interruption ended
				p.waiters.Add(-1)
				return nil, interrupted{intr.why}
			default:
			}
		case <-p.done:
		case <-intr.ch:
			p.waiters.Add(-1)
			return nil, interrupted{intr.why}
		case <-ctx.Done():
			p.waiters.Add(-1)
			return nil, ctx.Err()
		}
		p.waiters.Add(-1)
	}
}

// signal wakes one waiter, if any.
func (p *pool) signal() {
	if p.waiters.Load() > 0 {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// release gives a state back, or closes it when the pool is closed.
func (p *pool) release(st *state) {
	if p.closed.Load() {
		p.empty(st)
		return
	}
	if len(p.slots) > 1 && len(p.slots) <= 256 { // an int below 256 boxes without allocating
		p.hints.Put(st.index)
	}
	st.slot.status.Store(slotIdle)
	if p.closed.Load() { // close may have drained the pool before the store
		p.drain()
	}
	p.signal()
}

// discard drops a state that may be inconsistent (a Go panic unwound through it); its
// slot is free for a new one.
func (p *pool) discard(st *state) {
	p.empty(st)
	p.signal()
}

// empty closes st and frees its slot; the caller holds the slot busy.
func (p *pool) empty(st *state) {
	s := st.slot
	s.st, st.slot = nil, nil
	s.status.Store(slotEmpty)
	st.close()
}

// close closes idle states now and busy ones when their call returns; waiting calls fail.
func (p *pool) close() {
	if p.closed.Swap(true) {
		return
	}
	close(p.done)
	p.drain()
}

// drain closes every idle state.
func (p *pool) drain() {
	for i := range p.slots {
		s := &p.slots[i]
		if s.status.CompareAndSwap(slotIdle, slotBusy) {
			p.empty(s.st)
		}
	}
}

// size is the number of states the pool holds.
func (p *pool) size() int {
	n := 0
	for i := range p.slots {
		if p.slots[i].status.Load() != slotEmpty {
			n++
		}
	}
	return n
}
