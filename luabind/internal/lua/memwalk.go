package lua

import "unsafe"

// ReachableMemory estimates the bytes ls holds: what its globals, its registry, the
// metatables of its types, the stacks of its running threads and of every coroutine
// reachable, and roots reach, with the sizes the memory account charges (memory.go). A
// string's bytes count once however many values hold it (for strings of 64 bytes or
// more; shorter ones are counted at every sighting). It stops counting once the total
// passes limit (limit <= 0: no stop). It runs on the goroutine that runs ls.
func (ls *LState) ReachableMemory(limit int64, roots ...LValue) int64 {
	if limit <= 0 {
		limit = 1<<63 - 1
	}
	w := memWalk{limit: limit}
	g := ls.G
	w.todo = append(w.todo, g.Global, g.Registry, g.MainThread, g.CurrentThread, ls)
	for _, mt := range g.builtinMts {
		w.todo = append(w.todo, mt)
	}
	w.todo = append(w.todo, roots...)
	// An explicit stack, not recursion: a chain of a million nested tables must not
	// overflow the Go stack.
	// A measure made by a charge (memory.go's over) runs inside the state's call: it stops
	// with the call's timeout or cancellation, however much the state holds.
	poll := ls.mem.busy
	for n := 0; len(w.todo) > 0 && w.total <= limit; n++ {
		if poll && n%walkPollInterval == walkPollInterval-1 {
			th := g.CurrentThread
			if th == nil || th.IsClosed() {
				th = ls
			}
			th.pollContext()
		}
		v := w.todo[len(w.todo)-1]
		w.todo = w.todo[:len(w.todo)-1]
		w.visit(v)
	}
	return w.total
}

// walkPollInterval is how many values a measure visits between two looks at the context.
const walkPollInterval = 4096

type memWalk struct {
	seen      ptrSet // tables, functions, userdata, threads, prototypes
	strs      ptrSet // the bytes of strings of 64 bytes or more
	todo      []LValue
	total     int64
	limit     int64
	lastEnv   *LTable
	lastProto *FunctionProto
}

// visit counts v and queues what it holds.
func (w *memWalk) visit(v LValue) {
	switch x := v.(type) {
	case LString:
		w.str(x)
	case LNumber:
		if x < 0 || x >= preloadLimit || x != LNumber(int64(x)) {
			w.total += memNumber
		}
	case *LTable:
		if x == nil || !w.first(unsafe.Pointer(x)) {
			return
		}
		w.table(x)
	case *LFunction:
		if x == nil || !w.first(unsafe.Pointer(x)) {
			return
		}
		w.total += closureMemory(len(x.Upvalues)) + int64(len(x.fields.entries))*memFieldCache
		for _, e := range x.fields.entries { // a cached value stays held after its table lets go
			if e.tb != nil {
				w.queue(e.tb)
				w.queue(e.v)
			}
		}
		for _, up := range x.Upvalues {
			if up != nil {
				w.queue(up.Value())
			}
		}
		// Most functions share their environment and many their prototype: the last ones
		// seen are not looked up again.
		if x.Env != nil && x.Env != w.lastEnv {
			w.lastEnv = x.Env
			w.todo = append(w.todo, x.Env)
		}
		if x.Proto != nil && x.Proto != w.lastProto {
			w.lastProto = x.Proto
			w.proto(x.Proto)
		}
	case *LUserData:
		if x == nil || !w.first(unsafe.Pointer(x)) {
			return
		}
		w.total += memUserData
		w.queue(x.Metatable)
		if x.Env != nil {
			w.todo = append(w.todo, x.Env)
		}
	case *LState:
		if x == nil || !w.first(unsafe.Pointer(x)) {
			return
		}
		w.thread(x)
	case LChannel:
		w.total += memUserData
	}
}

