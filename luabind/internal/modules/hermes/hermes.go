package hermes

import (
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// Module is the hermes module of one hook: where it runs and the host's functions.
type Module struct {
	Home    string // the hermes home
	Name    string // the hook's name
	Version string // the engine's version
	// Funcs are the host's functions (Options.HostFuncs), each adapted to a state by the
	// core: the adapter converts arguments and result and marks the call as waiting
	// outside Lua while the function runs.
	Funcs map[string]func(modules.VU) lua.LGFunction
}

// Instance is the hermes module in one state.
type Instance struct {
	vu modules.VU
	m  *Module
}

var (
	_ modules.Module   = (*Module)(nil)
	_ modules.Instance = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (m *Module) NewModuleInstance(vu modules.VU) modules.Instance { return &Instance{vu: vu, m: m} }

// Exports implements modules.Instance: home, version, name, and the host's functions.
func (i *Instance) Exports() lua.LValue {
	L := i.vu.Runtime()
	mod := L.CreateTable(0, 2+len(i.m.Funcs))
	mod.RawSetString("home", lua.LString(i.m.Home))
	mod.RawSetString("version", lua.LString(i.m.Version))
	mod.RawSetString("name", lua.LString(i.m.Name))
	for name, f := range i.m.Funcs {
		mod.RawSetString(name, L.NewFunction(f(i.vu)))
	}
	return mod
}
