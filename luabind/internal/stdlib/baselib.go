package stdlib

import (
	"math"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// BoxInt is i as a Lua value, without an allocation when it is small (0..4095): each
// lua.LNumber(i) converted to an LValue allocates 8 bytes.
func BoxInt(i int) lua.LValue { return lua.IntValue(i) }

// BoxNumber is f as a Lua value, without an allocation when it is a small non-negative
// integer (not -0, which prints and divides differently).
func BoxNumber(f float64) lua.LValue {
	if f >= 0 && f < 1<<31 && f == math.Trunc(f) && !(f == 0 && math.Signbit(f)) {
		return lua.IntValue(int(f))
	}
	return lua.LNumber(f)
}

// InstallBase replaces the base functions whose gopher-lua versions allocate on every step:
// ipairs (its iterator boxed the index twice per step). The results are gopher-lua's
// (TestIpairsLikeGopherLua, FuzzIpairs). Its iterator is marked as the fork's builtin ipairs
// step, which a generic for then takes without calling it (FuzzIpairs).
func InstallBase(L *lua.LState) {
	aux := L.NewFunction(ipairsAux)
	aux.Builtin = lua.BuiltinIpairsIter
	L.SetGlobal("ipairs", L.NewFunction(func(L *lua.LState) int {
		tb := L.CheckTable(1)
		L.Push(aux)
		L.Push(tb)
		L.Push(lua.IntValue(0))
		return 3
	}))
}

// ipairsAux is the iterator of ipairs: the next index and value, or nothing at the first nil.
func ipairsAux(L *lua.LState) int {
	tb := L.CheckTable(1)
	i := L.CheckInt(2) + 1
	v := tb.RawGetInt(i)
	if v == lua.LNil {
		return 0
	}
	L.Push(BoxInt(i))
	L.Push(v)
	return 2
}
