package luabind

import (
	"context"
	"fmt"
	"slices"

	"github.com/hermes-hooks/hermes/internal/hooknames"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Registration is one ctx.register_hook(name, fn) call made by a plugin's register(ctx).
type Registration struct {
	Hook string // the hook name as given (not validated here)
	Line int    // line of the register_hook call in the handler file
	// FreshKwargs says why the callback gets a new kwargs table for every call rather than
	// a refilled one ("line 5: kw is passed to a function"); "" when it is refilled (see
	// doc.go, Kwargs tables).
	FreshKwargs string
}

// Plugin is a loaded plugin handler: register(ctx) has run and its callbacks are known.
// Call is safe for concurrent use.
type Plugin struct {
	s    *script
	regs []Registration
	pure bool // loading read nothing outside the source and Options (Pure)
}

// LoadPlugin compiles src, runs it in a new sandboxed state and calls its global
// register(ctx). Errors are *Error values naming the file and, where known, the line.
func LoadPlugin(ctx context.Context, src []byte, opts Options) (*Plugin, error) {
	s, err := newScript(src, opts)
	if err != nil {
		return nil, err
	}
	p := &Plugin{s: s}
	s.setup = p.register
	if err := s.start(ctx); err != nil {
		s.close()
		return nil, err
	}
	if p.Wraps() {
		s.pool.raise(opts.WrapMaxStates)
	}
	return p, nil
}

// Wraps reports whether the plugin registered a wrap hook (wrap_tool_call, wrap_llm_call).
func (p *Plugin) Wraps() bool {
	for _, r := range p.regs {
		if hooknames.IsWrap(r.Hook) {
			return true
		}
	}
	return false
}

// MaxStates is the bound the plugin's pool grows to (Options.MaxStates, or WrapMaxStates
// for a plugin that wraps).
func (p *Plugin) MaxStates() int { return int(p.s.pool.limit.Load()) }

// Pure reports whether loading the plugin (its top-level code and register(ctx)) read
// nothing but its source and its Options: no store, http, exec, host function, sleep,
// clock, environment variable, file or random number. A pure plugin registers the same
// hooks at every load of the same source with the same Options.
func (p *Plugin) Pure() bool { return p.pure }

// Registrations lists the plugin's callbacks in registration order; the index of each is
// the index to pass to Call.
func (p *Plugin) Registrations() []Registration { return p.regs }

// CallTimed runs callback i with one argument, the kwargs (a map[string]any or a Table),
// under the plugin's timeout, and returns its first result converted to Go. It says how
// long the call waited for a free Lua state (Timing.Wait) and, when timed, how long it ran
// (Timing.Run, which never includes the wait). A timed call reads the clock twice; either reads it twice more when it has to
// wait, and an untimed call that finds a state idle reads it not at all.
func (p *Plugin) CallTimed(ctx context.Context, i int, kwargs any, timed bool) (any, Timing, error) {
	return p.s.call(ctx, i, []any{kwargs}, timed)
}

// Close releases the plugin's Lua states; calls in flight finish first.
func (p *Plugin) Close() { p.s.close() }

// Interrupt stops the calls in flight now, those running and those waiting for a free Lua
// state: they return a KindCanceled error that names why. Calls made later run as usual.
// Use it after Close when waiting for them is over.
func (p *Plugin) Interrupt(why error) { p.s.interrupt(why) }

// register runs the handler's register(ctx) in a fresh state. Every state must register
// the same hooks in the same order, so that callback indexes agree across the pool.
func (p *Plugin) register(ctx context.Context, st *state) error {
	L := st.L
	file := p.s.opts.File
	fn, ok := L.GetGlobal("register").(*lua.LFunction)
	if !ok {
		return &Error{Kind: KindLoad, File: file, Msg: "no global function register(ctx): define `function register(ctx) ... end`"}
	}
	var regs []Registration
	var fns []*lua.LFunction
	ctxTable := L.CreateTable(0, 5)
	ctxTable.RawSetString("name", lua.LString(p.s.opts.Name))
	ctxTable.RawSetString("home", lua.LString(p.s.opts.Home))
	ctxTable.RawSetString("config", toLua(L, p.s.opts.Config))
	ctxTable.RawSetString("log", st.env.log.Exports())
	ctxTable.RawSetString("register_hook", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		cb := L.CheckFunction(2)
		line := 0
		if dbg, ok := L.GetStack(1); ok && getInfoOK(L, "l", dbg) {
			line = dbg.CurrentLine
		}
		regs = append(regs, Registration{Hook: name, Line: line})
		fns = append(fns, cb)
		return 0
	}))
	L.Push(fn)
	L.Push(ctxTable)
	if err := L.PCall(1, 0, nil); err != nil {
		le := fromCallError(file, ctx, "register(ctx) timed out after "+p.s.opts.Timeout.String(), err)
		if le.Kind == KindRuntime {
			le.Msg = "error in register(ctx): " + le.Msg
		}
		return le
	}
	if p.regs != nil && !slices.EqualFunc(regs, p.regs, func(a, b Registration) bool { return a.Hook == b.Hook }) {
		return &Error{Kind: KindLoad, File: file, Msg: fmt.Sprintf(
			"register(ctx) registered different hooks in a second Lua state (%d vs %d): keep register deterministic", len(regs), len(p.regs))}
	}
	if p.regs == nil {
		for i, fn := range fns {
			if fn.IsG {
				regs[i].FreshKwargs = "the callback is a Go function"
			} else {
				regs[i].FreshKwargs = analyze(fn, 0).Why
			}
		}
		p.regs, p.pure = regs, !st.env.guard.Outside()
		if p.regs == nil {
			p.regs = []Registration{}
		}
	}
	st.fns = fns
	return nil
}
