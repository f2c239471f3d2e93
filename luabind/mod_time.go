package luabind

import (
	"time"

	lua "github.com/yuin/gopher-lua"
)

// openTime builds the time module: now() in seconds since the epoch (with fractions) and
// sleep(seconds), which stops early with an error when the call's context ends.
func openTime(L *lua.LState, e *env) lua.LValue {
	mod := L.CreateTable(0, 2)
	mod.RawSetString("now", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(float64(time.Now().UnixNano()) / 1e9))
		return 1
	}))
	mod.RawSetString("sleep", L.NewFunction(func(L *lua.LState) int {
		d := time.Duration(float64(L.CheckNumber(1)) * float64(time.Second))
		if d <= 0 {
			return 0
		}
		defer e.guard.wait()()
		ctx := hostContext(L)
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			L.RaiseError("time.sleep interrupted: %v", ctx.Err())
		}
		return 0
	}))
	return mod
}
