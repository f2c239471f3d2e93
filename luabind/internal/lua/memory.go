package lua

import (
	"math"
	"sync/atomic"
)

// Memory accounting, per state, where the interpreter allocates, the way C Lua's
// lua_newstate allocator lets a host refuse an allocation.
//
// A state (with its coroutines, which share it) has one account. Every site that makes
// something the state will hold charges the account, before allocating, with an estimate
// of the bytes it is about to take: a table and each growth of its array and hash parts
// (tables remember the account of the state that made them), a string built by `..`,
// tostring or the string library, a closure, a coroutine and the growth of a thread's value
// and call stacks, a userdata, a page of boxed numbers. Go code that builds values for Lua
// charges through ChargeMemory.
//
// Go frees nothing explicitly, so what an account has been charged includes garbage. When
// a charge takes it past its limit, the account measures what the state really holds
// (what its globals, registry, stacks and extra roots reach, with the same estimates:
// ReachableMemory, or the function given to SetMemoryLimit), starts again from that, and
// raises the memory error only if what it holds plus the new allocation is still over the
// limit. A measure walks everything the state holds, so after one the account waits until
// another quarter of the limit has been charged before measuring again; until then the
// state may pass its limit by that much. Another goroutine may ask for a measure at the
// next charge (RequestMemoryCheck), whatever the count says.
//
// The error is a Lua error raised where the allocation was asked for, with the message
// given to SetMemoryLimit; pcall can catch it, as in C Lua, but the account remembers it
// (MemoryExceeded) and raises it again at every later charge, so the host can fail the
// call however the code went on.

// Estimated sizes, in bytes, of what the interpreter allocates (64-bit Go).
const (
	memTable    = 96      // an LTable
	memSlot     = 16      // one slot of an array part or a value stack
	memKey      = 160     // one key of a hash part: map entries (value and key index), key list, boxed key
	memMapEntry = 80      // one entry of a map made with room for it
	memString   = 16      // a string's header, boxed as an LValue, besides its bytes
	memFunction = 64      // an LFunction
	memUpvalue  = 56      // an upvalue cell and its pointer in a closure
	memUserData = 64      // an LUserData
	memNumber   = 8       // a boxed number
	memFrame    = 80      // a call frame
	memThread   = 2 << 10 // a thread besides its stacks: the LState and its allocator
)

// memAccount is the memory account of a state and its coroutines.
type memAccount struct {
	used      int64        // bytes charged, from the last measure on
	measured  int64        // used just after the last measure
	threshold atomic.Int64 // over runs when used passes it: the limit, or lower to look now
	request   atomic.Bool  // another goroutine asked for a measure (RequestMemoryCheck)
	limit     int64        // <= 0: none
	tripped   bool         // the memory error was raised: raise it at every charge
	busy      bool         // over is running: charges made by a measure or a raise pass
	owner     *LState      // the main thread
	measure   func(limit int64) int64
	message   string
}

func newMemAccount(owner *LState) *memAccount {
	m := &memAccount{owner: owner, message: "not enough memory"}
	m.threshold.Store(math.MaxInt64)
	return m
}

// charge counts n bytes about to be allocated, and raises the memory error when that
// takes the state past its limit.
func (m *memAccount) charge(n int64) {
	m.used += n
	if m.used > m.threshold.Load() {
		m.over(n)
	}
}

// over decides about a charge of n that took used past the threshold.
func (m *memAccount) over(n int64) {
	if m.busy {
		return
	}
	m.busy = true
	defer func() { m.busy = false }()
	limit := m.limit
	if limit <= 0 {
		m.threshold.Store(math.MaxInt64)
		m.request.Store(false)
		return
	}
	if m.tripped {
		m.raise()
	}
	m.threshold.Store(limit) // before the request is taken: one made meanwhile lowers it again
	requested := m.request.Swap(false)
	if !requested && (m.used <= limit || m.used-m.measured < limit/4) {
		return // under the limit, or measured lately: past it by less than a quarter
	}
	m.used = m.reachable(limit) + n
	m.measured = m.used
	if m.used > limit {
		m.used -= n
		m.tripped = true
		m.threshold.Store(math.MinInt64)
		m.raise()
	}
}

// reachable measures what the state holds.
func (m *memAccount) reachable(limit int64) int64 {
	if m.measure != nil {
		return m.measure(limit)
	}
	return m.owner.ReachableMemory(limit)
}

// raise raises the memory error in the thread running.
func (m *memAccount) raise() {
	L := m.owner.G.CurrentThread
	if L == nil || L.IsClosed() {
		L = m.owner
	}
	L.RaiseError("%s", m.message)
}

// MemoryLimit configures the memory account of a state (see SetMemoryLimit).
type MemoryLimit struct {
	// Limit is how many bytes the state may hold; <= 0: no limit (allocations are still
	// counted).
	Limit int64
	// Measure returns the bytes the state holds, and may stop counting past limit; nil
	// means ReachableMemory with no extra roots. It runs on the goroutine of the charge
	// that made the account look, and must not call into the state.
	Measure func(limit int64) int64
	// Message is the error raised when the limit would be passed; "" means "not enough
	// memory".
	Message string
}

