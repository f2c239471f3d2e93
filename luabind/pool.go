package luabind

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
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
//
// Calls that find no state wait in line (wait): a call that waited a few milliseconds is
// handed the next state, so that calls coming later cannot keep it waiting until its busy
// timeout.
type pool struct {
	slots   []slot    // the states calls running Lua share: all[:states]
	all     []slot    // slots, then the extra ones, taken only while calls wait on I/O
	hints   sync.Pool // slot numbers (int), kept per processor: where to look first
	create  func(ctx context.Context) (*state, error)
	limit   atomic.Int32  // how many of all may hold a state: len(all), or less until raise
	inIO    atomic.Int32  // calls of the pool now waiting on I/O (IOBegin, IOEnd)
	done    chan struct{} // closed by close
	lineMu  sync.Mutex
	line    []*waiter    // the calls waiting for a state, in the order they came
	waiters atomic.Int32 // len(line)
	// starveAfter is how long the head of the line waits before states are handed to it.
	starveAfter limits.MonoTime
	closed      atomic.Bool
	intr        atomic.Pointer[interruption] // the calls waiting now end when it is closed
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
// < n: n), and later to room (raise), for calls that wait at most busy for a state.
func newPool(n, limit, room int, busy time.Duration, create func(context.Context) (*state, error)) *pool {
	limit = max(n, limit)
	room = max(limit, room)
	all := make([]slot, room+1)[:room] // one slot more: the last one's padding ends the array
	p := &pool{slots: all[:n:n], all: all, create: create, done: make(chan struct{})}
	p.starveAfter = limits.MonoTime(starveAfterFor(busy))
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
			p.wakeNext()
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
	p.wakeNext()
}

func (p *pool) IOEnd() { p.inIO.Add(-1) }

// acquire takes an idle state, creates one in an empty slot, or waits for one in line.
func (p *pool) acquire(ctx context.Context) (*state, error) {
	if st, err, ok := p.take(ctx); ok {
		return st, err
	}
	return p.wait(ctx)
}

// take takes an idle state, or builds one in an empty slot, or takes an extra one; ok is
// false when none of the three may be had now. A closed pool builds none: its error is
// errClosed.
func (p *pool) take(ctx context.Context) (st *state, err error, ok bool) {
	if st := p.tryIdle(); st != nil {
		return st, nil, true
	}
	if p.closed.Load() {
		return nil, errClosed, true
	}
	if st, err, ok := p.tryCreate(ctx, 0, len(p.slots)); ok {
		return st, err, true
	}
	return p.tryExtra(ctx)
}

// waiter is a call waiting in the pool's line.
type waiter struct {
	since  limits.MonoTime // when it joined the line
	wake   chan struct{}   // a state may be free: look again (buffered, 1)
	woken  bool            // wake was sent and not yet seen (guarded by lineMu)
	handed chan *state     // the state release handed it (buffered, 1)
}

// wait waits in line for a state. Each state that comes free wakes the first call in line
// not woken yet, which takes it like any other caller; once the head of the line has
// waited starveAfter, a state
// that comes free is handed to it instead (starveAfterFor), so that no call waits long
// while others that came later run, as sync.Mutex's starvation mode and database/sql's
// pool do.
func (p *pool) wait(ctx context.Context) (*state, error) {
	intr := p.intr.Load()
	w := &waiter{since: limits.MonoNow(), wake: make(chan struct{}, 1), handed: make(chan *state, 1)}
	p.lineMu.Lock()
	p.line = append(p.line, w)
	p.waiters.Add(1)
	p.lineMu.Unlock()
	for {
		// Look again after joining the line: a state that came free before the release
		// saw this call is idle now.
		if st, err, ok := p.take(ctx); ok {
			p.leave(w, st)
			return st, err
		}
		select {
		case st := <-w.handed: // release took it out of the line
			p.wakeNext() // the next call may take an extra state meanwhile, as leave lets it
			return p.checked(st, intr)
		case <-w.wake:
			p.lineMu.Lock()
			w.woken = false // a state that comes free from now on may wake it again
			p.lineMu.Unlock()
			select {
			case <-intr.ch: // woken by the state of a call the interruption ended
				p.leave(w, nil)
				return nil, interrupted{intr.why}
			default:
			}
		case <-p.done:
			p.leave(w, nil)
			return nil, errClosed
		case <-intr.ch:
			p.leave(w, nil)
			return nil, interrupted{intr.why}
		case <-ctx.Done():
			p.leave(w, nil)
			return nil, ctx.Err()
		}
	}
}

// checked is st, handed to a waiting call, unless the pool closed or the call's wait was
// interrupted meanwhile: then st goes back and the call does not run.
func (p *pool) checked(st *state, intr *interruption) (*state, error) {
	select {
	case <-intr.ch:
		p.release(st)
		return nil, interrupted{intr.why}
	default:
	}
	if p.closed.Load() {
		p.release(st)
		return nil, errClosed
	}
	return st, nil
}

// leave takes w out of the line, with got (a state it took itself, or nil). When release
// handed w a state meanwhile, that state goes back. Whatever w leaves with, another call in
// line looks again: a state may have come free for w since it was woken.
func (p *pool) leave(w *waiter, got *state) {
	p.lineMu.Lock()
	i := slices.Index(p.line, w)
	if i >= 0 {
		p.line = slices.Delete(p.line, i, i+1)
		p.waiters.Add(-1)
		p.wakeNextLocked()
	}
	p.lineMu.Unlock()
	if i < 0 {
		p.release(<-w.handed)
		p.wakeNext()
	}
}

// wakeNext wakes the first call in line not woken yet, if any: a state or a slot came free,
// or a call began waiting on I/O (an extra state may be taken).
func (p *pool) wakeNext() {
	if p.waiters.Load() == 0 {
		return
	}
	p.lineMu.Lock()
	p.wakeNextLocked()
	p.lineMu.Unlock()
}

// wakeNextLocked is wakeNext for a caller holding lineMu.
func (p *pool) wakeNextLocked() {
	for _, w := range p.line {
		if !w.woken {
			w.woken = true
			w.wake <- struct{}{} // buffered: not woken means its token was taken
			return
		}
	}
}

// handOff gives st to the call at the head of the line when it has waited p.starveAfter;
// it reports whether it did. Only the states calls running Lua share are handed: an
// extra one may be taken only while calls wait on I/O (tryExtra).
func (p *pool) handOff(st *state) bool {
	if p.waiters.Load() == 0 || st.index >= len(p.slots) {
		return false
	}
	p.lineMu.Lock()
	defer p.lineMu.Unlock()
	if len(p.line) == 0 || limits.MonoNow()-p.line[0].since < p.starveAfter {
		return false
	}
	w := p.line[0]
	p.line = slices.Delete(p.line, 0, 1)
	p.waiters.Add(-1)
	w.handed <- st
	return true
}

// starveAfterFor is how long the call at the head of the line waits before states are
// handed to it rather than taken by whichever call looks first, for a hook whose calls wait
// at most busy: a tenth of it, from 1 to 10 ms. A call that finds a state idle runs at once
// (no goroutine is woken, the state's cache is warm), which serves more calls under a
// saturating load; the bound keeps a call from waiting much longer than the calls ahead of
// it take, so that none ends busy while later ones run.
func starveAfterFor(busy time.Duration) time.Duration {
	return min(10*time.Millisecond, max(time.Millisecond, busy/10))
}

// release gives a state back, or closes it when the pool is closed.
func (p *pool) release(st *state) {
	if p.closed.Load() {
		p.empty(st)
		return
	}
	if p.handOff(st) {
		return
	}
	if n := len(p.slots); n > 1 && n <= 256 && st.index < n { // an int below 256 boxes without allocating
		p.hints.Put(st.index)
	}
	st.slot.status.Store(slotIdle)
	if p.closed.Load() { // close may have drained the pool before the store
		p.drain()
	}
	p.wakeNext()
}

// discard drops a state that may be inconsistent (a Go panic unwound through it); its
// slot is free for a new one.
func (p *pool) discard(st *state) {
	p.empty(st)
	p.wakeNext()
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
