package lua

import (
	"fmt"
	"unsafe"
)

// CheckValues reports the first place reachable from ls that holds something a Lua program
// could read but that is not a Lua value: a nil interface, or a Go value of another type.
// It looks at every register of every thread it reaches (above the top too: a Lua function
// reads its registers whatever the top), the values of their frames' functions, upvalues
// and constants, and every key and value of every table reached from the globals, the
// registry, the types' metatables and the registers. It is for tests: the interpreter keeps
// that nothing but Lua values ever reaches a register or a table slot.
func (ls *LState) CheckValues() error {
	c := valueCheck{seen: map[unsafe.Pointer]bool{}}
	g := ls.G
	c.todo = append(c.todo, g.Global, g.Registry, ls)
	if g.MainThread != nil {
		c.todo = append(c.todo, g.MainThread)
	}
	if g.CurrentThread != nil {
		c.todo = append(c.todo, g.CurrentThread)
	}
	for _, mt := range g.builtinMts {
		c.todo = append(c.todo, mt)
	}
	for len(c.todo) > 0 && c.err == nil {
		v := c.todo[len(c.todo)-1]
		c.todo = c.todo[:len(c.todo)-1]
		c.visit(v)
	}
	return c.err
}

type valueCheck struct {
	seen map[unsafe.Pointer]bool
	todo []LValue
	err  error
}

// isLuaValue reports whether v is one of the values a Lua program may hold.
func isLuaValue(v LValue) bool {
	switch x := v.(type) {
	case *LNilType:
		return x != nil
	case LBool, LNumber, LString, LChannel:
		return true
	case *LTable:
		return x != nil
	case *LFunction:
		return x != nil
	case *LUserData:
		return x != nil
	case *LState:
		return x != nil
	}
	return false
}

// check records where v is not a Lua value and queues it otherwise.
func (c *valueCheck) check(v LValue, where string, args ...any) {
	if c.err != nil {
		return
	}
	if !isLuaValue(v) {
		c.err = fmt.Errorf("%s holds %#v, not a Lua value", fmt.Sprintf(where, args...), v)
		return
	}
	c.todo = append(c.todo, v)
}

func (c *valueCheck) first(p unsafe.Pointer) bool {
	if c.seen[p] {
		return false
	}
	c.seen[p] = true
	return true
}

func (c *valueCheck) visit(v LValue) {
	switch x := v.(type) {
	case *LTable:
		if !c.first(unsafe.Pointer(x)) {
			return
		}
		for i, e := range x.array {
			c.check(e, "slot %d of a table's array part", i+1)
		}
		for _, f := range x.small {
			if f.k != nil {
				c.check(f.k, "a key of a table")
			}
			c.check(f.v, "field %q of a table", f.s)
		}
		for k, e := range x.strdict {
			c.check(e, "field %q of a table", k)
		}
		for k, e := range x.dict {
			c.check(k, "a key of a table")
			c.check(e, "the value at key %v of a table", k)
		}
		for _, k := range x.keys {
			c.check(k, "a table's list of keys")
		}
		if x.Metatable != nil {
			c.check(x.Metatable, "a table's metatable")
		}
	case *LFunction:
		if !c.first(unsafe.Pointer(x)) {
			return
		}
		for i, up := range x.Upvalues {
			if up != nil {
				c.check(up.Value(), "upvalue %d of a function", i+1)
			}
		}
		if x.Env != nil {
			c.todo = append(c.todo, x.Env)
		}
		if x.Proto != nil {
			for i, k := range x.Proto.Constants {
				c.check(k, "constant %d of a function", i)
			}
		}
	case *LUserData:
		if !c.first(unsafe.Pointer(x)) {
			return
		}
		if x.Metatable != nil {
			c.check(x.Metatable, "a userdata's metatable")
		}
		if x.Env != nil {
			c.todo = append(c.todo, x.Env)
		}
	case *LState:
		if !c.first(unsafe.Pointer(x)) || x.IsClosed() || x.reg == nil {
			return
		}
		top := x.reg.top
		for i, e := range x.reg.array {
			c.check(e, "register %d of a thread (top %d)", i, top)
		}
		for i := range x.stack.Sp() {
			if fn := x.stack.At(i).Fn; fn != nil {
				c.todo = append(c.todo, fn)
			}
		}
		if x.Env != nil {
			c.todo = append(c.todo, x.Env)
		}
		if x.Parent != nil {
			c.todo = append(c.todo, x.Parent)
		}
	}
}
