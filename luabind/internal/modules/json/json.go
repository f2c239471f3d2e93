package json

import (
	"errors"
	"fmt"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// Module is the json module; it has nothing per hook.
type Module struct{}

// Instance is the json module in one state.
type Instance struct{ vu modules.VU }

var (
	_ modules.Module   = Module{}
	_ modules.Instance = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (Module) NewModuleInstance(vu modules.VU) modules.Instance { return &Instance{vu: vu} }

// Exports implements modules.Instance: encode, decode, null, array.
func (i *Instance) Exports() lua.LValue {
	L := i.vu.Runtime()
	null, arrayMeta := i.vu.JSON()
	mod := modules.FuncTable(L, map[string]lua.LGFunction{
		"encode": modules.Fn1(encode),
		"decode": modules.Fn1(func(L *lua.LState, text string) (lua.LValue, error) {
			v, err := stdlib.DecodeLua(L, text, i.vu.MemoryLimit(), null, arrayMeta)
			if err != nil {
				return nil, fmt.Errorf("json.decode: %v", err)
			}
			return v, nil
		}),
		"array": modules.Fn1(func(L *lua.LState, t lua.LValue) (lua.LValue, error) {
			table, ok := t.(*lua.LTable)
			switch {
			case t == lua.LNil:
				table = L.NewTable()
			case !ok:
				L.ArgError(1, "table expected, got "+t.Type().String())
			}
			L.SetMetatable(table, arrayMeta)
			return table, nil
		}),
	})
	mod.RawSetString("null", null)
	return mod
}

// encode is json.encode: the text of value, keys sorted, within the size limit.
func encode(L *lua.LState, value lua.LValue) (string, error) {
	if value == lua.LNil && L.GetTop() == 0 {
		L.ArgError(1, "value expected")
	}
	text, err := stdlib.EncodeLua(value, &limits.Poller{L: L})
	if errors.Is(err, stdlib.ErrJSONSize) {
		return "", err
	} else if err != nil {
		return "", fmt.Errorf("json.encode: %v", err)
	}
	limits.ChargeString(L, len(text))
	return text, nil
}