// SetMemoryLimit sets the memory account of ls and its coroutines: see memory.go. What was
// charged so far stays counted.
func (ls *LState) SetMemoryLimit(ml MemoryLimit) {
	m := ls.mem
	m.limit, m.measure, m.message = ml.Limit, ml.Measure, ml.Message
	if m.message == "" {
		m.message = "not enough memory"
	}
	m.tripped = false
	m.threshold.Store(math.MaxInt64)
	if ml.Limit > 0 {
		m.threshold.Store(ml.Limit)
	}
}

// ChargeMemory counts n bytes that Go code is about to allocate for values the state will
// hold (a string it returns to Lua), and raises the memory error in the running thread
// when they would take the state past its limit.
func (ls *LState) ChargeMemory(n int64) {
	ls.mem.charge(n)
}

// MemoryUsed is the bytes charged to the state's account: what the last measure found,
// plus what was charged since.
func (ls *LState) MemoryUsed() int64 { return ls.mem.used }

// MemoryExceeded reports whether the state's memory error has been raised.
func (ls *LState) MemoryExceeded() bool { return ls.mem.tripped }

// RequestMemoryCheck makes the state measure what it holds at its next charge, and raise
// the memory error if that is over its limit. It may be called from any goroutine.
func (ls *LState) RequestMemoryCheck() {
	m := ls.mem
	m.request.Store(true)
	m.threshold.Store(math.MinInt64)
}

// shareMemory makes m the account of th (a new state, or a new thread of ls), of its stacks
// and of its global tables.
func (ls *LState) shareMemory(th *LState, m *memAccount) {
	th.mem = m
	th.G.Global.mem, th.G.Registry.mem = m, m
	th.reg.mem = m
	th.alloc.mem = m
	if cs, ok := th.stack.(*autoGrowingCallFrameStack); ok {
		cs.mem = m
	}
}

// threadMemory is what a thread made with opts takes, its stacks at their initial sizes.
func threadMemory(opts *Options) int64 {
	n := int64(memThread) + int64(opts.RegistrySize)*memSlot
	if opts.MinimizeStackMemory {
		return n + int64(opts.CallStackSize+FramesPerSegment)/FramesPerSegment*8 + FramesPerSegment*memFrame
	}
	return n + int64(opts.CallStackSize)*memFrame
}

// newTable makes a table owned by ls's account, charging it.
func (ls *LState) newTable(acap, hcap int) *LTable {
	ls.mem.charge(tableMemory(acap, hcap))
	tb := newLTable(acap, hcap)
	tb.mem = ls.mem
	return tb
}

// tableMemory is what newLTable(acap, hcap) allocates.
func tableMemory(acap, hcap int) int64 {
	if hcap <= smallMax {
		return memTable + int64(max(acap, 0))*memSlot + int64(max(hcap, 0))*memSmallField
	}
	return memTable + int64(max(acap, 0))*memSlot + mapMemory(hcap)
}

// mapMemory is what a map made with room for n entries takes.
func mapMemory(n int) int64 {
	if n <= 0 {
		return 0
	}
	return 48 + int64(max(n, 8))*memMapEntry
}

// closureMemory is what a closure with n upvalues takes.
func closureMemory(n int) int64 { return memFunction + int64(n)*memUpvalue }

// stringMemory is what a new string of n bytes takes.
func stringMemory(n int) int64 { return memString + int64(n) }

// chargeStrings charges the string that joins parts.
func (ls *LState) chargeStrings(parts []string) {
	n := 0
	for _, s := range parts {
		n += len(s)
	}
	ls.mem.charge(stringMemory(n))
}

// charge charges the growth of a value stack to newSize slots.
func (rg *registry) charge(newSize int) {
	if rg.mem != nil {
		rg.mem.charge(int64(newSize) * memSlot)
	}
}

// charge charges a segment of a call stack above the highest it has had.
func (cs *autoGrowingCallFrameStack) charge() {
	if cs.mem != nil && cs.segIdx >= cs.paid {
		cs.paid = cs.segIdx + 1
		cs.mem.charge(FramesPerSegment * memFrame)
	}
}

// charge charges a page of boxed numbers.
func (al *allocator) charge() {
	if al.mem != nil {
		al.mem.charge(int64(al.size) * memNumber)
	}
}

// charge charges tb's account, if it has one (tables made outside a state have none).
func (tb *LTable) charge(n int64) {
	if tb.mem != nil {
		tb.mem.charge(n)
	}
}

// growing charges the growth of tb's array part when n more slots will not fit it.
func (tb *LTable) growing(n int) {
	if tb.mem != nil && len(tb.array)+n > cap(tb.array) {
		tb.mem.charge(int64(grownCap(cap(tb.array), len(tb.array)+n)) * memSlot)
	}
}

// grownCap approximates the capacity append gives a slice of capacity c that needs n.
func grownCap(c, n int) int {
	switch {
	case c == 0:
		return max(n, defaultArrayCap)
	case c < 256:
		return max(n, 2*c)
	}
	return max(n, c+(c+3*256)/4)
}
