package time

import (
	"fmt"
	gotime "time"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// Module is the time module; it has nothing per hook.
type Module struct{}

// Instance is the time module in one state.
type Instance struct{ vu modules.VU }

var (
	_ modules.Module   = Module{}
	_ modules.Instance = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (Module) NewModuleInstance(vu modules.VU) modules.Instance { return &Instance{vu: vu} }

// Exports implements modules.Instance: now() in seconds since the epoch (with fractions)
// and sleep(seconds), which stops early with an error when the call's context ends.
func (i *Instance) Exports() lua.LValue {
	return modules.FuncTable(i.vu.Runtime(), map[string]lua.LGFunction{
		"now": modules.Fn0(func(*lua.LState) (float64, error) {
			i.vu.Outside()
			return float64(gotime.Now().UnixNano()) / 1e9, nil
		}),
		"sleep": modules.Fn1(i.sleep),
	})
}

func (i *Instance) sleep(L *lua.LState, seconds float64) (modules.None, error) {
	d := gotime.Duration(seconds * float64(gotime.Second))
	if d <= 0 {
		return modules.None{}, nil
	}
	defer i.vu.Wait()()
	ctx := limits.Context(L)
	t := gotime.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return modules.None{}, nil
	case <-ctx.Done():
		return modules.None{}, fmt.Errorf("time.sleep interrupted: %v", ctx.Err())
	}
}
