package luabind

import (
	"errors"
	"fmt"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Module functions are plain Go functions; fn1, fn2 and fn3 adapt one to Lua, the way
// grafana/k6's modules export plain functions through one adapter (fn0 for none). The function's first
// parameter is the Lua state, for the few that need it (size checks, polling, calling back
// into Lua); the others are read from the Lua arguments, in order, by type:
//
//	string, float64, int, bool    the argument, checked ("bad argument #2 to match (string expected, got nil)")
//	*lua.LTable, *lua.LFunction   a table or a function, checked
//	Opt[int], Opt[string], Opt[*lua.LTable]  an optional argument (nil or absent: not Set)
//	lua.LValue                    the argument as it is
//
// The result is pushed by type: bool, string, float64, int, a lua.LValue (nil: Lua nil),
// values (several results), or none. A returned error is raised in Lua; an argError names
// its argument, as C Lua's library does.

// Opt is an optional argument.
type Opt[T any] struct {
	V   T
	Set bool
}

type (
	values []lua.LValue // several results
	none   struct{}     // no result
)

// argError is an error about argument n, raised as "bad argument #n to <function> (msg)".
type argError struct {
	n   int
	msg string
}

func (e *argError) Error() string { return fmt.Sprintf("bad argument #%d (%s)", e.n, e.msg) }

// funcTable is a module table of functions.
func funcTable(L *lua.LState, fns map[string]lua.LGFunction) *lua.LTable {
	t := L.CreateTable(0, len(fns))
	for name, f := range fns {
		t.RawSetString(name, L.NewFunction(f))
	}
	return t
}

func fn0[R any](f func(*lua.LState) (R, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		r, err := f(L)
		return result(L, r, err)
	}
}

func fn1[A, R any](f func(*lua.LState, A) (R, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		r, err := f(L, arg[A](L, 1))
		return result(L, r, err)
	}
}

func fn2[A, B, R any](f func(*lua.LState, A, B) (R, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b := arg[A](L, 1), arg[B](L, 2)
		r, err := f(L, a, b)
		return result(L, r, err)
	}
}

func fn3[A, B, C, R any](f func(*lua.LState, A, B, C) (R, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b, c := arg[A](L, 1), arg[B](L, 2), arg[C](L, 3)
		r, err := f(L, a, b, c)
		return result(L, r, err)
	}
}

// arg reads argument n as a T.
func arg[T any](L *lua.LState, n int) T {
	var v T
	switch p := any(&v).(type) {
	case *string:
		*p = L.CheckString(n)
	case *float64:
		*p = float64(L.CheckNumber(n))
	case *int:
		*p = L.CheckInt(n)
	case *bool:
		*p = L.CheckBool(n)
	case *lua.LValue:
		*p = L.Get(n)
	case **lua.LTable:
		*p = L.CheckTable(n)
	case **lua.LFunction:
		*p = L.CheckFunction(n)
	case *Opt[*lua.LTable]:
		if L.Get(n) != lua.LNil {
			*p = Opt[*lua.LTable]{L.CheckTable(n), true}
		}
	case *Opt[int]:
		if L.Get(n) != lua.LNil {
			*p = Opt[int]{L.CheckInt(n), true}
		}
	case *Opt[string]:
		if L.Get(n) != lua.LNil {
			*p = Opt[string]{L.CheckString(n), true}
		}
	default:
		panic(fmt.Sprintf("luabind: a module function takes a %T", v))
	}
	return v
}

// result raises err, or pushes r and returns how many values it pushed.
func result[R any](L *lua.LState, r R, err error) int {
	if err != nil {
		var ae *argError
		if errors.As(err, &ae) {
			L.ArgError(ae.n, ae.msg)
		}
		L.RaiseError("%s", err.Error())
	}
	switch x := any(r).(type) {
	case none:
		return 0
	case values:
		for _, v := range x {
			L.Push(v)
		}
		return len(x)
	case bool:
		L.Push(lua.LBool(x))
	case string:
		L.Push(lua.LString(x))
	case float64:
		L.Push(lua.LNumber(x))
	case int:
		L.Push(lua.LNumber(x))
	case lua.LValue:
		if x == nil {
			x = lua.LNil
		}
		L.Push(x)
	default:
		panic(fmt.Sprintf("luabind: a module function returns a %T", r))
	}
	return 1
}
