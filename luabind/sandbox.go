package luabind

import (
	"context"
	"errors"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"log/slog"

	iomod "github.com/hermes-hooks/hermes/luabind/internal/modules/io"

	execmod "github.com/hermes-hooks/hermes/luabind/internal/modules/exec"

	logmod "github.com/hermes-hooks/hermes/luabind/internal/modules/log"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// hook is what every state of one handler shares. It is read-only after load.
type hook struct {
	name      string
	home      string
	logger    *slog.Logger
	perms     hookspec.Permissions
	hostFuncs map[string]hookspec.Func
	store     hookspec.Store    // nil: the store module is absent
	fsRoots   []iomod.Root      // permissions.fs entries, resolved and opened once at load (io.ResolveRoots)
	programs  []execmod.Program // permissions.exec entries, resolved once at load (exec.ResolvePrograms)
	modules   []modules.Def     // what require may return (modules.go)
	dryRun    bool              // Options.DryRun
}

// env is one state's view of its hook, plus the resources of that state: the memory guard
// of the call in progress and the module instances (the files io opened, the http
// client). It is the modules' VU (vu.go). A state runs one call at a time, so these need
// no lock, except the guard fields the watchdog reads.
type env struct {
	_ cacheLinePad
	*hook
	L       *lua.LState
	made    []modules.Instance // per entry of modules: its instance in this state, once made
	closers []modules.Closer   // the module instances to close with the state
	poll    context.Context    // the state's limits.PollContext, for the interpreter and coroutines
	guard   *limits.Guard      // the state's, in its callContext
	coDepth int                // coroutines being resumed inside one another
	io      *iomod.Instance    // the io table: the files the call in progress opened
	log     *logmod.Instance   // the log module, print and ctx.log: what the call logged
	json    *jsonValues
	loaded  *lua.LTable // the modules require has opened, a root of what the state holds
	_       cacheLinePad
}

// closeCall releases what the call in progress left open, and reports the log records it
// dropped.
func (e *env) closeCall() {
	e.io.EndCall()
	e.log.EndCall()
}

// close releases everything the state holds outside Lua.
func (e *env) close() {
	for _, c := range e.closers {
		c.Close()
	}
}

// Limits of every state.
const (
	callStackSize    = 200     // Lua call frames: deep recursion fails the call, not the host
	registrySize     = 256     // initial value stack (it grows on demand)
	registryMaxSize  = 1 << 18 // the value stack never grows beyond this
	registryGrowStep = 1 << 14 // growth is linear: a small step makes filling the stack quadratic
	maxCoroutines    = 128     // coroutines resumed inside one another (Lua's "C stack overflow")
)

// newSandbox creates a state with only the standard environment of a hook: string, table,
// math, coroutine, the base functions without dofile/loadfile, os.time/clock/date and a
// filtered os.getenv, io limited to permissions.fs, print into the log, and require for the
// modules. gopher-lua's own io and os libraries are never exposed.
func newSandbox(e *env) *lua.LState {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       callStackSize,
		MinimizeStackMemory: true, // call frames grow on demand: most hooks are shallow
		RegistrySize:        registrySize,
		RegistryMaxSize:     registryMaxSize,
		RegistryGrowStep:    registryGrowStep,
		// `..` is an instruction, not a library function: the interpreter checks its size.
		MaxStringSize:   limits.MaxStringSize,
		StringSizeError: limits.SizeError("..").Error(),
	})
	e.L = L
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
	e.log = e.instanceNamed("log").(*logmod.Instance)
	g.RawSetString("print", L.NewFunction(e.log.Print()))
	g.RawSetString("collectgarbage", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	restrictOs(L, e)
	stdlib.InstallOs(L)
	markOutsideReads(L, e)
	stdlib.InstallBase(L)
	stdlib.InstallString(L)
	limitCoroutines(L, e)
	stdlib.InstallLoad(L)
	e.io = iomod.Module{Roots: e.fsRoots, FS: e.perms.FS, ReadOnly: e.dryRun}.NewModuleInstance(e).(*iomod.Instance)
	e.closers = append(e.closers, e.io)
	L.SetGlobal("io", e.io.Exports())
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

// markOutsideReads makes the base functions that read outside Lua (the clock, the
// environment, the random generator) record it (modules.VU.Outside): a plugin whose loading
// called one may register other hooks at another load (Plugin.Pure).
func markOutsideReads(L *lua.LState, e *env) {
	for _, lib := range []struct{ table, fn string }{
		{"os", "time"}, {"os", "clock"}, {"os", "date"}, {"os", "getenv"}, {"math", "random"},
	} {
		t := L.GetGlobal(lib.table).(*lua.LTable)
		f := t.RawGetString(lib.fn).(*lua.LFunction).GFunction
		t.RawSetString(lib.fn, L.NewFunction(func(L *lua.LState) int {
			e.Outside()
			return f(L)
		}))
	}
}

// limitCoroutines bounds how deeply coroutines may resume one another. Each resume nests
// the Go stack and each coroutine has its own Lua stacks, so `local function f()
// coroutine.wrap(f)() end` would otherwise grow both without bound. coroutine.wrap is
// rebuilt over the same check.
func limitCoroutines(L *lua.LState, e *env) {
	co := L.GetGlobal("coroutine").(*lua.LTable)
	enter := func(L *lua.LState) func() {
		if e.coDepth >= maxCoroutines {
			L.Error(lua.LString(fmt.Sprintf("%scoroutines resumed inside one another more than %d deep", limits.Prefix, maxCoroutines)), 0)
		}
		e.coDepth++
		return func() { e.coDepth-- }
	}
	// A coroutine polls the state's context, as the state itself does; gopher-lua would
	// derive one from the context current at its creation, which may be an earlier call's.
	create := co.RawGetString("create")
	co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
		L.Insert(create, 1)
		L.Call(L.GetTop()-1, 1)
		th := L.CheckThread(-1)
		th.SetContext(e.poll)
		return 1
	}))
	resume := co.RawGetString("resume")
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		defer enter(L)()
		L.Insert(resume, 1)
		L.Call(L.GetTop()-1, lua.MultRet)
		return L.GetTop()
	}))
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		fn := L.CheckFunction(1)
		th, _ := L.NewThread()
		th.SetContext(e.poll)
		L.Push(L.NewFunction(func(L *lua.LState) int {
			defer enter(L)()
			args := make([]lua.LValue, L.GetTop())
			for i := range args {
				args[i] = L.Get(i + 1)
			}
			if th == nil {
				L.Error(lua.LString("cannot resume dead coroutine"), 0)
			}
			st, err, values := L.Resume(th, fn, args...)
			if st != lua.ResumeYield {
				// Dead: forget it, so that a stale reference to this function (gopher-lua
				// keeps finished call frames) does not keep its stacks alive.
				th, fn = nil, nil
			}
			if st == lua.ResumeError {
				var ae *lua.ApiError
				if errors.As(err, &ae) && ae.Object != nil {
					L.Error(ae.Object, 0)
				}
				L.Error(lua.LString(err.Error()), 0)
			}
			for _, v := range values {
				L.Push(v)
			}
			return len(values)
		}))
		return 1
	}))
}
