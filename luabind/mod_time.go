package luabind

import (
	"fmt"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// openTime builds the time module: now() in seconds since the epoch (with fractions) and
// sleep(seconds), which stops early with an error when the call's context ends.
func openTime(L *lua.LState, e *env) lua.LValue {
	return modules.FuncTable(L, map[string]lua.LGFunction{
		"now": modules.Fn0(func(*lua.LState) (float64, error) { return float64(time.Now().UnixNano()) / 1e9, nil }),
		"sleep": modules.Fn1(func(L *lua.LState, seconds float64) (modules.None, error) {
			d := time.Duration(seconds * float64(time.Second))
			if d <= 0 {
				return modules.None{}, nil
			}
			defer e.guard.wait()()
			ctx := limits.Context(L)
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return modules.None{}, nil
			case <-ctx.Done():
				return modules.None{}, fmt.Errorf("time.sleep interrupted: %v", ctx.Err())
			}
		}),
	})
}
