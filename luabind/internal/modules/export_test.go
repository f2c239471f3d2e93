package modules

import (
	"errors"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// The adapter reads arguments and pushes results by type, and names a bad argument.
func TestExportAdapter(t *testing.T) {
	t.Parallel()
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("m", FuncTable(L, map[string]lua.LGFunction{
		"join": Fn3(func(_ *lua.LState, a string, n int, sep Opt[string]) (string, error) {
			if !sep.Set {
				sep.V = ","
			}
			return strings.Repeat(a+sep.V, n), nil
		}),
		"half":  Fn1(func(_ *lua.LState, x float64) (float64, error) { return x / 2, nil }),
		"pair":  Fn1(func(_ *lua.LState, b bool) (Values, error) { return Values{lua.LBool(!b), lua.LString("x")}, nil }),
		"same":  Fn1(func(_ *lua.LState, v lua.LValue) (lua.LValue, error) { return v, nil }),
		"quiet": Fn0(func(*lua.LState) (None, error) { return None{}, nil }),
		"bad":   Fn1(func(_ *lua.LState, s string) (bool, error) { return false, &ArgError{N: 1, Msg: "not " + s} }),
		"fails": Fn0(func(*lua.LState) (int, error) { return 0, errors.New("it failed") }),
	}))
	for src, want := range map[string]string{
		`return m.join("a", 2)`:                             "a,a,",
		`return m.join("a", 2, "-")`:                        "a-a-",
		`return tostring(m.half(3))`:                        "1.5",
		`local a, b = m.pair(true) return tostring(a) .. b`: "falsex",
		`return m.same(nil) == nil and "nil" or "?"`:        "nil",
		`return select("#", m.quiet())`:                     "0",
	} {
		if err := L.DoString(src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := L.Get(-1).String(); got != want {
			t.Errorf("%s = %q, want %q", src, got, want)
		}
		L.Pop(1)
	}
	for src, want := range map[string]string{
		`m.join(1)`:   "bad argument #2 to join (number expected, got nil)",
		`m.bad("x")`:  "bad argument #1 to bad (not x)",
		`m.fails()`:   "it failed",
		`m.half("q")`: "bad argument #1 to half (number expected, got string)",
	} {
		if err := L.DoString(src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}
