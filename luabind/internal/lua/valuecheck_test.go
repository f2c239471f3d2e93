package lua

import (
	"strings"
	"testing"
)

// TestCheckValuesFindsGoValues: the check that runs after every generated program (runHere)
// finds a nil interface in a register, above the top too, and in each part of a table.
func TestCheckValuesFindsGoValues(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`t = {1, 2, x = "a"}; co = coroutine.create(function() coroutine.yield() end); coroutine.resume(co)`); err != nil {
		t.Fatal(err)
	}
	if err := L.CheckValues(); err != nil {
		t.Fatalf("a state that ran a program: %v", err)
	}
	tb := L.GetGlobal("t").(*LTable)
	co := L.GetGlobal("co").(*LState)
	cases := []struct {
		name  string
		spoil func() func()
		where string
	}{
		{"register above the top", func() func() {
			i := L.reg.top + 3
			L.reg.array[i] = nil
			return func() { L.reg.array[i] = LNil }
		}, "register"},
		{"register of a coroutine", func() func() {
			co.reg.array[0] = nil
			return func() { co.reg.array[0] = LNil }
		}, "register 0"},
		{"array slot", func() func() {
			tb.array[1] = nil
			return func() { tb.array[1] = LNumber(2) }
		}, "slot 2"},
		{"field", func() func() {
			if len(tb.small) != 1 {
				t.Fatalf("t keeps its string keys in %d small fields, want 1", len(tb.small))
			}
			tb.small[0].v = nil
			return func() { tb.small[0].v = LString("a") }
		}, `field "x"`},
		{"hash value", func() func() {
			tb.RawSet(LTrue, LTrue)
			tb.dict[LTrue] = nil
			return func() { delete(tb.dict, LTrue) }
		}, "the value at key true"},
	}
	for _, c := range cases {
		undo := c.spoil()
		err := L.CheckValues()
		undo()
		if err == nil || !strings.Contains(err.Error(), c.where) {
			t.Errorf("%s: the check says %v, want a report of %s", c.name, err, c.where)
		}
		if err := L.CheckValues(); err != nil {
			t.Fatalf("%s undone: %v", c.name, err)
		}
	}
}
