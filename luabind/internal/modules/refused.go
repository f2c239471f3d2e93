package modules

import (
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// DryRunPrefix starts the error of every call a dry run refuses (Refused, and io.open for
// writing), so that the host can tell a hook refused by the dry run from one that failed.
const DryRunPrefix = "refused by a dry run: "

// Refused is Module with its functions refusing to run: a dry run's stand-in for a module
// whose calls reach outside the process (http, exec). require returns a table of the same
// functions, so a hook that requires it loads as it does; each call raises an error that
// starts with DryRunPrefix and names the function.
type Refused struct {
	Name   string
	Module Module
}

// NewModuleInstance implements Module.
func (r Refused) NewModuleInstance(vu VU) Instance {
	return refusedInstance{vu: vu, Refused: r}
}

type refusedInstance struct {
	vu VU
	Refused
}

// Exports implements Instance: the module's table, each function replaced by a refusal.
func (r refusedInstance) Exports() lua.LValue {
	L := r.vu.Runtime()
	inner := r.Module.NewModuleInstance(r.vu)
	if c, ok := inner.(Closer); ok {
		defer c.Close()
	}
	out := L.CreateTable(0, 4)
	if t, ok := inner.Exports().(*lua.LTable); ok {
		t.ForEach(func(k, v lua.LValue) {
			name, isName := k.(lua.LString)
			if _, isFn := v.(*lua.LFunction); !isName || !isFn {
				out.RawSet(k, v)
				return
			}
			fn := r.Name + "." + string(name)
			out.RawSet(k, L.NewFunction(func(L *lua.LState) int {
				L.RaiseError("%s%s is not run (it would reach outside the process)", DryRunPrefix, fn)
				return 0
			}))
		})
	}
	return out
}
