package luabind

import (
	"os"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// A module is one library that `require` can return. available decides, from the hook's
// declared permissions, whether the module exists at all for that hook: a module a hook
// may not use is not merely refused, it is absent. Permission-gated modules (http, exec,
// file I/O) join this table with an available function that checks their permission.
type module struct {
	name      string
	perm      string // the permission that gates the module, for messages; "" = none
	available func(*env) bool
	open      func(*lua.LState, *env) lua.LValue
}

func always(*env) bool { return true }

func hasNet(e *env) bool  { return len(e.perms.Net) > 0 }
func hasExec(e *env) bool { return len(e.perms.Exec) > 0 }

// modules is the fixed table of libraries. It is never modified after init. A module's
// functions are plain Go functions adapted by fn0..fn3 (export.go): json, re, time, http and
// exec. Three work on the Lua stack on purpose: log converts its message only when the level
// is enabled, io's functions are methods of file objects, and hermes's are the host's
// Funcs, adapted by wrapFunc.
var modules = []module{
	{name: "json", available: always, open: openJSON},
	{name: "log", available: always, open: openLog},
	{name: "re", available: always, open: openRe},
	{name: "time", available: always, open: openTime},
	{name: "hermes", available: always, open: openHermes},
	{name: "store", available: hasStore, open: openStore},
	{name: "http", perm: "net", available: hasNet, open: openHTTP},
	{name: "exec", perm: "exec", available: hasExec, open: openExec},
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

// installRequire defines require(name), which returns the loaded module, opening it on
// first use. Unknown or unavailable names are errors that say why.
func installRequire(L *lua.LState, e *env) {
	loaded := L.CreateTable(0, len(modules))
	e.loaded = loaded
	L.SetGlobal("require", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		if v := loaded.RawGetString(name); v != lua.LNil {
			L.Push(v)
			return 1
		}
		for _, m := range modules {
			if m.name != name {
				continue
			}
			if !m.available(e) && m.perm == "" {
				L.RaiseError("module %q is not available here: the host gave this hook no store", name)
			}
			if !m.available(e) {
				L.RaiseError("module %q needs permissions.%s in the manifest (add it to the hook's permissions to use %s)", name, m.perm, name)
			}
			v := m.open(L, e)
			loaded.RawSetString(name, v)
			L.Push(v)
			return 1
		}
		L.RaiseError("module %q not found (available: %s)", name, availableNames(e))
		return 0
	}))
}

func availableNames(e *env) string {
	s := ""
	for _, m := range modules {
		if m.available(e) {
			if s != "" {
				s += ", "
			}
			s += m.name
		}
	}
	return s
}

// getenv answers only for the names declared in permissions.env ("*" allows all).
func (e *env) getenv(name string) (string, bool) {
	for _, allowed := range e.perms.Env {
		if allowed == "*" || allowed == name {
			return os.LookupEnv(name)
		}
	}
	return "", false
}
