package luabind

import (
	"os"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
	execmod "github.com/hermes-hooks/hermes/luabind/internal/modules/exec"
	hermesmod "github.com/hermes-hooks/hermes/luabind/internal/modules/hermes"
	httpmod "github.com/hermes-hooks/hermes/luabind/internal/modules/http"
	jsonmod "github.com/hermes-hooks/hermes/luabind/internal/modules/json"
	logmod "github.com/hermes-hooks/hermes/luabind/internal/modules/log"
	remod "github.com/hermes-hooks/hermes/luabind/internal/modules/re"
	storemod "github.com/hermes-hooks/hermes/luabind/internal/modules/store"
	timemod "github.com/hermes-hooks/hermes/luabind/internal/modules/time"
)

// moduleTable is the fixed table of the libraries require returns, made once per hook at
// load: each entry's Module (one package each under internal/modules, on the contract of
// internal/modules) is made for the hook, or nil when the hook may not use it: a module a
// hook may not use is absent, and require names the permission it needs. No init()
// registers anything. A module's functions are plain Go functions adapted by
// modules.Fn0..Fn3: json, re, time, store, http and exec. Two work on the Lua stack on
// purpose: log converts its message only when the level is enabled, and hermes's are the
// host's Funcs, adapted by wrapFunc. The io table (internal/modules/io) is a module too, but
// a global: the core installs it in every state (sandbox.go).
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
		{Name: "hermes", Module: h.hermesModule()},
		{Name: "store", Module: gated(h.store != nil, storemod.Module{Backend: h.store}), Missing: "the host gave this hook no store"},
		{Name: "http", Perm: "net", Module: gated(len(h.perms.Net) > 0, h.dryRunOf("http", httpmod.Module{Net: h.perms.Net, Version: version}))},
		{Name: "exec", Perm: "exec", Module: gated(len(h.perms.Exec) > 0, h.dryRunOf("exec", execmod.Module{Programs: h.programs, Home: h.home, Getenv: h.getenv}))},
	}
}

// dryRunOf is m, or in a dry run m with its calls refused (Options.DryRun).
func (h *hook) dryRunOf(name string, m modules.Module) modules.Module {
	if h.dryRun {
		return modules.Refused{Name: name, Module: m}
	}
	return m
}

// DryRunRefusal starts the error of every call a dry run refuses (Options.DryRun).
const DryRunRefusal = modules.DryRunPrefix

// hermesModule is the hermes module of the hook: its host functions are adapted to each
// state by wrapFunc, under the state's guard.
func (h *hook) hermesModule() *hermesmod.Module {
	funcs := make(map[string]func(modules.VU) lua.LGFunction, len(h.hostFuncs))
	for name, f := range h.hostFuncs {
		funcs[name] = func(vu modules.VU) lua.LGFunction { return wrapFunc(f, vu.(*env).guard) }
	}
	return &hermesmod.Module{Home: h.home, Name: h.name, Version: version, Funcs: funcs}
}

// version is the engine version reported to Lua as hermes.version.
const version = "0.1.0"

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
// itself (log, for print and ctx.log): it must be in the table, ungated.
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
