package luabind

import (
	"os"

	execmod "github.com/hermes-hooks/hermes/luabind/internal/modules/exec"

	httpmod "github.com/hermes-hooks/hermes/luabind/internal/modules/http"

	storemod "github.com/hermes-hooks/hermes/luabind/internal/modules/store"

	logmod "github.com/hermes-hooks/hermes/luabind/internal/modules/log"

	remod "github.com/hermes-hooks/hermes/luabind/internal/modules/re"

	jsonmod "github.com/hermes-hooks/hermes/luabind/internal/modules/json"

	timemod "github.com/hermes-hooks/hermes/luabind/internal/modules/time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// A module of this package not yet in a package of its own: opened on the state's env.
type localModule func(*lua.LState, *env) lua.LValue

type localInstance struct {
	open localModule
	e    *env
}

func (m localModule) NewModuleInstance(vu modules.VU) modules.Instance {
	return localInstance{open: m, e: vu.(*env)}
}

func (i localInstance) Exports() lua.LValue { return i.open(i.e.L, i.e) }

// moduleTable is the fixed table of libraries, made once per hook at load: each entry's
// Module is made for the hook, or nil when the hook may not use it. A module's functions
// are plain Go functions adapted by modules.Fn0..Fn3: json, re, time, http and exec. Three
// work on the Lua stack on purpose: log converts its message only when the level is
// enabled, io's functions are methods of file objects, and hermes's are the host's Funcs,
// adapted by wrapFunc.
func (h *hook) moduleTable() []modules.Def {
	gated := func(ok bool, m modules.Module) modules.Module {
		if ok {
			return m
		}
		return nil
	}
	return []modules.Def{
		{Name: "json", Module: jsonmod.Module{}},
		{Name: "log", Module: logmod.Module{Logger: h.logger}},
		{Name: "re", Module: remod.Module{}},
		{Name: "time", Module: timemod.Module{}},
		{Name: "hermes", Module: localModule(openHermes)},
		{Name: "store", Module: gated(h.store != nil, storemod.Module{Backend: h.store}), Missing: "the host gave this hook no store"},
		{Name: "http", Perm: "net", Module: gated(len(h.perms.Net) > 0, httpmod.Module{Net: h.perms.Net, Version: Version})},
		{Name: "exec", Perm: "exec", Module: gated(len(h.perms.Exec) > 0, execmod.Module{Programs: h.programs, Home: h.home, Getenv: h.getenv})},
	}
}

// openHermes builds the hermes module: home, version, and the host's functions.
func openHermes(L *lua.LState, e *env) lua.LValue {
	mod := L.CreateTable(0, 2+len(e.hostFuncs))
	mod.RawSetString("home", lua.LString(e.home))
	mod.RawSetString("version", lua.LString(Version))
	mod.RawSetString("name", lua.LString(e.name))
	for name, f := range e.hostFuncs {
		mod.RawSetString(name, L.NewFunction(wrapFunc(f, e.guard)))
	}
	return mod
}

// Version is the engine version reported to Lua as hermes.version.
const Version = "0.1.0"

// installRequire defines require(name), which returns the loaded module, making its
// instance for this state on first use. Unknown or unavailable names are errors that say
// why.
func installRequire(L *lua.LState, e *env) {
	loaded := L.CreateTable(0, len(e.modules))
	e.loaded = loaded
	L.SetGlobal("require", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		if v := loaded.RawGetString(name); v != lua.LNil {
			L.Push(v)
			return 1
		}
		for i, m := range e.modules {
			if m.Name != name {
				continue
			}
			if m.Module == nil && m.Perm == "" {
				L.RaiseError("module %q is not available here: %s", name, m.Missing)
			}
			if m.Module == nil {
				L.RaiseError("module %q needs permissions.%s in the manifest (add it to the hook's permissions to use %s)", name, m.Perm, name)
			}
			v := e.instance(i).Exports()
			loaded.RawSetString(name, v)
			L.Push(v)
			return 1
		}
		L.RaiseError("module %q not found (available: %s)", name, availableNames(e))
		return 0
	}))
}

// instance is the state's instance of module i, made on first use.
func (e *env) instance(i int) modules.Instance {
	if e.made == nil {
		e.made = make([]modules.Instance, len(e.modules))
	}
	if e.made[i] == nil {
		e.made[i] = e.modules[i].Module.NewModuleInstance(e)
		if c, ok := e.made[i].(modules.Closer); ok {
			e.closers = append(e.closers, c)
		}
	}
	return e.made[i]
}

// instanceNamed is the state's instance of the module named name, which the core uses
// itself (log for print, io for the io table): it must be in the table, ungated.
func (e *env) instanceNamed(name string) modules.Instance {
	for i, m := range e.modules {
		if m.Name == name {
			return e.instance(i)
		}
	}
	panic("luabind: no module " + name)
}

func availableNames(e *env) string {
	s := ""
	for _, m := range e.modules {
		if m.Module != nil {
			if s != "" {
				s += ", "
			}
			s += m.Name
		}
	}
	return s
}

// getenv answers only for the names declared in permissions.env ("*" allows all).
func (h *hook) getenv(name string) (string, bool) {
	for _, allowed := range h.perms.Env {
		if allowed == "*" || allowed == name {
			return os.LookupEnv(name)
		}
	}
	return "", false
}
