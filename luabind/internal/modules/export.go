package modules

import (
	"errors"
	"fmt"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Module functions are plain Go functions; Fn1, Fn2 and Fn3 adapt one to Lua, the way
// grafana/k6's modules export plain functions through one adapter (Fn0 for none). The function's first
// parameter is the Lua state, for the few that need it (size checks, polling, calling back
// into Lua); the others are read from the Lua arguments, in order, by type:
//
//	string, float64, int, bool    the argument, checked ("bad argument #2 to match (string expected, got nil)")
//	*lua.LTable, *lua.LFunction   a table or a function, checked
//	Opt[int], Opt[string], Opt[*lua.LTable]  an optional argument (nil or absent: not Set)
//	lua.LValue                    the argument as it is
//
// The result is pushed by type: bool, string, float64, int, a lua.LValue (nil: Lua nil),
// Values (several results), or None. A returned error is raised in Lua; an ArgError names
// its argument, as C Lua's library does.

// Opt is an optional argument.
type Opt[T any] struct {
	V   T
	Set bool
}

type (
	Values []lua.LValue // several results
	None   struct{}     // no result
)

// ArgError is an error about argument N, raised as "bad argument #N to <function> (msg)".
type ArgError struct {
	N   int    // the argument's position, from 1
	Msg string // what is wrong with it
}

func (e *ArgError) Error() string { return fmt.Sprintf("bad argument #%d (%s)", e.N, e.Msg) }

// FuncTable is a module table of functions.
func FuncTable(L *lua.LState, fns map[string]lua.LGFunction) *lua.LTable {
	t := L.CreateTable(0, len(fns))
	for name, f := range fns {
		t.RawSetString(name, L.NewFunction(f))
	}
	return t
}

func Fn0[R any](f func(*lua.LState) (R, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		r, err := f(L)
		return result(L, r, err)
	}
}

func Fn1[A, R any](f func(*lua.LState, A) (R, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		r, err := f(L, Arg[A](L, 1))
		return result(L, r, err)
	}
}

func Fn2[A, B, R any](f func(*lua.LState, A, B) (R, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b := Arg[A](L, 1), Arg[B](L, 2)
		r, err := f(L, a, b)
		return result(L, r, err)
	}
}

func Fn3[A, B, C, R any](f func(*lua.LState, A, B, C) (R, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b, c := Arg[A](L, 1), Arg[B](L, 2), Arg[C](L, 3)
		r, err := f(L, a, b, c)
		return result(L, r, err)
	}
}

// Arg reads argument n as a T.
func Arg[T any](L *lua.LState, n int) T {
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
		panic(fmt.Sprintf("modules: a module function takes a %T", v))
	}
	return v
}

// result raises err, or pushes r and returns how many Values it pushed.
func result[R any](L *lua.LState, r R, err error) int {
	if err != nil {
		var ae *ArgError
		if errors.As(err, &ae) {
			L.ArgError(ae.N, ae.Msg)
		}
		L.RaiseError("%s", err.Error())
	}
	switch x := any(r).(type) {
	case None:
		return 0
	case Values:
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
		panic(fmt.Sprintf("modules: a module function returns a %T", r))
	}
	return 1
}
