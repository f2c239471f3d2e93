// Package modules is the contract between the core (luabind) and the libraries `require`
// returns (json, re, time, log, http, io, exec, store, hermes: one package each under
// luabind/internal/), on the model of grafana/k6's js/modules: a Module, made once per hook
// from what the hook declares, makes an Instance per Lua state (NewModuleInstance), given the
// state's VU; the Instance's Exports is the value require returns.
//
// A module's functions are plain Go functions exported through one adapter (Fn0..Fn3, Arg,
// Opt, Values, None, ArgError, FuncTable): arguments are read and checked by type, results
// pushed by type, and a returned error is raised in Lua.
//
// Module packages import this package, the interpreter, internal/limits and
// internal/stdlib, never one another and never luabind (tests/deps holds that). The core
// keeps the fixed table of modules (luabind/modules.go): a Def per module, whose Module is
// nil when the hook may not use it.
//
// # Lifecycle and thread safety
//
// A Module is made at load and read-only afterwards; it may be shared by the states of its
// hook, which run in parallel. An Instance belongs to one state: it is made, used and
// closed (Closer) in the goroutine running that state, one call at a time, so it needs no
// lock of its own.
package modules
