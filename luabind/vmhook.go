package luabind

import (
	"unsafe"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// The `..` operator is an instruction of gopher-lua's interpreter (OP_CONCAT), not a
// library function: it joins up to 250 strings in one step, and gopher-lua offers no hook
// to bound it. `s .. s .. s ...` over a 64 MiB string would build gigabytes before the
// memory guard could look. So the interpreter's handler of OP_CONCAT is wrapped, once, at
// start-up: the wrapper adds up the lengths of the operands and raises a limit error before
// the original handler allocates anything when the result would be larger than
// maxStringSize. Everything else about the instruction (numbers, __concat, errors) is the
// original handler's.
//
// The handlers live in gopher-lua's unexported table jumpTable, reached here by linkname.
// This relies on facts of gopher-lua v1.1.2 (pinned by TestGopherLuaPinned): the table's
// type is [OP_NOP+1]func(*LState, uint32, *callFrame) int; OP_CONCAT A B C joins the
// registers B..C of the running function; and while an instruction runs, L.Get(i) reads
// register i-1 of that function (L.currentFrame is the running frame and the value stack's
// top lies beyond its registers).

type instFunc func(L *lua.LState, inst uint32, frame unsafe.Pointer) int

//go:linkname jumpTable github.com/hermes-hooks/hermes/luabind/internal/lua.jumpTable
var jumpTable [lua.OP_NOP + 1]instFunc

func init() {
	concat := jumpTable[lua.OP_CONCAT]
	jumpTable[lua.OP_CONCAT] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
		b, c := int(inst&0x1ff), int(inst>>9)&0x1ff
		n, strs := int64(0), true
		for r := b; r <= c; r++ {
			if s, ok := L.Get(r + 1).(lua.LString); ok {
				n += int64(len(s))
			} else {
				n += 32 // a number's text
				strs = false
			}
		}
		if n > maxStringSize {
			checkSize(L, "..", n)
		}
		if strs && joinStrings(L, inst, int(n)) {
			return 0
		}
		return concat(L, inst, frame)
	}
}
