package luabind

import (
	"unsafe"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// What a state keeps between calls (globals, upvalues, module tables, metatables) is
// measured by walking what it can reach, when the watchdog's epoch says the live heap has
// grown (guard.go). A state that keeps more than its memory budget is reset: the call that
// finds it fails with a limit error, and the next call gets a fresh state.

// Estimated sizes of gopher-lua's values, in bytes.
const (
	keptTable = 120 // an LTable and its maps' headers
	keptSlot  = 40  // one array or hash entry
	keptFunc  = 80  // a closure and its upvalue cells
	keptOther = 64  // userdata, threads, ...
)

// keptSize estimates the bytes L keeps reachable from its globals, its registry, the
// tables require has loaded and the strings' metatable. It stops counting once the total
// passes limit. A string's bytes count once however many tables hold it. What only a
// suspended coroutine's locals hold is not counted.
func keptSize(L *lua.LState, loaded lua.LValue, limit int64) int64 {
	w := keptWalk{seen: map[any]struct{}{}, strs: map[*byte]struct{}{}, limit: limit}
	w.todo = append(w.todo, L.G.Global, L.G.Registry, loaded, L.GetMetatable(lua.LString("")))
	// An explicit stack, not recursion: a chain of a million nested tables must not
	// overflow the Go stack.
	for len(w.todo) > 0 && w.total <= limit {
		v := w.todo[len(w.todo)-1]
		w.todo = w.todo[:len(w.todo)-1]
		w.visit(v)
	}
	return w.total
}

type keptWalk struct {
	seen  map[any]struct{}
	strs  map[*byte]struct{}
	todo  []lua.LValue
	total int64
	limit int64
}

// visit counts v and queues what it holds.
func (w *keptWalk) visit(v lua.LValue) {
	switch x := v.(type) {
	case lua.LString:
		if len(x) >= 64 {
			p := unsafe.StringData(string(x))
			if _, ok := w.strs[p]; ok {
				return
			}
			w.strs[p] = struct{}{}
		}
		w.total += int64(len(x))
	case *lua.LTable:
		if !w.first(x) {
			return
		}
		w.total += keptTable
		x.ForEach(func(k, val lua.LValue) {
			if w.total > w.limit { // the verdict is in: stop queueing
				return
			}
			w.total += keptSlot
			w.queue(k)
			w.queue(val)
		})
		w.todo = append(w.todo, x.Metatable)
	case *lua.LFunction:
		if !w.first(x) {
			return
		}
		w.total += keptFunc
		for _, up := range x.Upvalues {
			if up != nil {
				w.todo = append(w.todo, up.Value())
			}
		}
		w.todo = append(w.todo, x.Env)
	case *lua.LUserData:
		if !w.first(x) {
			return
		}
		w.total += keptOther
		w.todo = append(w.todo, x.Metatable, x.Env)
	case *lua.LState:
		if w.first(x) {
			w.total += keptOther
		}
	}
}

// queue counts a string now and queues anything else that may hold more.
func (w *keptWalk) queue(v lua.LValue) {
	switch v.(type) {
	case lua.LString:
		w.visit(v)
	case *lua.LTable, *lua.LFunction, *lua.LUserData, *lua.LState:
		w.todo = append(w.todo, v)
	}
}

// first reports whether p is seen for the first time.
func (w *keptWalk) first(p any) bool {
	if _, ok := w.seen[p]; ok {
		return false
	}
	w.seen[p] = struct{}{}
	return true
}
