package stdlib

import (
	"reflect"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// sameInto checks that ToWireInto converts v as ToWire does, into the map it is given when
// v is an object, which then holds nothing else; nested maps are never that map.
func sameInto(t *testing.T, what string, v lua.LValue) {
	t.Helper()
	want, werr := ToWire(v)
	into := map[string]any{"left": "over", "from": map[string]any{"the": "last call"}}
	got, gerr := ToWireInto(v, into)
	switch {
	case (werr == nil) != (gerr == nil), werr != nil && werr.Error() != gerr.Error():
		t.Fatalf("%s: error %v, want %v", what, gerr, werr)
	case werr != nil:
		return
	case !reflect.DeepEqual(got, want):
		t.Fatalf("%s: got %#v, want %#v", what, got, want)
	}
	if m, ok := want.(map[string]any); ok {
		if reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(into).UnsafePointer() {
			t.Fatalf("%s: an object was not converted into the map given", what)
		}
		for k, v := range m {
			if n, ok := v.(map[string]any); ok && reflect.ValueOf(n).UnsafePointer() == reflect.ValueOf(into).UnsafePointer() {
				t.Fatalf("%s: the value at %q is the map given", what, k)
			}
		}
	}
}

func TestToWireIntoLikeToWire(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(`
local c = {} c.self = c
return {
	{context = "x"}, {action = "modify", args = {command = "ls", n = 1}}, {}, {1, 2, 3},
	{a = {b = {c = {}}}}, {[1] = "one", two = 2}, {bad = print}, c, {ok = 0/0}, {list = {{x = 1}}},
}`); err != nil {
		t.Fatal(err)
	}
	L.Get(-1).(*lua.LTable).ForEach(func(k, v lua.LValue) { sameInto(t, k.String(), v) })
	for _, v := range []lua.LValue{lua.LNil, lua.LString("s"), lua.LNumber(2), lua.LTrue} {
		sameInto(t, v.String(), v)
	}
	got, err := ToWireInto(L.NewTable(), nil) // nil: a new map, as ToWire
	if m, ok := got.(map[string]any); err != nil || !ok || m == nil {
		t.Fatalf("ToWireInto of {} with nil: %#v, %v", got, err)
	}
}

// FuzzToWireInto builds a Lua value from the input and converts it both ways.
func FuzzToWireInto(f *testing.F) {
	f.Add([]byte{8, 3, 2, 4, 8, 1, 3, 7}, "key")
	f.Add([]byte{7, 2, 8, 1, 2, 5}, "a")
	f.Add([]byte{8, 2, 9, 3, 0}, "")
	f.Fuzz(func(t *testing.T, prog []byte, text string) {
		L := lua.NewState()
		defer L.Close()
		g := &luaGen{L: L, prog: prog, text: text}
		sameInto(t, "generated", g.value(0))
	})
}
