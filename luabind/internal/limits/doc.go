// Package limits holds what no library function or module may do to the host (SPEC §6.6),
// as the core, the standard library (internal/stdlib) and every module apply it: build a
// value larger than MaxStringSize (CheckSize, SizeError), run for long without looking at
// the call's context (Poller, Context), or hand Lua what the host read without charging the
// state's memory account (ChargeString, ChargeStrings, CompileCost). Limit messages start
// with Prefix, which the core turns into a KindLimit error.
//
// The memory account itself, and the walk of what a state holds that it falls back on, are
// the interpreter's (internal/lua/memory.go, memwalk.go); the call context the interpreter
// polls is the core's (luabind/callctx.go), which Context unwraps for host functions.
//
// Everything here works on one Lua state, in the goroutine running it; nothing is shared.
package limits
