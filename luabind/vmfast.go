package luabind

import (
	"context"
	"iter"
	"reflect"
	"strings"
	"unsafe"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Costs of gopher-lua's interpreter that a hook pays on every pass of its loops, and how
// they are removed without changing what any program computes:
//
//   - With a context set, gopher-lua selects on its Done channel before every instruction.
//     A state here runs instead with gopher-lua's plain loop (setCallContext), and the
//     context is polled where a program can go on running: on leaving the interpreter,
//     and in the instructions that jump back or call (OP_JMP backwards, OP_FORLOOP,
//     OP_TFORLOOP, OP_CALL, OP_TAILCALL). Code between two polls is straight-line code of
//     one function, bounded by its length; library functions that run long poll on their
//     own (budget.go). A stopped call raises the same error at the next poll.
//   - A generic for over ipairs calls the iterator as a Go function on every step, with a
//     call frame pushed and popped. OP_TFORLOOP does ipairs' step itself when the iterator is
//     ours (ipairsAux) and its state is a table and a number, and gives the same registers.
//   - string.find(s, p, init, true), the usual deny-list test, is called the same way.
//     OP_CALL answers a plain find itself when the callee is ours (strFind) and its
//     arguments have their usual types, with the same results.
//   - Setting a string key (`{tool = x}`, `t.k = v`, `t[s] = v`) goes through
//     LTable.RawSetString, which boxes the key again for the table's key list although the
//     instruction holds it boxed (a constant, or the register's value). OP_SETTABLEKS and
//     OP_SETTABLE do RawSetString's work themselves with the boxed key (setStringKey) when
//     the table has no metatable, and OP_NEWTABLE sizes a constructor's key list once.
//   - `a .. b .. c` of strings builds a list of the strings, joins them and boxes the
//     result: three allocations. OP_CONCAT (vmhook.go) joins strings into one buffer the
//     result then uses (joinStrings); numbers and metamethods go to gopher-lua's handler.
//
// Anything else (other iterators and functions, unusual arguments, a register file too
// small) goes to gopher-lua's own handler. The fast paths read gopher-lua's unexported
// state (the running frame, the register file) through mirrors of its structs whose layout
// is checked field by field against the real types when the program starts (vmLayoutOK):
// if any field moved, nothing here is installed and gopher-lua runs as it is.
// TestFastVMInstalled fails when that happens, and the differential tests and fuzz targets
// (vmfast_test.go) compare every fast path with gopher-lua's own.

// frameMirror is gopher-lua v1.1.2's callFrame.
type frameMirror struct {
	Idx        int
	Fn         *lua.LFunction
	Parent     unsafe.Pointer
	Pc         int
	Base       int
	LocalBase  int
	ReturnBase int
	NArgs      int
	NRet       int
	TailCall   int
}

// registryMirror is the start of gopher-lua v1.1.2's registry: the value stack.
type registryMirror struct {
	array []lua.LValue
	top   int
}

// tableMirror is gopher-lua v1.1.2's LTable.
type tableMirror struct {
	Metatable lua.LValue
	array     []lua.LValue
	dict      map[lua.LValue]lua.LValue
	strdict   map[string]lua.LValue
	keys      []lua.LValue
	k2i       map[lua.LValue]int
}

// The offsets, in LState, of the fields the fast paths read or write.
var (
	offFrame    uintptr // currentFrame *callFrame
	offReg      uintptr // reg *registry
	offMainLoop uintptr // mainLoop func(*LState, *callFrame)
)

// vmLoop is the type of gopher-lua's interpreter loops, with *callFrame as a pointer.
type vmLoop func(L *lua.LState, baseframe unsafe.Pointer)

var (
	fastVM    bool   // the fast paths are installed
	plainLoop vmLoop // gopher-lua's loop without a per-instruction poll
	// The identities of the Go functions with fast paths: their func values' closure words.
	ipairsAuxFn = funcWord(ipairsAux)
	strFindFn   = funcWord(strFind)
)

func funcWord(f lua.LGFunction) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&f)) }

