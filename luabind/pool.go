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
//
// A call waiting on I/O (a store, http, exec, time.sleep or host function call) does not
// hold the line: while fewer than len(slots) of the pool's calls are running Lua (the others
// wait on I/O), a call that finds every state busy takes an extra state, idle or built in
// an empty extra slot. Extra states stay for reuse until the pool closes; at most
// len(all) states exist.
type pool struct {
	slots   []slot    // the states calls running Lua share: all[:states]
	all     []slot    // slots, then the extra ones, taken only while calls wait on I/O
	hints   sync.Pool // slot numbers (int), kept per processor: where to look first
	create  func(ctx context.Context) (*state, error)
	limit   atomic.Int32  // how many of all may hold a state: len(all), or less until raise
	waiters atomic.Int32  // acquire calls waiting for a state
	inIO    atomic.Int32  // calls of the pool now waiting on I/O (IOBegin, IOEnd)
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

// newPool makes a pool of n states that may grow to limit while calls wait on I/O (limit
// < n: n), and later to room (raise).
func newPool(n, limit, room int, create func(context.Context) (*state, error)) *pool {
	limit = max(n, limit)
	room = max(limit, room)
	all := make([]slot, room+1)[:room] // one slot more: the last one's padding ends the array
	p := &pool{slots: all[:n:n], all: all, create: create, wake: make(chan struct{}, room), done: make(chan struct{})}
	p.limit.Store(int32(limit))
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

// tryCreate fills an empty slot of all[from:to] with a new state; ok is false when every
// one is taken.
func (p *pool) tryCreate(ctx context.Context, from, to int) (st *state, err error, ok bool) {
	for i := from; i < to; i++ {
		s := &p.all[i]
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

// tryExtra takes an idle extra state, or builds one in an empty extra slot, when a call
// waits on I/O and fewer than len(slots) calls are running Lua; ok is false when it may
// not or every extra slot is busy.
func (p *pool) tryExtra(ctx context.Context) (st *state, err error, ok bool) {
	n, limit := len(p.slots), int(p.limit.Load())
	if limit == n || p.inIO.Load() == 0 || p.running() >= n {
		return nil, nil, false
	}
	for i := n; i < limit; i++ {
		if s := &p.all[i]; s.status.Load() == slotIdle && s.status.CompareAndSwap(slotIdle, slotBusy) {
			return s.st, nil, true
		}
	}
	return p.tryCreate(ctx, n, limit)
}

// raise lets the pool grow to limit (at most its room) from now on.
func (p *pool) raise(limit int) {
	p.limit.Store(int32(min(max(limit, int(p.limit.Load())), len(p.all))))
}

// running is how many of the pool's calls are running Lua (or building a state) rather
// than waiting on I/O.
func (p *pool) running() int {
	busy := 0
	for i := range p.all {
		if p.all[i].status.Load() == slotBusy {
			busy++
		}
	}
	return busy - int(p.inIO.Load())
}

// IOBegin marks a call of the pool as waiting on I/O until IOEnd: a call waiting for a
// state may then take an extra one (tryExtra).
func (p *pool) IOBegin() {
	p.inIO.Add(1)
	p.signal()
}

func (p *pool) IOEnd() { p.inIO.Add(-1) }

// acquire takes an idle state, creates one in an empty slot, or waits for one.
func (p *pool) acquire(ctx context.Context) (*state, error) {
	for {
		if st := p.tryIdle(); st != nil {
			return st, nil
		}
		if p.closed.Load() {
			return nil, errClosed
		}
		if st, err, ok := p.tryCreate(ctx, 0, len(p.slots)); ok {
			return st, err
		}
		if st, err, ok := p.tryExtra(ctx); ok {
			return st, err
		}
		// Announce the wait before looking again: a release or an I/O wait either sees the
		// waiter or happened before the second look.
		intr := p.intr.Load()
		p.waiters.Add(1)
		if st := p.tryIdle(); st != nil {
			p.waiters.Add(-1)
			return st, nil
		}
		if st, err, ok := p.tryExtra(ctx); ok {
			p.waiters.Add(-1)
			return st, err
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
	if n := len(p.slots); n > 1 && n <= 256 && st.index < n { // an int below 256 boxes without allocating
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
	for i := range p.all {
		s := &p.all[i]
		if s.status.CompareAndSwap(slotIdle, slotBusy) {
			p.empty(s.st)
		}
	}
}

// size is the number of states the pool holds.
func (p *pool) size() int {
	n := 0
	for i := range p.all {
		if p.all[i].status.Load() != slotEmpty {
			n++
		}
	}
	return n
}

// cacheLinePad keeps what one state writes on every call off the cache lines of objects
// allocated next to it (another state's): two cores writing one line take turns owning it.
// It is two lines long because x86 cores prefetch lines in pairs (as limits.Call's).
type cacheLinePad [128]byte
