package luabind

import (
	"time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// env is the VU of the modules: a state's view of its hook.
var _ modules.VU = (*env)(nil)

// Runtime implements modules.VU.
func (e *env) Runtime() *lua.LState { return e.L }

// Wait implements modules.VU: the call's guard counts the wait (limits.Guard).
func (e *env) Wait() (done func()) { return e.guard.Wait() }

// Outside implements modules.VU.
func (e *env) Outside() { e.guard.MarkOutside() }

// CallTimeout implements modules.VU.
func (e *env) CallTimeout() time.Duration {
	if e == nil || e.guard == nil {
		return 0
	}
	return e.guard.Timeout()
}

// MemoryLimit implements modules.VU: the state's memory limit, 0 when none is known.
func (e *env) MemoryLimit() int64 {
	if e == nil || e.guard == nil {
		return 0
	}
	return e.guard.Budget()
}

// JSON implements modules.VU.
func (e *env) JSON() (*lua.LUserData, *lua.LTable) {
	j := e.jsonValues(e.L)
	return j.null, j.arrayMeta
}

// ToGo implements modules.VU.
func (e *env) ToGo(v lua.LValue) (any, error) { return toGo(e.L, v) }

// ToLua implements modules.VU.
func (e *env) ToLua(v any) lua.LValue { return toLua(e.L, v) }
