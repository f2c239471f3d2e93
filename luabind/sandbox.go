package luabind

import (
	"log/slog"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// env is what a state's modules need to know about their hook.
type env struct {
	name      string
	home      string
	logger    *slog.Logger
	perms     Permissions
	hostFuncs map[string]Func
}

// Limits of every state.
const (
	callStackSize   = 200     // Lua call frames: deep recursion fails the call, not the host
	registrySize    = 1024    // initial value stack
	registryMaxSize = 1 << 18 // the value stack never grows beyond this
	maxStringRep    = 16 << 20
)

// newSandbox creates a state with only the standard environment of a hook: string, table,
// math, coroutine, the base functions without dofile/loadfile, os.time/clock/date and a
// filtered os.getenv, print into the log, and require for the modules.
func newSandbox(e *env) *lua.LState {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:     true,
		CallStackSize:    callStackSize,
		RegistrySize:     registrySize,
		RegistryMaxSize:  registryMaxSize,
		RegistryGrowStep: 256,
	})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
		{lua.OsLibName, lua.OpenOs},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	for _, name := range []string{"dofile", "loadfile", "module", "_printregs", "_GOPHER_LUA_VERSION"} {
		g.RawSetString(name, lua.LNil)
	}
	g.RawSetString("print", L.NewFunction(basePrint(e)))
	g.RawSetString("collectgarbage", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	restrictOs(L, e)
	limitStringRep(L)
	installRequire(L, e)
	return L
}

// restrictOs keeps only os.time, os.clock, os.date and a getenv limited by permissions.
func restrictOs(L *lua.LState, e *env) {
	full := L.GetGlobal("os").(*lua.LTable)
	os := L.CreateTable(0, 4)
	for _, name := range []string{"time", "clock", "date"} {
		os.RawSetString(name, full.RawGetString(name))
	}
	os.RawSetString("getenv", L.NewFunction(func(L *lua.LState) int {
		if v, ok := e.getenv(L.CheckString(1)); ok {
			L.Push(lua.LString(v))
		} else {
			L.Push(lua.LNil)
		}
		return 1
	}))
	L.SetGlobal("os", os)
}

// limitStringRep caps string.rep so one call cannot allocate gigabytes.
func limitStringRep(L *lua.LState) {
	str := L.GetGlobal("string").(*lua.LTable)
	str.RawSetString("rep", L.NewFunction(func(L *lua.LState) int {
		s := L.CheckString(1)
		n := L.CheckInt64(2)
		if n <= 0 {
			L.Push(lua.LString(""))
			return 1
		}
		if float64(len(s))*float64(n) > maxStringRep {
			L.RaiseError("%sstring.rep result larger than %d bytes", limitPrefix, maxStringRep)
		}
		L.Push(lua.LString(strings.Repeat(s, int(n))))
		return 1
	}))
}
