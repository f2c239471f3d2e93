package luabind

import (
	"context"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Costs of gopher-lua's interpreter that a hook pays on every pass of its loops, and how
// they are removed without changing what any program computes. All of it is ordinary code
// of the fork (internal/lua: vm.go's mainLoop, fastpath.go; PATCHES.md, entries 2 to 5);
// luabind only marks its functions, sets the state's options and calls the table helpers:
//
//   - The call's context is polled by the interpreter loop every 1024 instructions, so that
//     straight-line code stops too, before every call of a Go function (none starts once
//     the call is stopped), after every `..` that builds 64 KiB or more, and on returning
//     to Go, through limits.PollContext's Stopped (internal/limits/callctx.go: one atomic
//     load) rather than gopher-lua's select on Done before every
//     instruction. startCall refuses to start a call whose context is already done. A
//     stopped call raises the same error at the next poll.
//   - A generic for over ipairs calls the iterator as a Go function on every step, with a
//     call frame pushed and popped, and string.find(s, p, init, true), the usual deny-list
//     test, is called the same way. Our ipairsAux and strFind carry the fork's builtin marks
//     (lua.BuiltinIpairsIter, lua.BuiltinStringFind; internal/stdlib): OP_TFORLOOP
//     takes ipairs' step itself for a table and a number, and OP_CALL answers a plain find
//     itself for arguments of the usual types, with the same results and registers.
//   - Setting a string key (`{tool = x}`, `t.k = v`, `t[s] = v`) goes through
//     LTable.RawSetString, which boxes the key again for the table's key list although the
//     instruction holds it boxed (a constant, or the register's value). OP_SETTABLEKS and
//     OP_SETTABLE do RawSetString's work themselves with the boxed key when the table has
//     no metatable, and OP_NEWTABLE sizes a constructor's key list once. Here, tables built
//     from Go maps get their key list sized once (newKeyedTable, LTable.ReserveKeys), a
//     refilled kwargs value is set without a key-list lookup (LTable.ReplaceString), and
//     tables are walked in Next's order without Next's two lookups per pair (LTable.Pairs).
//   - `a .. b .. c` of strings built a list of the strings, joined them and boxed the
//     result: three allocations. OP_CONCAT joins strings into one buffer the result then
//     uses; numbers and metamethods go the plain way. `..` is an instruction, not a library
//     function, so its size bound is the state's option (lua.Options.MaxStringSize, set in
//     newSandbox with limits.CheckSize's message): a result larger than limits.MaxStringSize is refused
//     before anything is built.
//
// Anything else (other iterators and functions, unusual arguments) goes the plain way.
// lua.Options.SkipFastPaths runs every instruction the plain way: the differential tests
// and fuzz targets (vmfast_test.go, baselib_test.go) compare every fast path with it.

// startCall is L.PCall(nargs, nret, nil) for a call under ctx, L's context, which does not
// enter the interpreter when ctx is already done: the call fails with the context's own
// error, where the interpreter would raise it as a Lua error at the call's first
// instruction.
func startCall(L *lua.LState, nargs, nret int, ctx context.Context) error {
	if pc, ok := ctx.(limits.PollContext); ok && pc.Stopped() {
		return pc.Err()
	}
	return L.PCall(nargs, nret, nil)
}

// newKeyedTable is L.CreateTable(0, n) for n string keys, its key list sized once:
// RawSetString grows it key by key.
func newKeyedTable(L *lua.LState, n int) *lua.LTable {
	tb := L.CreateTable(0, n)
	tb.ReserveKeys(n)
	return tb
}
