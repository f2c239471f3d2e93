package lua_test

import (
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// The programs the tests compare with Lua 5.1 run with the functions luabind installs in a
// hook's state over this package's own, as a hook runs them.
func init() {
	lua.SetHookLibraries(func(L *lua.LState) {
		stdlib.InstallBase(L)
		stdlib.InstallString(L)
	})
}
