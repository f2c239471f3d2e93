package luabind

import (
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"math"
)

// boxedInts are the integers 0..4095 as Lua values, boxed once: pushing one allocates
// nothing, where each lua.LNumber(i) converted to an LValue allocates 8 bytes.
var boxedInts = func() (t [4096]lua.LValue) {
	for i := range t {
		t[i] = lua.LNumber(i)
	}
	return t
}()

// boxInt is i as a Lua value, without an allocation when it is small.
func boxInt(i int) lua.LValue {
	if i >= 0 && i < len(boxedInts) {
		return boxedInts[i]
	}
	return lua.LNumber(i)
}

// boxNumber is f as a Lua value, without an allocation when it is a small non-negative
// integer (not -0, which prints and divides differently).
func boxNumber(f float64) lua.LValue {
	if f >= 0 && f < float64(len(boxedInts)) && f == math.Trunc(f) && !(f == 0 && math.Signbit(f)) {
		return boxedInts[int(f)]
	}
	return lua.LNumber(f)
}

// installBase replaces the base functions whose gopher-lua versions allocate on every step:
// ipairs (its iterator boxed the index twice per step). The results are gopher-lua's
// (TestIpairsLikeGopherLua, FuzzIpairs).
func installBase(L *lua.LState) {
	aux := L.NewFunction(ipairsAux)
	L.SetGlobal("ipairs", L.NewFunction(func(L *lua.LState) int {
		tb := L.CheckTable(1)
		L.Push(aux)
		L.Push(tb)
		L.Push(boxedInts[0])
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
	L.Push(boxInt(i))
	L.Push(v)
	return 2
}
