package luabind

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/luar"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// Table is a Go value that fills a new Lua table itself, field by field. On a hot path it
// saves building a map[string]any and boxing every value in it.
type Table interface {
	FillLua(w TableWriter)
	FieldCount() int // a size hint
}

// TableWriter sets the fields of the Lua table a Table fills.
type TableWriter struct {
	l  *lua.LState
	t  *lua.LTable
	kw *kwTable // set when refilling a reused table
}

// String sets field k to the string v.
func (w TableWriter) String(k, v string) {
	if w.kw != nil && w.kw.sameString(k, v) { // a refill that changes nothing: not even a call
		return
	}
	w.setString(k, v)
}

func (w TableWriter) setString(k, v string) {
	if w.kw != nil {
		if i, ok := w.kw.index(k); ok {
			w.kw.setString(w.l, i, k, v)
		}
		return
	}
	w.t.SetStringField(k, w.l.StringValue(v))
}

// Value sets field k to v, converted like any other Go value.
func (w TableWriter) Value(k string, v any) {
	if w.kw != nil {
		if i, ok := w.kw.index(k); ok {
			w.kw.setValue(w.l, i, k, v)
		}
		return
	}
	w.t.SetStringField(k, toLua(w.l, v))
}

// List sets field k to the list v, converted like any other Go value; it spares boxing
// and converting the list when the callback never looks the field up (a refilled table's
// unread field).
func (w TableWriter) List(k string, v []any) { setList(w, k, v) }

// Messages is List for a conversation: each message a table of its API's keys.
func (w TableWriter) Messages(k string, v []hookspec.Message) { setList(w, k, v) }

// setList is List for a slice of any type: v is boxed only when it is converted.
func setList[S any](w TableWriter, k string, v S) {
	if w.kw != nil {
		if i, ok := w.kw.index(k); ok {
			if w.kw.unreadAt(i, k) {
				w.kw.setUnread(w.l, i, k)
				return
			}
			w.kw.setValue(w.l, i, k, v)
		}
		return
	}
	w.t.SetStringField(k, toLua(w.l, v))
}

// toLua converts a Go value to Lua: maps to tables, slices to arrays (1-based), numbers,
// strings, booleans, nil, Func to a function, Object through gopher-luar. Anything else is
// converted by reflection when it is a map or slice, or turned into its string form.
func toLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case lua.LValue:
		return x
	case string:
		return L.StringValue(x)
	case bool:
		return lua.LBool(x)
	case int:
		return stdlib.BoxNumber(float64(x))
	case int64:
		return stdlib.BoxNumber(float64(x))
	case int32:
		return stdlib.BoxNumber(float64(x))
	case uint64:
		return stdlib.BoxNumber(float64(x))
	case float64:
		return stdlib.BoxNumber(x)
	case float32:
		return stdlib.BoxNumber(float64(x))
	case Table:
		t := L.CreateTable(0, x.FieldCount())
		x.FillLua(TableWriter{l: L, t: t})
		return t
	case map[string]any:
		t := newKeyedTable(L, len(x))
		for k, e := range x {
			if f, ok := e.(hookspec.Func); ok {
				t.RawSetString(k, L.NewFunction(methodFunc(f, t)))
				continue
			}
			t.RawSetString(k, toLua(L, e))
		}
		return t
	case []any:
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			t.RawSetInt(i+1, toLua(L, e))
		}
		return t
	case []map[string]any:
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			t.RawSetInt(i+1, toLua(L, e))
		}
		return t
	case hookspec.Message:
		return messageToLua(L, x)
	case []hookspec.Message:
		t := L.CreateTable(len(x), 0)
		for i, m := range x {
			t.RawSetInt(i+1, messageToLua(L, m))
		}
		return t
	case []string:
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			t.RawSetInt(i+1, L.StringValue(e))
		}
		return t
	case map[string]string:
		t := newKeyedTable(L, len(x))
		for k, e := range x {
			t.RawSetString(k, L.StringValue(e))
		}
		return t
	case hookspec.Func:
		return L.NewFunction(wrapFunc(x, nil))
	case hookspec.Object:
		return bindMethods(L, luar.New(L, x.V), reflect.TypeOf(x.V))
	case fmt.Stringer:
		return lua.LString(x.String())
	case error:
		return lua.LString(x.Error())
	}
	return reflectToLua(L, reflect.ValueOf(v))
}

// messageToLua is toLua(L, m.Table()) without the map in between: a history of a thousand
// messages read by a hook is a thousand tables, not a thousand maps and their tables.
func messageToLua(L *lua.LState, m hookspec.Message) lua.LValue {
	t := newKeyedTable(L, len(m.Extra)+4)
	for k, v := range m.Extra {
		t.RawSetString(k, toLua(L, v))
	}
	t.RawSetString("role", L.StringValue(m.Role))
	if _, blocks := m.Extra["content"]; m.Content != "" || !blocks {
		t.RawSetString("content", L.StringValue(m.Content))
	}
	if len(m.ToolCalls) > 0 {
		calls := L.CreateTable(len(m.ToolCalls), 0)
		for i, c := range m.ToolCalls {
			calls.RawSetInt(i+1, toLua(L, c.Table()))
		}
		t.RawSetString("tool_calls", calls)
	} else if _, stale := m.Extra["tool_calls"]; stale {
		t.RawSetString("tool_calls", lua.LNil)
	}
	if m.ToolCallID != "" {
		t.RawSetString("tool_call_id", L.StringValue(m.ToolCallID))
	} else if _, stale := m.Extra["tool_call_id"]; stale {
		t.RawSetString("tool_call_id", lua.LNil)
	}
	return t
}