// isGo reports whether fn is the Go function whose closure word is w.
func isGo(fn *lua.LFunction, w unsafe.Pointer) bool {
	return fn.IsG && *(*unsafe.Pointer)(unsafe.Pointer(&fn.GFunction)) == w
}

func frameOf(L *lua.LState) *frameMirror {
	return *(**frameMirror)(unsafe.Add(unsafe.Pointer(L), offFrame))
}

func regOf(L *lua.LState) *registryMirror {
	return *(**registryMirror)(unsafe.Add(unsafe.Pointer(L), offReg))
}

func mainLoopOf(L *lua.LState) *vmLoop {
	return (*vmLoop)(unsafe.Add(unsafe.Pointer(L), offMainLoop))
}

// setCallContext sets L's context like L.SetContext, with the interpreter polling it at
// the points above instead of before every instruction.
func setCallContext(L *lua.LState, ctx context.Context) {
	L.SetContext(ctx)
	if fastVM {
		*mainLoopOf(L) = polledLoop
	}
}

// startCall is L.PCall(nargs, nret, nil) for a call under ctx, L's context, which runs
// nothing when ctx is already done: the interpreter's first poll may come after a few
// instructions.
func startCall(L *lua.LState, nargs, nret int, ctx context.Context) error {
	if pc, ok := ctx.(pollContext); ok && pc.poll.Load() != nil {
		return pc.Err()
	}
	return L.PCall(nargs, nret, nil)
}

// polledLoop is the interpreter loop of a state with a context: gopher-lua's plain loop,
// then a poll. (A poll before it could not raise an error cleanly: gopher-lua's loop makes
// the new call's frame current only once it runs; startCall covers a call's start.) The
// poll after it keeps a stopped call from returning as if it had
// finished: a coroutine or pcall that caught the stop returns into straight-line code,
// which gopher-lua's loop would stop at its next instruction.
func polledLoop(L *lua.LState, baseframe unsafe.Pointer) {
	plainLoop(L, baseframe)
	poll(L)
}

// poll raises the error gopher-lua's loop raises when L's context is done.
func poll(L *lua.LState) {
	switch ctx := L.Context().(type) {
	case nil:
	case pollContext:
		if ctx.poll.Load() != nil {
			L.RaiseError("%s", ctx.Err().Error())
		}
	default:
		select {
		case <-ctx.Done():
			L.RaiseError("%s", ctx.Err().Error())
		default:
		}
	}
}

// vmLayoutOK checks the mirrors against gopher-lua's types and finds the offsets.
func vmLayoutOK() bool {
	st := reflect.TypeFor[lua.LState]()
	field := func(t reflect.Type, name string) (reflect.StructField, bool) {
		f, ok := t.FieldByName(name)
		return f, ok && len(f.Index) == 1
	}
	frame, ok1 := field(st, "currentFrame")
	reg, ok2 := field(st, "reg")
	loop, ok3 := field(st, "mainLoop")
	if !ok1 || !ok2 || !ok3 || frame.Type.Kind() != reflect.Pointer || reg.Type.Kind() != reflect.Pointer ||
		loop.Type.Kind() != reflect.Func || loop.Type.NumIn() != 2 || loop.Type.NumOut() != 0 ||
		loop.Type.In(0) != reflect.TypeFor[*lua.LState]() || loop.Type.In(1) != frame.Type {
		return false
	}
	same := func(mirror, real reflect.Type) bool {
		if mirror.Size() > real.Size() {
			return false
		}
		for i := range mirror.NumField() {
			m := mirror.Field(i)
			r, ok := field(real, m.Name)
			if !ok || r.Offset != m.Offset || r.Type.Size() != m.Type.Size() {
				return false
			}
			if m.Type.Kind() == reflect.UnsafePointer {
				if r.Type.Kind() != reflect.Pointer {
					return false
				}
			} else if r.Type != m.Type {
				return false
			}
		}
		return true
	}
	if !same(reflect.TypeFor[frameMirror](), frame.Type.Elem()) ||
		!same(reflect.TypeFor[registryMirror](), reg.Type.Elem()) ||
		!same(reflect.TypeFor[tableMirror](), reflect.TypeFor[lua.LTable]()) {
		return false
	}
	offFrame, offReg, offMainLoop = frame.Offset, reg.Offset, loop.Offset
	return true
}

