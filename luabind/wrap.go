package luabind

import (
	"context"
	"fmt"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Next runs what a wrap callback stands around: the rest of its chain and the call itself.
// arg is the one argument the callback passed to next, converted to Go (nil when it passed
// none); the result goes back to Lua as next's return value, and an error is raised in Lua
// with err.Error() as its message (no position: it is the call's error, not the hook's).
// ctx is the call's context: the host's, ended early only when the hook is closed.
type Next func(ctx context.Context, arg any) (any, error)

// CallWrap runs callback i as a wrap callback: with two arguments, the kwargs (as for
// CallTimed) and a Lua function next that calls n. While the callback waits in next, its
// own timeout is stopped (the wrapped call's time is not the hook's) and the state counts
// as waiting on I/O, so the plugin's other calls may take an extra state meanwhile (up to
// Options.MaxStates). Timing.Run leaves out the time spent in next.
func (p *Plugin) CallWrap(ctx context.Context, i int, kwargs any, n Next, timed bool) (any, Timing, error) {
	return p.s.callWith(ctx, i, []any{kwargs}, n, nil, timed)
}

// nextCall is the next function of one wrap call.
type nextCall struct {
	next   Next
	guard  *limits.Guard
	inside time.Duration // time spent in next, summed over its calls
	over   bool          // the wrap call returned: next may not run the call any more
}

// lua is next as Lua sees it: next(arg) returns the call's result or raises its error. A
// next kept after its call returned (in a global, for a later call) raises instead of
// running a call that is over.
func (w *nextCall) lua(L *lua.LState) int {
	if w.over {
		L.RaiseError("next called after its wrap call returned: call next only inside the callback that received it")
	}
	var arg any
	if L.GetTop() >= 1 {
		v, err := toGo(L, L.Get(1))
		if err != nil {
			L.ArgError(1, err.Error())
		}
		arg = v
	}
	resume := w.guard.Pause()
	start := limits.MonoNow()
	res, err := callNext(limits.Context(L), w.next, arg)
	w.inside += time.Duration(limits.MonoNow() - start)
	resume()
	if err != nil {
		L.Error(lua.LString(err.Error()), 0)
	}
	limits.ChargeStrings(L, res)
	L.Push(toLua(L, res))
	return 1
}

// callNext calls n, turning a panic into an error: a host's bug is the call's error, not a
// crash of the hook's state.
func callNext(ctx context.Context, n Next, arg any) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("panic in the wrapped call: %v", r)
		}
	}()
	return n(ctx, arg)
}
