// Package vmfloor is the floor under the engine's Lua calls, for benchmarks: a plugin's
// pre_tool_call callback called on the bare interpreter the engine runs (luabind's fork of
// gopher-lua), with none of the engine's work around the call. It is not part of the
// embedding API.
package vmfloor

import (
	"context"
	"errors"
	"fmt"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Caller calls one callback on one state. It is not safe for concurrent use.
type Caller struct {
	ls     *lua.LState
	fn     *lua.LFunction
	kw     *lua.LTable // the table every call gets, when built once
	cancel context.CancelFunc
}

// New loads handler (a plugin's handler.lua) into a state with the engine's stack limits and
// keeps the first callback its register(ctx) registers. withCtx sets a context on the state,
// as the engine must for timeouts; once builds the kwargs table for the first call only.
func New(handler string, withCtx, once bool) (*Caller, error) {
	L := lua.NewState(lua.Options{CallStackSize: 200, RegistrySize: 1024, RegistryMaxSize: 1 << 18, RegistryGrowStep: 256})
	c := &Caller{ls: L, cancel: func() {}}
	if err := L.DoString(handler); err != nil {
		L.Close()
		return nil, err
	}
	ctxTable := L.NewTable()
	ctxTable.RawSetString("register_hook", L.NewFunction(func(L *lua.LState) int {
		if c.fn == nil {
			c.fn = L.CheckFunction(2)
		}
		return 0
	}))
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("register"), Protect: true}, ctxTable); err != nil || c.fn == nil {
		L.Close()
		return nil, fmt.Errorf("register: %v", errors.Join(err, errors.New("no callback registered")))
	}
	if withCtx {
		var ctx context.Context
		ctx, c.cancel = context.WithCancel(context.Background())
		L.SetContext(ctx)
	}
	if once {
		c.kw = c.build("terminal", "ls -la /tmp", "t", "s", "c")
	}
	return c, nil
}

func (c *Caller) build(tool, cmd, task, sess, call string) *lua.LTable {
	kw := c.ls.CreateTable(0, 5)
	kw.RawSetString("tool_name", lua.LString(tool))
	args := c.ls.CreateTable(0, 1)
	args.RawSetString("command", lua.LString(cmd))
	kw.RawSetString("args", args)
	kw.RawSetString("task_id", lua.LString(task))
	kw.RawSetString("session_id", lua.LString(sess))
	kw.RawSetString("tool_call_id", lua.LString(call))
	return kw
}

// Call calls the callback with a terminal call of "ls -la /tmp" and reports whether it
// answered anything but nil.
func (c *Caller) Call() (answered bool, err error) {
	kw := c.kw
	if kw == nil {
		kw = c.build("terminal", "ls -la /tmp", "t", "s", "c")
	}
	c.ls.Push(c.fn)
	c.ls.Push(kw)
	if err := c.ls.PCall(1, 1, nil); err != nil {
		return false, err
	}
	answered = c.ls.Get(-1) != lua.LNil
	c.ls.Pop(1)
	return answered, nil
}

// Close closes the state.
func (c *Caller) Close() {
	c.cancel()
	c.ls.Close()
}
