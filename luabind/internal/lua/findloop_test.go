package lua

import (
	"fmt"
	"strings"
	"testing"
)

// markBuiltins marks L's ipairs iterator and string.find as the builtin steps, as the
// embedding's own functions are marked: the upstream functions give the same results for
// the arguments these tests pass (a table and a number; plain searches from 1).
func markBuiltins(t *testing.T, L *LState) {
	t.Helper()
	if err := L.DoString(`__it = ipairs({})`); err != nil {
		t.Fatal(err)
	}
	L.GetGlobal("__it").(*LFunction).Builtin = BuiltinIpairsIter
	L.GetField(L.GetGlobal("string"), "find").(*LFunction).Builtin = BuiltinStringFind
}

// TestFindLoopsFound: the compiler marks the loops of the deny-list shape, and only them.
func TestFindLoopsFound(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want int
	}{
		{`for _, p in ipairs(t) do if string.find(s, p, 1, true) then return p end end`, 1},
		{`local find = string.find for i, p in ipairs(t) do if find(s, p) then n = n + i end end`, 1},
		{`for _, p in ipairs(t) do if string.find(p, s, 1, true) then break end end`, 1},
		{`for _, p in ipairs(t) do local q = p if string.find(s, q, 1, true) then break end end`, 1},
		{`for _, p in ipairs(t) do if string.find(s, p, 1, true) then break end x = 1 end`, 0},               // more after the if
		{`for _, p in ipairs(t) do if not string.find(s, p, 1, true) then break end end`, 0},                 // the test reversed
		{`for _, p in ipairs(t) do if string.find(s, p, 1, true) then break else x = 1 end end`, 0},          // an else
		{`for i, p in ipairs(t) do if string.find(s, p, i, true) then break end end`, 0},                     // the key read
		{`for _, p in ipairs(t) do s = p if string.find(s, p, 1, true) then break end end`, 0},               // a local written
		{`for _, p in ipairs(t) do if string.find(s:lower(), p, 1, true) then break end end`, 0},             // another call
		{`for p in ipairs(t) do if string.find(s, p, 1, true) then break end end`, 0},                        // no value
		{`for _, p in ipairs(t) do if string.find(s, p, 1, true) and x then break end end`, 1},               // a miss goes on as well
		{`for _, p in ipairs(t) do for _, q in ipairs(p) do if string.find(s, q) then n = 1 end end end`, 1}, // the inner loop
	} {
		L := NewState()
		fn, err := L.LoadString("local s, t, n = ... " + tt.src)
		L.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := len(fn.Proto.findLoops); got != tt.want {
			t.Errorf("%s: %d loops marked, want %d", tt.src, got, tt.want)
		}
	}
}

// TestFindLoopPolls: the loop polls the context every findLoopPoll elements it searches, so
// a long deny list stops with its call.
func TestFindLoopPolls(t *testing.T) {
	L := NewState()
	defer L.Close()
	markBuiltins(t, L)
	list := L.NewTable()
	for i := range 100 * findLoopPoll {
		list.Append(LString(fmt.Sprintf("p%d;", i)))
	}
	L.SetGlobal("list", list)
	fn, err := L.LoadString(`for _, p in ipairs(list) do if string.find("none", p, 1, true) then return "hit" end end return "done"`)
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil || L.Get(-1).String() != "done" {
		t.Fatalf("got %v, %v; want done", L.Get(-1), err)
	}
	L.Pop(1)
	ctx := newStopAfter(4) // the call's first instruction, then the loop's polls
	L.SetContext(ctx)
	L.Push(fn)
	err = L.PCall(0, 1, nil)
	L.RemoveContext()
	if err == nil || !strings.Contains(err.Error(), "stopped by the test") {
		t.Fatalf("got %v, want the context's error", err)
	}
	if ctx.polls != 4 {
		t.Errorf("%d polls, want 4: the loop polled too seldom or ran on", ctx.polls)
	}
}
