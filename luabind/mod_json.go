package luabind

import (
	"errors"
	"fmt"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// jsonValues are one state's json.null and the metatable json.array sets. The json module
// and the http module's decoded responses share them, so `v == json.null` holds for both.
type jsonValues struct {
	null      *lua.LUserData
	arrayMeta *lua.LTable
}

// jsonValues returns the state's json modules.Values, creating them on first use.
func (e *env) jsonValues(L *lua.LState) *jsonValues {
	if e.json == nil {
		null := L.NewUserData()
		null.Value = stdlib.NullValue
		arrayMeta := L.CreateTable(0, 1)
		arrayMeta.RawSetString(stdlib.ArrayMarkKey, lua.LString("array"))
		e.json = &jsonValues{null: null, arrayMeta: arrayMeta}
	}
	return e.json
}

// openJSON builds the json module: encode, decode, null, array.
func openJSON(L *lua.LState, e *env) lua.LValue {
	jv := e.jsonValues(L)
	null, arrayMeta := jv.null, jv.arrayMeta

	mod := modules.FuncTable(L, map[string]lua.LGFunction{
		"encode": modules.Fn1(func(L *lua.LState, value lua.LValue) (string, error) {
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
		}),
		"decode": modules.Fn1(func(L *lua.LState, text string) (lua.LValue, error) {
			v, err := stdlib.DecodeLua(L, text, e.MemoryLimit(), null, arrayMeta)
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