func init() {
	if !vmLayoutOK() {
		return
	}
	// gopher-lua's plain loop, as a fresh state without a context holds it.
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	plainLoop = *mainLoopOf(L)
	L.Close()

	for _, op := range []int{lua.OP_FORLOOP, lua.OP_TAILCALL} {
		orig := jumpTable[op]
		jumpTable[op] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
			poll(L)
			return orig(L, inst, frame)
		}
	}
	jmp := jumpTable[lua.OP_JMP]
	jumpTable[lua.OP_JMP] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
		if int(inst&0x3ffff)-opMaxArgSbx < 0 {
			poll(L)
		}
		return jmp(L, inst, frame)
	}
	// The two wrappers below are written out rather than made by a shared helper taking the
	// fast path as a func value: the indirect call cost the guard shape 3% (one per element).
	tfor := jumpTable[lua.OP_TFORLOOP]
	jumpTable[lua.OP_TFORLOOP] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
		poll(L)
		if ipairsStep(L, inst) {
			return 0
		}
		return tfor(L, inst, frame)
	}
	call := jumpTable[lua.OP_CALL]
	jumpTable[lua.OP_CALL] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
		poll(L)
		if plainFind(L, inst) {
			return 0
		}
		return call(L, inst, frame)
	}
	for _, op := range []int{lua.OP_SETTABLE, lua.OP_SETTABLEKS} {
		orig := jumpTable[op]
		jumpTable[op] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
			if setStringKey(L, inst) {
				return 0
			}
			return orig(L, inst, frame)
		}
	}
	newTable := jumpTable[lua.OP_NEWTABLE]
	jumpTable[lua.OP_NEWTABLE] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
		r := newTable(L, inst, frame)
		if c := int(inst>>9) & 0x1ff; c > 0 {
			cf, rg := frameOf(L), regOf(L)
			if tb, ok := rg.array[cf.LocalBase+int(inst>>18)&0xff].(*lua.LTable); ok {
				sizeKeys(tb, min(c, 64))
			}
		}
		return r
	}
	fastVM = true
}

// rk is an RK operand of the running instruction: a constant or a register.
func rk(cf *frameMirror, rg *registryMirror, x int) lua.LValue {
	if x&256 != 0 {
		return cf.Fn.Proto.Constants[x&^256]
	}
	return rg.array[cf.LocalBase+x]
}

// setStringKey is OP_SETTABLE or OP_SETTABLEKS A B C, R(A)[RK(B)] := RK(C), for a table
// without a metatable and a string key: what LTable.RawSetString does, with the key the
// instruction holds rather than a new box of it. It reports false, having changed nothing,
// for anything else.
func setStringKey(L *lua.LState, inst uint32) bool {
	cf, rg := frameOf(L), regOf(L)
	tb, ok := rg.array[cf.LocalBase+int(inst>>18)&0xff].(*lua.LTable)
	if !ok || tb.Metatable != lua.LNil {
		return false
	}
	key := rk(cf, rg, int(inst&0x1ff))
	ks, ok := key.(lua.LString)
	if !ok {
		return false
	}
	value := rk(cf, rg, int(inst>>9)&0x1ff)
	t := (*tableMirror)(unsafe.Pointer(tb))
	if t.strdict == nil {
		t.strdict = make(map[string]lua.LValue, 4)
	}
	if value == lua.LNil {
		delete(t.strdict, string(ks))
		return true
	}
	if _, ok := t.k2i[key]; !ok {
		tb.AddKey(key)
	}
	t.strdict[string(ks)] = value
	return true
}

