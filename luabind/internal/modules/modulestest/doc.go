// Package modulestest runs a module of internal/modules without the core: VU is a
// modules.VU over a bare Lua state that records the waits a module marks, so that a
// module's own tests can check what it promises the core (a sleep or a store operation is
// a wait, a decoded null is the state's json.null) in isolation. Like k6's modulestest.
//
// A VU belongs to one test and one goroutine.
package modulestest
