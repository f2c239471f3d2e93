package modulestest

import (
	"context"
	"fmt"
	"testing"
	"time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// VU is a modules.VU over a bare Lua state, for testing a module without the core: it
// counts the waits a module marks, and converts values the way the core does for JSON
// values (maps, slices, strings, numbers, booleans, nil).
type VU struct {
	L        *lua.LState
	Timeout  time.Duration // what CallTimeout answers
	Limit    int64         // what MemoryLimit answers
	Waits    int           // waits begun
	Ended    int           // waits ended
	Outsides int           // Outside calls
	OnWait   func()        // called as each wait begins, if set (to cancel the call then)

	null      *lua.LUserData
	arrayMeta *lua.LTable
}

var _ modules.VU = (*VU)(nil)

// New makes a VU over a new state, closed when the test ends.
func New(t testing.TB) *VU {
	L := lua.NewState()
	t.Cleanup(L.Close)
	return &VU{L: L}
}

// Require makes m's instance in the state and sets its exports as the global name.
func (vu *VU) Require(name string, m modules.Module) modules.Instance {
	inst := m.NewModuleInstance(vu)
	vu.L.SetGlobal(name, inst.Exports())
	return inst
}

// Runtime implements modules.VU.
func (vu *VU) Runtime() *lua.LState { return vu.L }

// Wait implements modules.VU.
func (vu *VU) Wait() func() {
	vu.Waits++
	if vu.OnWait != nil {
		vu.OnWait()
	}
	return func() { vu.Ended++ }
}

// Outside implements modules.VU.
func (vu *VU) Outside() { vu.Outsides++ }

// CallTimeout implements modules.VU.
func (vu *VU) CallTimeout() time.Duration { return vu.Timeout }

// MemoryLimit implements modules.VU.
func (vu *VU) MemoryLimit() int64 { return vu.Limit }

// JSON implements modules.VU.
func (vu *VU) JSON() (*lua.LUserData, *lua.LTable) {
	if vu.null == nil {
		vu.null = vu.L.NewUserData()
		vu.null.Value = stdlib.NullValue
		vu.arrayMeta = vu.L.CreateTable(0, 1)
		vu.arrayMeta.RawSetString(stdlib.ArrayMarkKey, lua.LString("array"))
	}
	return vu.null, vu.arrayMeta
}

// ToGo implements modules.VU.
func (vu *VU) ToGo(v lua.LValue) (any, error) { return stdlib.ToGo(context.Background(), v) }

// ToLua implements modules.VU for JSON values.
func (vu *VU) ToLua(v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case string:
		return lua.LString(x)
	case int64:
		return lua.LNumber(x)
	case int:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case []any:
		t := vu.L.CreateTable(len(x), 0)
		for _, e := range x {
			t.Append(vu.ToLua(e))
		}
		return t
	case map[string]any:
		t := vu.L.CreateTable(0, len(x))
		for k, e := range x {
			t.RawSetString(k, vu.ToLua(e))
		}
		return t
	}
	panic(fmt.Sprintf("modulestest: cannot convert a %T", v))
}