// opMaxArgSbx is the bias of an instruction's signed Bx operand.
const opMaxArgSbx = (1<<18 - 1) >> 1

// setTop ends a call as gopher-lua's does: the top is set after the results, and the
// registers from there up to the old top, or to hi (where the call's own frame reached),
// are cleared.
func (r *registryMirror) setTop(top, hi int) {
	if end := min(max(hi, r.top), len(r.array)); end > top {
		clear(r.array[top:end])
	}
	r.top = top
}

// ipairsStep is OP_TFORLOOP A C for the ipairs iterator: R(A+3..A+2+C) := ipairsAux(R(A+1),
// R(A+2)); if R(A+3) ~= nil then R(A+2) := R(A+3) and the following jump is taken, else it
// is skipped. It reports false, having changed nothing, when the instruction is not that.
func ipairsStep(L *lua.LState, inst uint32) bool {
	cf, rg := frameOf(L), regOf(L)
	ra := cf.LocalBase + int(inst>>18)&0xff
	c := int(inst>>9) & 0x1ff
	if c < 1 || ra+3+c > len(rg.array) {
		return false
	}
	fn, ok := rg.array[ra].(*lua.LFunction)
	if !ok || !isGo(fn, ipairsAuxFn) {
		return false
	}
	tb, ok := rg.array[ra+1].(*lua.LTable)
	n, ok2 := rg.array[ra+2].(lua.LNumber)
	if !ok || !ok2 {
		return false
	}
	i := int(n) + 1
	v := tb.RawGetInt(i)
	out := rg.array[ra+3 : ra+3+c]
	for k := range out {
		out[k] = lua.LNil
	}
	hi := ra + 6 // gopher-lua's call of the iterator: two arguments above R(A+3), then its results
	if v != lua.LNil {
		hi += 2
	}
	rg.setTop(ra+3+c, hi)
	if v == lua.LNil {
		cf.Pc++ // skip the jump back
		return true
	}
	out[0] = boxInt(i)
	if c > 1 {
		out[1] = v
	}
	rg.array[ra+2] = out[0]
	jmp := cf.Fn.Proto.Code[cf.Pc]
	cf.Pc += int(jmp&0x3ffff) - opMaxArgSbx + 1
	return true
}

// plainFind is OP_CALL A B C for string.find(s, p [, init [, plain]]) with strings s and p,
// a number or nil init, and a plain search (plain true, or p free of pattern characters):
// the results go to R(A).. as gopher-lua's call would put them. It reports false, having
// changed nothing, for any other call.
func plainFind(L *lua.LState, inst uint32) bool {
	cf, rg := frameOf(L), regOf(L)
	ra := cf.LocalBase + int(inst>>18)&0xff
	b, c := int(inst&0x1ff), int(inst>>9)&0x1ff
	nargs := b - 1
	if nargs < 2 || nargs > 4 || ra+nargs >= len(rg.array) || ra+max(c-1, 2) > len(rg.array) {
		return false
	}
	fn, ok := rg.array[ra].(*lua.LFunction)
	if !ok || !isGo(fn, strFindFn) {
		return false
	}
	src, ok := rg.array[ra+1].(lua.LString)
	pat, ok2 := rg.array[ra+2].(lua.LString)
	if !ok || !ok2 {
		return false
	}
	init := int64(1)
	if nargs >= 3 {
		switch n := rg.array[ra+3].(type) {
		case lua.LNumber:
			init = numInt(float64(n))
		default:
			if n != lua.LNil {
				return false
			}
		}
	}
	if !(nargs == 4 && lua.LVAsBool(rg.array[ra+4])) && strings.ContainsAny(string(pat), patSpecials) {
		return false
	}
	from := startIndex(init, len(src))
	var r0, r1 lua.LValue = lua.LNil, lua.LNil
	nres := 1
	if i := strings.Index(string(src[from:]), string(pat)); i >= 0 {
		r0, r1, nres = boxInt(from+i+1), boxInt(from+i+len(pat)), 2
	}
	n := c - 1
	if c == 0 { // all results
		n = nres
	}
	if n > 0 {
		rg.array[ra] = r0
	}
	if n > 1 {
		rg.array[ra+1] = r1
	}
	for k := 2; k < n; k++ {
		rg.array[ra+k] = lua.LNil
	}
	rg.setTop(ra+n, ra+1+nargs+nres)
	return true
}

