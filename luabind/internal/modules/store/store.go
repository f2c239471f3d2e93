package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// Module is the store module of one hook: its namespace, which every state of the hook
// shares (the backend is safe for concurrent use).
type Module struct {
	Backend hookspec.Store
}

// Instance is the store module in one state.
type Instance struct {
	vu modules.VU
	s  hookspec.Store
}

var (
	_ modules.Module   = Module{}
	_ modules.Instance = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (m Module) NewModuleInstance(vu modules.VU) modules.Instance {
	return &Instance{vu: vu, s: m.Backend}
}

// Exports implements modules.Instance: get, set, incr, delete, keys, update.
func (e *Instance) Exports() lua.LValue {
	L, s := e.vu.Runtime(), e.s
	// call runs one backend operation under the call's context; the wait forgives what the
	// host allocates meanwhile (the driver, the network), not what Lua builds.
	call := func(L *lua.LState, op string, f func(ctx context.Context) error) error {
		done := e.vu.Wait()
		err := f(limits.Context(L))
		done()
		if err != nil {
			return fmt.Errorf("store.%s: %w", op, err)
		}
		return nil
	}
	return modules.FuncTable(L, map[string]lua.LGFunction{
		"get": modules.Fn1(func(L *lua.LState, key string) (lua.LValue, error) {
			var v any
			err := call(L, "get", func(ctx context.Context) (err error) { v, _, err = s.Get(ctx, key); return })
			limits.ChargeStrings(L, v)
			return e.vu.ToLua(v), err
		}),
		"set": modules.Fn3(func(L *lua.LState, key string, value lua.LValue, ttl lua.LValue) (modules.None, error) {
			v, err := e.vu.ToGo(value)
			if err != nil {
				return modules.None{}, &modules.ArgError{N: 2, Msg: err.Error()}
			}
			d, err := seconds(ttl)
			if err != nil {
				return modules.None{}, &modules.ArgError{N: 3, Msg: err.Error()}
			}
			return modules.None{}, call(L, "set", func(ctx context.Context) error { return s.Set(ctx, key, v, d) })
		}),
		"incr": modules.Fn3(func(L *lua.LState, key string, n lua.LValue, ttl lua.LValue) (float64, error) {
			by := int64(1)
			if n != lua.LNil {
				f, ok := n.(lua.LNumber)
				if !ok || float64(f) != math.Trunc(float64(f)) || math.Abs(float64(f)) > 1<<53 {
					return 0, &modules.ArgError{N: 2, Msg: "an integer expected, got " + n.String()}
				}
				by = int64(f)
			}
			d, err := seconds(ttl)
			if err != nil {
				return 0, &modules.ArgError{N: 3, Msg: err.Error()}
			}
			var sum int64
			err = call(L, "incr", func(ctx context.Context) (err error) { sum, err = s.Incr(ctx, key, by, d); return })
			return float64(sum), err
		}),
		"delete": modules.Fn1(func(L *lua.LState, key string) (bool, error) {
			var ok bool
			err := call(L, "delete", func(ctx context.Context) (err error) { ok, err = s.Delete(ctx, key); return })
			return ok, err
		}),
		"keys": modules.Fn1(func(L *lua.LState, prefix modules.Opt[string]) (lua.LValue, error) {
			var keys []string
			err := call(L, "keys", func(ctx context.Context) (err error) { keys, err = s.Keys(ctx, prefix.V); return })
			t := L.CreateTable(len(keys), 0)
			for _, k := range keys {
				t.Append(lua.LString(k))
			}
			return t, err
		}),
		"update": modules.Fn2(func(L *lua.LState, key string, fn *lua.LFunction) (lua.LValue, error) {
			return e.update(L, key, fn)
		}),
	})
}

// update runs store.update: fn(old) in Lua, as many times as conflicts need; an error
// raised by fn writes nothing and is raised again.
func (e *Instance) update(L *lua.LState, key string, fn *lua.LFunction) (lua.LValue, error) {
	var raised error
	done := e.vu.Wait()
	v, err := e.s.Update(limits.Context(L), key, func(old any, _ bool) (any, error) {
		done() // Lua runs: its allocations count
		defer func() { done = e.vu.Wait() }()
		L.Push(fn)
		limits.ChargeStrings(L, old)
		L.Push(e.vu.ToLua(old))
		if err := L.PCall(1, 1, nil); err != nil {
			raised = err
			return nil, err
		}
		next := L.Get(-1)
		L.Pop(1)
		out, err := e.vu.ToGo(next)
		if err != nil {
			return nil, fmt.Errorf("the function returned a value that cannot be stored: %v", err)
		}
		return out, nil
	})
	done()
	switch {
	case raised != nil && errors.Is(err, raised):
		return lua.LNil, raised
	case err != nil:
		return lua.LNil, fmt.Errorf("store.update: %w", err)
	}
	limits.ChargeStrings(L, v)
	return e.vu.ToLua(v), nil
}

// seconds reads a TTL in seconds: nil or 0 is none.
func seconds(v lua.LValue) (time.Duration, error) {
	if v == lua.LNil {
		return 0, nil
	}
	f, ok := v.(lua.LNumber)
	if !ok || f < 0 || math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return 0, fmt.Errorf("ttl in seconds expected (a number >= 0), got %s", v.String())
	}
	return time.Duration(float64(f) * float64(time.Second)), nil
}
