// Package luabind runs Lua handlers for the hook engine. It is the only package that
// imports gopher-lua and gopher-luar; everything else sees Go values and *Error.
//
// # Model
//
// A handler file is compiled once (LoadPlugin, LoadHandler) into bytecode. Each loaded
// handler owns a small pool of Lua states built from that bytecode; no state is shared
// between handlers, so no global leaks from one hook to another.
//
// A plugin's register(ctx) runs in every state of its pool; ctx.register_hook(name, fn)
// records the callbacks. A gateway handler must define a global function handle.
//
// # States, globals and thread safety
//
// A gopher-lua state is not goroutine-safe. Calls into one state are serialised: a call
// takes an idle state from the pool, runs, and gives it back. Options.States (default 1)
// bounds the pool. With the default, a handler behaves like one Lua program: globals set at
// load time (counters, caches) are shared by every call, and concurrent calls wait for each
// other. With States > 1, concurrent calls run in parallel on separate states, and each state
// has its own copy of the globals (a counter counts per state). Plugin, Handler and all
// their methods are safe for concurrent use.
//
// # Limits
//
// Every call runs under a context with the handler's timeout (Options.Timeout, default 5s):
// the interpreter checks it between instructions, so `while true do end` is interrupted,
// and time.sleep and host functions receive it. The call stack (200 frames) and value stack
// are bounded, so runaway recursion fails that call only; string.rep is capped. A Go panic
// in a host function is recovered and reported as the call's error. Calls are always
// protected: no Lua error or panic escapes to the caller.
//
// # Environment
//
// Handlers see string, table, math, coroutine, the base functions without dofile/loadfile,
// os.time/clock/date, os.getenv limited to Permissions.Env, print (into the log), and
// require for the modules json, log, re, time and hermes. Modules are a fixed table whose
// entries say, from the hook's Permissions, whether they exist for that hook: modules gated
// by a permission are absent, not merely refused, for hooks that did not declare it.
//
// # Conversions
//
// Go maps become tables, slices arrays (1-based), Func values callable functions, Object
// values gopher-luar userdata (for facades only). Back from Lua (ToGo): integral numbers
// become int64, tables with keys exactly 1..n become []any, other tables map[string]any,
// json.null nil; functions, userdata, threads and cycles are *Error values of KindConvert.
package luabind