func reflectToLua(L *lua.LState, rv reflect.Value) lua.LValue {
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return lua.LNil
		}
		return reflectToLua(L, rv.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return lua.LNumber(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(rv.Float())
	case reflect.String:
		return lua.LString(rv.String())
	case reflect.Bool:
		return lua.LBool(rv.Bool())
	case reflect.Slice, reflect.Array:
		t := L.CreateTable(rv.Len(), 0)
		for i := range rv.Len() {
			t.RawSetInt(i+1, toLua(L, rv.Index(i).Interface()))
		}
		return t
	case reflect.Map:
		t := L.CreateTable(0, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			t.RawSet(toLua(L, iter.Key().Interface()), toLua(L, iter.Value().Interface()))
		}
		return t
	}
	if rv.IsValid() && rv.CanInterface() {
		return lua.LString(fmt.Sprint(rv.Interface()))
	}
	return lua.LNil
}

// wrapFunc adapts a Func to gopher-lua, converting arguments and recovering panics. With a
// guard, the call is marked as waiting while f runs (not while its result is converted).
func wrapFunc(f hookspec.Func, g *limits.Guard) lua.LGFunction {
	return func(L *lua.LState) int {
		args := make([]any, L.GetTop())
		for i := range args {
			v, err := toGo(L, L.Get(i+1))
			if err != nil {
				L.RaiseError("argument %d: %v", i+1, err)
			}
			args[i] = v
		}
		var done func()
		if g != nil {
			done = g.Wait()
		}
		res, err := callFunc(limits.Context(L), f, args)
		if done != nil {
			done()
		}
		if err != nil {
			L.RaiseError("%v", err)
		}
		limits.ChargeStrings(L, res)
		L.Push(toLua(L, res))
		return 1
	}
}

// bindMethods lets a hook call an Object's methods with a dot as well as a colon:
// obj.send(x) and obj:send(x) both call the Go method Send on the object, as a map of Funcs
// answers both. gopher-luar's methods take their receiver as the first argument; the
// object's metatable is copied with an __index that hands out each method bound to it. A
// function-valued field is left as it is.
func bindMethods(L *lua.LState, v lua.LValue, typ reflect.Type) lua.LValue {
	ud, ok := v.(*lua.LUserData)
	if !ok || typ == nil {
		return v
	}
	mt, ok := ud.Metatable.(*lua.LTable)
	if !ok {
		return v
	}
	index, ok := mt.RawGetString("__index").(*lua.LFunction)
	if !ok {
		return v
	}
	bound := L.CreateTable(0, 8)
	mt.ForEach(func(k, val lua.LValue) { bound.RawSet(k, val) })
	bound.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		self, key := L.Get(1), L.Get(2)
		L.Push(index)
		L.Push(self)
		L.Push(key)
		L.Call(2, 1)
		fn, isFn := L.Get(-1).(*lua.LFunction)
		name, isName := key.(lua.LString)
		if !isFn || !isName || !isMethod(typ, string(name)) {
			return 1
		}
		L.Pop(1)
		L.Push(L.NewFunction(func(L *lua.LState) int {
			if L.GetTop() == 0 || L.Get(1) != self {
				L.Insert(self, 1) // a dot call: the receiver is missing
			}
			n := L.GetTop()
			L.Push(fn)
			for i := 1; i <= n; i++ {
				L.Push(L.Get(i))
			}
			L.Call(n, lua.MultRet)
			return L.GetTop() - n
		}))
		return 1
	}))
	ud.Metatable = bound
	return ud
}

// isMethod reports whether name (or name with its first letter in upper case, as
// gopher-luar accepts it) is a method of typ.
func isMethod(typ reflect.Type, name string) bool {
	if name == "" {
		return false
	}
	upper := strings.ToUpper(name[:1]) + name[1:]
	for _, t := range []reflect.Type{typ, reflect.PointerTo(typ)} {
		if _, ok := t.MethodByName(name); ok {
			return true
		}
		if _, ok := t.MethodByName(upper); ok {
			return true
		}
	}
	return false
}

// methodFunc is f as a field of table t: callable as t.f(...) and as t:f(...), whose self
// argument it drops, so that a host object built as a map of Funcs works in both styles
// (as an Object's methods do: gopher-luar accepts obj:Send(...) and obj:send(...)).
func methodFunc(f hookspec.Func, t *lua.LTable) lua.LGFunction {
	call := wrapFunc(f, nil)
	return func(L *lua.LState) int {
		if L.GetTop() > 0 && L.Get(1) == t {
			L.Remove(1)
		}
		return call(L)
	}
}

func callFunc(ctx context.Context, f hookspec.Func, args []any) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in host function: %v", r)
		}
	}()
	return f(ctx, args)
}

// toGo converts a Lua value to Go as stdlib.ToGo does, looking at the context of L's call
// while it walks; a value that cannot cross is a KindConvert error.
func toGo(L *lua.LState, v lua.LValue) (any, error) {
	return convertError(stdlib.ToGo(limits.Context(L), v))
}

// toWire is toGo for a value that must have a wire (JSON) form: NaN and the infinities are
// errors too. A table that converts to an object is converted into into when it is not nil
// (stdlib.ToWireInto).
func toWire(L *lua.LState, v lua.LValue, into map[string]any) (any, error) {
	return convertError(stdlib.ToWireInto(limits.Context(L), v, into))
}

// convertError turns the library's conversion error into a KindConvert Error.
func convertError(v any, err error) (any, error) {
	if ce, ok := err.(*stdlib.ConvertError); ok {
		return v, &Error{Kind: KindConvert, Msg: ce.Msg}
	}
	return v, err
}
