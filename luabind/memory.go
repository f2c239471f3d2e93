package luabind

import (
	"errors"
	"fmt"
	"strings"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// What a hook's Lua state holds is bounded by the interpreter's memory account of the state
// (internal/lua/memory.go): every table, growth of a table, string, closure, coroutine and
// stack growth is charged before it is allocated, and the library functions here that build
// strings (checkSize), compile source (loadstring, load) or return what the host read
// (http, exec, store) charge what they are about to allocate. When the charges pass
// Options.MemoryLimit, the state measures what it really holds (ReachableMemory, from its
// globals, registry, stacks and the roots below), and only if that plus the new allocation
// is still over the limit does the allocation fail, with a KindLimit error; the call fails
// even if the hook caught the error with pcall, and the state is rebuilt for the next call.
// The account lives as long as the state, so what a hook keeps between calls counts too.

// memoryMessage is the error of a state that would hold more than limit.
func memoryMessage(limit int64) string {
	return fmt.Sprintf("%smemory: the hook's Lua state would hold more than %s (runaway allocation?)", limitPrefix, byteSize(limit))
}

// limitMemory sets the memory account of st's Lua state; limit <= 0 means none.
func (st *state) limitMemory(limit int64) {
	L := st.L
	L.SetMemoryLimit(lua.MemoryLimit{Limit: limit, Message: memoryMessage(limit), Measure: func(limit int64) int64 {
		return L.ReachableMemory(limit, st.roots()...)
	}})
	st.ctx.setCheck(L.RequestMemoryCheck)
}

// roots are the values st holds outside what Lua can reach from its globals and registry:
// the modules require opened, the functions the hook gave us, the kwargs tables it reuses.
func (st *state) roots() []lua.LValue {
	roots := make([]lua.LValue, 0, 4+len(st.fns)+len(st.kws))
	if st.env.loaded != nil {
		roots = append(roots, st.env.loaded)
	}
	if j := st.env.json; j != nil {
		roots = append(roots, j.null, j.arrayMeta)
	}
	for _, fn := range st.fns {
		roots = append(roots, fn)
	}
	for _, k := range st.kws {
		if k != nil && k.t != nil {
			roots = append(roots, k.t)
		}
	}
	return roots
}

// memoryError is the error of a call after which the state's memory error had been
// raised: err itself when it is that error (it says where), else the error without a line.
func (s *script) memoryError(err error) *Error {
	var le *Error
	if errors.As(err, &le) && le.Kind == KindLimit && strings.Contains(le.Msg, limitPrefix+"memory: ") {
		return le
	}
	return &Error{Kind: KindLimit, File: s.opts.File, Msg: memoryMessage(s.opts.MemoryLimit)}
}

// chargeString charges L for a string of n bytes about to be built for Lua.
func chargeString(L *lua.LState, n int) {
	L.ChargeMemory(int64(n) + 16)
}

// chargeStrings charges L for the strings of v, a value a host function or the store
// returned, before it is converted: they become strings Lua holds (the tables are charged
// as they are made).
func chargeStrings(L *lua.LState, v any) {
	switch x := v.(type) {
	case string:
		chargeString(L, len(x))
		return
	case map[string]any, []any, []string:
	default:
		return
	}
	n, stack := 0, []any{v}
	for len(stack) > 0 {
		v, stack = stack[len(stack)-1], stack[:len(stack)-1]
		switch x := v.(type) {
		case string:
			n += len(x) + 16
		case map[string]any:
			for k, e := range x {
				n += len(k) + 16
				stack = append(stack, e)
			}
		case []any:
			stack = append(stack, x...)
		case []string:
			for _, s := range x {
				n += len(s) + 16
			}
		}
	}
	L.ChargeMemory(int64(n))
}

// What compiling source takes while the compiler runs, per token and per function: its
// syntax tree, and for each function a prototype and the compiler's buffers (about 17 KiB,
// most of it code buffers made with room for 1,024 instructions).
const (
	compileTokenCost    = 160
	compileFunctionCost = 18 << 10
)

// compileCost estimates the bytes compiling source with that many tokens and functions
// (as the parser counts them) takes at its peak, beyond twice the source's size.
func compileCost(tokens, functions int) int64 {
	return int64(tokens)*compileTokenCost + int64(functions)*compileFunctionCost
}
