package stdlib

import (
	"context"
	"errors"
	"reflect"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// sameInto checks that ToWireInto converts v as ToWire does, into the map it is given when
// v is an object, which then holds nothing else; nested maps are never that map.
func sameInto(t *testing.T, what string, v lua.LValue) {
	t.Helper()
	want, werr := ToWire(context.Background(), v)
	into := map[string]any{"left": "over", "from": map[string]any{"the": "last call"}}
	got, gerr := ToWireInto(context.Background(), v, into)
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
	got, err := ToWireInto(context.Background(), L.NewTable(), nil) // nil: a new map, as ToWire
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

// doneAfter is a context whose Err is DeadlineExceeded from its nth call on.
type doneAfter struct {
	context.Context
	n, calls int
}

func (d *doneAfter) Err() error {
	if d.calls++; d.calls >= d.n {
		return context.DeadlineExceeded
	}
	return nil
}

// TestConvertPollsContext: converting a large value looks at the context every few
// thousand values and stops with its error once it is done, for arrays, maps and nested
// tables, through ToGo, ToWire and ToWireInto; a context that is not done lets the whole
// value through.
func TestConvertPollsContext(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(`
local array, map, nested = {}, {}, {}
for i = 1, 100000 do array[i] = i; map["k" .. i] = i end
for i = 1, 1000 do local t = {} for j = 1, 100 do t[j] = j end nested[i] = t end
values = {array = array, map = map, nested = nested}`); err != nil {
		t.Fatal(err)
	}
	convs := map[string]func(context.Context, lua.LValue) (any, error){
		"ToGo":       ToGo,
		"ToWire":     ToWire,
		"ToWireInto": func(ctx context.Context, v lua.LValue) (any, error) { return ToWireInto(ctx, v, map[string]any{}) },
	}
	for _, name := range []string{"array", "map", "nested"} {
		v := L.GetGlobal("values").(*lua.LTable).RawGetString(name)
		for cname, conv := range convs {
			ctx := &doneAfter{Context: context.Background(), n: 3}
			if _, err := conv(ctx, v); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s of %s: got %v, want the context's error", cname, name, err)
			}
			if ctx.calls != 3 {
				t.Errorf("%s of %s: the context was looked at %d times, want it to stop at the 3rd", cname, name, ctx.calls)
			}
			live := &doneAfter{Context: context.Background(), n: 1 << 30}
			if _, err := conv(live, v); err != nil {
				t.Errorf("%s of %s with a live context: %v", cname, name, err)
			}
			if live.calls < 100000/convertPollEvery {
				t.Errorf("%s of %s: the context was looked at %d times over 100,000 values", cname, name, live.calls)
			}
		}
	}
}
