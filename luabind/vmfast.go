package luabind

import (
	"context"
	"iter"
	"reflect"
	"unsafe"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Costs of gopher-lua's interpreter that a hook pays on every pass of its loops, and how
// they are removed without changing what any program computes:
//
//   - The call's context is polled by the fork's interpreter loop (internal/lua/vm.go,
//     mainLoop), not here: every 1024 instructions, after every call of a Go function, and
//     on returning to Go, through pollContext's Stopped (callctx.go) rather than a select on
//     Done. startCall refuses to start a call whose context is already done. A stopped call
//     raises the same error at the next poll.
//   - A generic for over ipairs calls the iterator as a Go function on every step, with a
//     call frame pushed and popped, and string.find(s, p, init, true), the usual deny-list
//     test, is called the same way. Our ipairsAux and strFind carry the fork's builtin marks
//     (lua.BuiltinIpairsIter, lua.BuiltinStringFind; baselib.go, strlib.go): the fork's
//     OP_TFORLOOP takes ipairs' step itself for a table and a number, and its OP_CALL
//     answers a plain find itself for arguments of the usual types, with the same results
//     and registers (internal/lua/fastpath.go).
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
	offFrame uintptr // currentFrame *callFrame
	offReg   uintptr // reg *registry
)

var fastVM bool // the fast paths are installed

func frameOf(L *lua.LState) *frameMirror {
	return *(**frameMirror)(unsafe.Add(unsafe.Pointer(L), offFrame))
}

func regOf(L *lua.LState) *registryMirror {
	return *(**registryMirror)(unsafe.Add(unsafe.Pointer(L), offReg))
}

// startCall is L.PCall(nargs, nret, nil) for a call under ctx, L's context, which runs
// nothing when ctx is already done: the interpreter's first poll may come after a few
// instructions.
func startCall(L *lua.LState, nargs, nret int, ctx context.Context) error {
	if pc, ok := ctx.(pollContext); ok && pc.Stopped() {
		return pc.Err()
	}
	return L.PCall(nargs, nret, nil)
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
	if !ok1 || !ok2 || frame.Type.Kind() != reflect.Pointer || reg.Type.Kind() != reflect.Pointer {
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
	offFrame, offReg = frame.Offset, reg.Offset
	return true
}

func init() {
	if !vmLayoutOK() {
		return
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
	if t.keys == nil {
		t.keys, t.k2i = []lua.LValue{}, map[lua.LValue]int{}
	}
	if value == lua.LNil {
		delete(t.strdict, string(ks))
		return true
	}
	t.strdict[string(ks)] = value
	if _, ok := t.k2i[key]; !ok {
		t.k2i[key] = len(t.keys)
		t.keys = append(t.keys, key)
	}
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
