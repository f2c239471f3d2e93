package luabind

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// What a hook's Lua state holds is bounded by the interpreter's memory account of the state
// (internal/lua/memory.go): every table, growth of a table, string, closure, coroutine and
// stack growth is charged before it is allocated, and the library functions here that build
// strings (limits.CheckSize), compile source (loadstring, load) or return what the host read
// (http, exec, store) charge what they are about to allocate. When the charges pass
// Options.MemoryLimit, the state measures what it really holds (ReachableMemory, from its
// globals, registry, stacks and the roots below), and only if that plus the new allocation
// is still over the limit does the allocation fail, with a KindLimit error; the call fails
// even if the hook caught the error with pcall, and the state is rebuilt for the next call.
// The account lives as long as the state, so what a hook keeps between calls counts too.

// DefaultMemoryLimit is what each Lua state of a hook may hold when Options.MemoryLimit
// is 0, in bytes.
const DefaultMemoryLimit = 256 << 20

// memoryMessage is the error of a state that would hold more than limit.
func memoryMessage(limit int64) string {
	return fmt.Sprintf("%smemory: the hook's Lua state would hold more than %s (runaway allocation?)", limits.Prefix, limits.ByteSize(limit))
}

// limitMemory sets the memory account of st's Lua state; limit <= 0 means none.
func (st *state) limitMemory(limit int64) {
	L := st.L
	L.SetMemoryLimit(lua.MemoryLimit{Limit: limit, Message: memoryMessage(limit), Measure: func(limit int64) int64 {
		return L.ReachableMemory(limit, st.roots()...)
	}})
	st.ctx.SetCheck(L.RequestMemoryCheck)
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
	if errors.As(err, &le) && le.Kind == KindLimit && strings.Contains(le.Msg, limits.Prefix+"memory: ") {
		return le
	}
	return &Error{Kind: KindLimit, File: s.opts.File, Msg: memoryMessage(s.opts.MemoryLimit)}
}
