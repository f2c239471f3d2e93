package luabind

import (
	"fmt"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// openTime builds the time module: now() in seconds since the epoch (with fractions) and
// sleep(seconds), which stops early with an error when the call's context ends.
func openTime(L *lua.LState, e *env) lua.LValue {
	return funcTable(L, map[string]lua.LGFunction{
		"now": fn0(func(*lua.LState) (float64, error) { return float64(time.Now().UnixNano()) / 1e9, nil }),
		"sleep": fn1(func(L *lua.LState, seconds float64) (none, error) {
			d := time.Duration(seconds * float64(time.Second))
			if d <= 0 {
				return none{}, nil
			}
			defer e.guard.wait()()
			ctx := limits.Context(L)
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return none{}, nil
			case <-ctx.Done():
				return none{}, fmt.Errorf("time.sleep interrupted: %v", ctx.Err())
			}
		}),
	})
}
