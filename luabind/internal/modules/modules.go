package modules

import (
	"time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Module is a library `require` can return, made for one hook: what every state of the
// hook shares (its permissions, its store, the programs it may run), read-only once made.
// NewModuleInstance is called once per state, the first time code in that state requires
// the module, in the goroutine running the state.
type Module interface {
	NewModuleInstance(vu VU) Instance
}

// Instance is a module in one state: what the module keeps per state (a client, open
// files) and the value require returns.
type Instance interface {
	// Exports is the value require returns. It is called once, right after the instance
	// is made, and the core keeps the value for later requires.
	Exports() lua.LValue
}

// Closer is an Instance that holds something outside Lua (connections): the core calls
// Close when the state is closed, after its last call.
type Closer interface {
	Close()
}

// VU is one Lua state of a hook as its modules see it. Its methods are called from the
// goroutine running the state, during a call.
type VU interface {
	// Runtime is the state.
	Runtime() *lua.LState
	// Wait marks the call in progress as waiting outside Lua (I/O, a sleep) until the
	// returned function is called. The memory guard forgives what the heap gains meanwhile,
	// so the wait must not cover building what Lua receives, and the pool lets other calls
	// of the hook have a state.
	Wait() (done func())
	// Outside records that the call read something from outside Lua without a Wait (the
	// clock, a file), so what it computed may differ from one run to the next: a plugin whose
	// loading did so is always loaded, its registrations never taken from a cache. Wait
	// records it too.
	Outside()
	// CallTimeout is the timeout of the call in progress; 0 when none.
	CallTimeout() time.Duration
	// MemoryLimit is what the state may hold, in bytes; 0 when none is known.
	MemoryLimit() int64
	// JSON is the state's json.null and the metatable json.array sets: the json module and
	// the http module's decoded responses share them, so `v == json.null` holds for both.
	JSON() (null *lua.LUserData, arrayMeta *lua.LTable)
	// ToGo converts a Lua value to Go as everything crossing to the host is converted
	// (integral numbers int64, arrays []any, other tables map[string]any, json.null nil).
	ToGo(v lua.LValue) (any, error)
	// ToLua converts a Go value to Lua, as a host function's result is converted.
	ToLua(v any) lua.LValue
}

// Def is one entry of the fixed module table: a name, the permission that gates the module
// (for messages; "" = none), and the module made for the hook, nil when the hook may not
// use it: a module a hook may not use is not merely refused, it is absent, and require
// names the permission it needs.
type Def struct {
	Name   string
	Perm   string
	Module Module
	// Missing says why the module is absent when no permission gates it ("the host gave
	// this hook no store").
	Missing string
}
