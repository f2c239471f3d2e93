package luabind

import (
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// jsonValues are one state's json.null and the metatable json.array sets. The json module
// and the http module's decoded responses share them, so `v == json.null` holds for both.
type jsonValues struct {
	null      *lua.LUserData
	arrayMeta *lua.LTable
}

// jsonValues returns the state's json values, creating them on first use.
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
