// Package limits holds what bounds a hook's call, as the core, the standard library
// (internal/stdlib) and every module apply it (SPEC §6.2, §6.6):
//
//   - the call's context (Call, callctx.go): one per state, re-armed for every call with no
//     allocation, timer or goroutine; the interpreter polls its PollContext every 1024
//     instructions and before every call of a Go function, and host functions wait on the
//     Call itself (Context); HostStop says why the host stopped a call;
//   - the watchdog (Guard, guard.go): one goroutine per process, while calls are in flight,
//     that times calls out and asks a state whose call saw the heap grow past its budget to
//     measure what it holds; a call's waits outside Lua (Guard.Wait) are the host's and
//     are forgiven, and its pool is told of them (Waiter);
//   - sizes and polling in library functions (budget.go): no result larger than
//     MaxStringSize (CheckSize, SizeError), and a Poller for loops;
//   - memory charges (memory.go): what the host hands Lua is charged to the state's account
//     before it becomes Lua values (ChargeString, ChargeStrings), and what compiling
//     source takes (CompileCost).
//
// The memory account itself and the walk of what a state holds, which it falls back on
// before failing an allocation, are the interpreter's (internal/lua/memory.go, memwalk.go);
// the roots the walk starts from outside Lua are the core's (luabind/memory.go). Limit
// messages start with Prefix, which the core turns into a KindLimit error.
//
// A Call and its Guard belong to one state: Begin, End and the state's work run in the
// goroutine running it; Interrupt, Done, Err and the watchdog may come from any goroutine
// and take the Call's lock. The common call (under context.Background) begins and ends
// without it: they write the call's word (Guard.run), which a cancellation claims by
// compare-and-swap under the lock. Everything else here works on one Lua state, in its goroutine.
package limits
