package luabind

import (
	"context"
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
//     instruction holds it boxed (a constant, or the register's value). The fork's
//     OP_SETTABLEKS and OP_SETTABLE do RawSetString's work themselves with the boxed key
//     when the table has no metatable, and its OP_NEWTABLE sizes a constructor's key list
//     once. Here, tables built from Go maps get their key list sized once (newKeyedTable,
//     LTable.ReserveKeys), a refilled kwargs value is set without a key-list lookup
//     (LTable.ReplaceString), and tables are walked in Next's order without Next's two
//     lookups per pair (LTable.Pairs).
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
		!same(reflect.TypeFor[registryMirror](), reg.Type.Elem()) {
		return false
	}
	offFrame, offReg = frame.Offset, reg.Offset
	return true
}

func init() {
	if !vmLayoutOK() {
		return
	}
	fastVM = true
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

// newKeyedTable is L.CreateTable(0, n) for n string keys, its key list sized once:
// RawSetString grows it key by key.
func newKeyedTable(L *lua.LState, n int) *lua.LTable {
	tb := L.CreateTable(0, n)
	tb.ReserveKeys(n)
	return tb
}