// table counts tb, its array and hash parts, and queues its keys, values and metatable.
func (w *memWalk) table(tb *LTable) {
	w.total += memTable + int64(cap(tb.array))*memSlot + int64(max(len(tb.keys), len(tb.strdict)+len(tb.dict)))*memKey
	for _, v := range tb.array {
		w.queue(v)
	}
	w.total += int64(cap(tb.small)) * memSmallField
	for _, f := range tb.small { // every key, held or not (table_small.go)
		w.str(LString(f.s))
		w.queue(f.v)
	}
	for _, k := range tb.keys { // every key listed, held or not (table_keys.go)
		w.queue(k)
	}
	for _, v := range tb.strdict {
		if w.total > w.limit { // the verdict is in
			return
		}
		w.queue(v)
	}
	for _, v := range tb.dict {
		w.queue(v)
	}
	w.queue(tb.Metatable)
}

// thread counts a thread's stacks and queues what its registers and frames hold.
func (w *memWalk) thread(th *LState) {
	if th.IsClosed() {
		return
	}
	w.total += memThread + int64(cap(th.reg.array))*memSlot
	switch cs := th.stack.(type) {
	case *autoGrowingCallFrameStack:
		w.total += int64(len(cs.segments))*8 + int64(cs.segIdx+1)*FramesPerSegment*memFrame
	case *fixedCallFrameStack:
		w.total += int64(len(cs.array)) * memFrame
	}
	for _, v := range th.reg.array[:th.reg.top] {
		w.queue(v)
	}
	for i := range th.stack.Sp() {
		if fn := th.stack.At(i).Fn; fn != nil {
			w.todo = append(w.todo, fn)
		}
	}
	if th.Env != nil {
		w.todo = append(w.todo, th.Env)
	}
	if th.Parent != nil {
		w.todo = append(w.todo, th.Parent)
	}
}

// proto counts a function prototype and the ones nested in it, once each.
func (w *memWalk) proto(p *FunctionProto) {
	if !w.first(unsafe.Pointer(p)) {
		return
	}
	w.total += 256 + int64(len(p.Code))*4 + int64(len(p.Constants))*memSlot +
		int64(len(p.DbgSourcePositions))*8 + int64(len(p.DbgLocals))*48 + int64(len(p.DbgCalls))*24 +
		int64(len(p.DbgUpvalues))*16
	for _, c := range p.Constants {
		w.queue(c)
	}
	for _, child := range p.FunctionPrototypes {
		w.proto(child)
	}
}

// queue counts a string, number or function now (what a function holds is queued) and
// queues anything else that may hold more.
func (w *memWalk) queue(v LValue) {
	switch x := v.(type) {
	case nil, *LNilType, LBool:
	case LString:
		w.str(x)
	case LNumber, *LFunction:
		w.visit(x)
	default:
		w.todo = append(w.todo, v)
	}
}

func (w *memWalk) str(s LString) {
	if len(s) >= 64 && !w.strs.add(unsafe.Pointer(unsafe.StringData(string(s)))) {
		return
	}
	w.total += stringMemory(len(s))
}

// first reports whether p is seen for the first time.
func (w *memWalk) first(p unsafe.Pointer) bool { return w.seen.add(p) }

// A ptrSet is a set of heap addresses, one bit per 8 bytes of address space, in bitmaps of
// 16 KiB that each cover 1 MiB: a walk of millions of objects sets a bit in memory it
// mostly has in cache, where a map hashed and grew (Go does not move heap objects, and the
// walk holds every object it has seen).
type ptrSet struct {
	chunks  map[uintptr]*ptrChunk
	last    *ptrChunk
	lastKey uintptr
}

const ptrChunkShift = 20 // 1 MiB of addresses per chunk

type ptrChunk [1 << (ptrChunkShift - 3) / 64]uint64

// add adds p and reports whether it was not in the set.
func (s *ptrSet) add(p unsafe.Pointer) bool {
	a := uintptr(p)
	key := a >> ptrChunkShift
	c := s.last
	if c == nil || key != s.lastKey {
		if s.chunks == nil {
			s.chunks = map[uintptr]*ptrChunk{}
		}
		if c = s.chunks[key]; c == nil {
			c = new(ptrChunk)
			s.chunks[key] = c
		}
		s.last, s.lastKey = c, key
	}
	i := a & (1<<ptrChunkShift - 1) >> 3
	word, bit := &c[i>>6], uint64(1)<<(i&63)
	if *word&bit != 0 {
		return false
	}
	*word |= bit
	return true
}