// joinStrings is OP_CONCAT A B C when R(B)..R(C) are strings of n bytes in all: R(A) is
// their concatenation, written in one buffer. It reports false, having changed nothing,
// when the fast paths are off.
func joinStrings(L *lua.LState, inst uint32, n int) bool {
	if !fastVM {
		return false
	}
	cf, rg := frameOf(L), regOf(L)
	ra := cf.LocalBase + int(inst>>18)&0xff
	rb, rc := cf.LocalBase+int(inst&0x1ff), cf.LocalBase+int(inst>>9)&0x1ff
	if ra >= len(rg.array) || rc >= len(rg.array) {
		return false
	}
	chargeString(L, n)
	buf := make([]byte, 0, n)
	for _, v := range rg.array[rb : rc+1] {
		buf = append(buf, v.(lua.LString)...)
	}
	rg.array[ra] = lua.LString(unsafe.String(unsafe.SliceData(buf), len(buf)))
	if ra >= rg.top {
		rg.top = ra + 1
	}
	return true
}

// newKeyedTable is L.CreateTable(0, n) for n string keys, its key list sized once: gopher-lua
// grows it key by key.
func newKeyedTable(L *lua.LState, n int) *lua.LTable {
	tb := L.CreateTable(0, n)
	if fastVM && n > 0 {
		sizeKeys(tb, n)
	}
	return tb
}

// sizeKeys gives tb, a new table, a key list for n keys.
func sizeKeys(tb *lua.LTable, n int) {
	t := (*tableMirror)(unsafe.Pointer(tb))
	t.keys, t.k2i = make([]lua.LValue, 0, n), make(map[lua.LValue]int, n)
}

// replaceValue sets the string key of tb, which holds a value, to v (not nil): all
// RawSetString would do, without looking the key up in the key list it is already in. It
// reports false, having changed nothing, when the fast paths are off.
func replaceValue(tb *lua.LTable, key string, v lua.LValue) bool {
	if !fastVM {
		return false
	}
	(*tableMirror)(unsafe.Pointer(tb)).strdict[key] = v
	return true
}

// pairs walks tb's pairs in the order LTable.Next gives them: the array part, then the
// other keys in the order they were first set. Next finds where it was on every step (a
// lookup of the key in the key list, then of its value: two hash lookups per pair, and a
// box for every array index); this walk keeps its place. The table must not change during
// the walk.
func pairs(tb *lua.LTable) iter.Seq2[lua.LValue, lua.LValue] {
	return func(yield func(k, v lua.LValue) bool) {
		if !fastVM {
			for k, v := tb.Next(lua.LNil); k != lua.LNil; k, v = tb.Next(k) {
				if !yield(k, v) {
					return
				}
			}
			return
		}
		t := (*tableMirror)(unsafe.Pointer(tb))
		for i, v := range t.array {
			if v != lua.LNil && v != nil && !yield(boxInt(i+1), v) {
				return
			}
		}
		for _, k := range t.keys {
			var v lua.LValue
			if s, ok := k.(lua.LString); ok {
				v = t.strdict[string(s)]
			} else {
				v = t.dict[k]
			}
			if v != lua.LNil && v != nil && !yield(k, v) {
				return
			}
		}
	}
}
