package lua

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// stopAfter is a ContextPoller that is done from its nth poll on. Its Done must not be
// used by the interpreter.
type stopAfter struct {
	context.Context
	n, polls int
}

func (s *stopAfter) Stopped() bool {
	s.polls++
	return s.polls >= s.n
}

func (s *stopAfter) Done() <-chan struct{} { panic("Done called on a ContextPoller") }

func (s *stopAfter) Err() error {
	if s.polls >= s.n {
		return errors.New("stopped by the test")
	}
	return nil
}

func newStopAfter(n int) *stopAfter { return &stopAfter{Context: context.Background(), n: n} }

// TestPollStraightLineCode: code without a loop or a call is polled every
// contextPollInterval instructions, through the context's Stopped.
func TestPollStraightLineCode(t *testing.T) {
	L := NewState()
	defer L.Close()
	const statements = 3000 // each `n = n + 1`: GETGLOBAL, ADD, SETGLOBAL
	src := "n = 0\n" + strings.Repeat("n = n + 1\n", statements)
	fn, err := L.LoadString(src)
	if err != nil {
		t.Fatal(err)
	}
	ctx := newStopAfter(2) // the poll before the first instruction passes, the next stops
	L.SetContext(ctx)
	L.Push(fn)
	err = L.PCall(0, 0, nil)
	L.RemoveContext()
	if err == nil || !strings.Contains(err.Error(), "stopped by the test") {
		t.Fatalf("got %v, want the context's error", err)
	}
	n := int(L.GetGlobal("n").(LNumber))
	if want := (contextPollInterval - 2) / 3; n < want-1 || n > want+1 {
		t.Errorf("ran %d statements before the poll, want about %d", n, want)
	}
	if ctx.polls != 2 {
		t.Errorf("%d polls, want 2", ctx.polls)
	}
}

// TestPollBeforeGoCall: the context is polled before every call of a Go function, so none
// starts once the context is done, before a call's first instruction, and when the call
// returns to Go.
func TestPollBeforeGoCall(t *testing.T) {
	L := NewState()
	defer L.Close()
	calls := 0
	L.SetGlobal("f", L.NewFunction(func(L *LState) int { calls++; return 0 }))
	for _, tt := range []struct {
		name, src   string
		stop, calls int
	}{
		{"before the first instruction", "f()", 1, 0},
		{"before a call", "f() f() f()", 2, 0},
		{"before the third call", "f() f() f()", 4, 2},
		{"before a tail call", "local function g() return f() end g() g()", 3, 1},
		{"on returning", "f()", 3, 1},
		{"before a call through __call", "local t = setmetatable({}, {__call = f}) t() t()", 4, 1},
		{"before a Go iterator's step", "for _ in next, {1, 2, 3} do f() end", 4, 1},
	} {
		calls = 0
		ctx := newStopAfter(tt.stop)
		L.SetContext(ctx)
		err := L.DoString(tt.src)
		L.RemoveContext()
		if err == nil || !strings.Contains(err.Error(), "stopped by the test") {
			t.Errorf("%s: got %v, want the context's error", tt.name, err)
		}
		if calls != tt.calls {
			t.Errorf("%s: f ran %d times, want %d", tt.name, calls, tt.calls)
		}
	}
}

// TestPollWithoutContext: a state without a context runs straight-line code to the end.
func TestPollWithoutContext(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString("n = 0\n" + strings.Repeat("n = n + 1\n", 3000)); err != nil {
		t.Fatal(err)
	}
	if n := L.GetGlobal("n"); n != LNumber(3000) {
		t.Fatalf("n = %v", n)
	}
}

// TestPollTableSort: table.sort polls the context while it compares, with and without a
// comparison function, so that the sort of a large table stops where the context stops it
// and not once it has sorted everything.
func TestPollTableSort(t *testing.T) {
	L := NewState()
	defer L.Close()
	const less, greater = "function(a, b) return a < b end", "function(a, b) return a > b end"
	for _, tt := range []struct{ name, fill, call, order string }{
		{"numbers", "t[i] = (i * 7919) % 20011", "table.sort(t)", less},
		{"strings", "t[i] = tostring((i * 7919) % 20011)", "table.sort(t)", less},
		{"a nil comparison function", "t[i] = (i * 7919) % 20011", "table.sort(t, nil)", less},
		{"a comparison function", "t[i] = (i * 7919) % 20011", "table.sort(t, " + greater + ")", greater},
	} {
		if err := L.DoString("t = {} for i = 1, 20000 do " + tt.fill + " end"); err != nil {
			t.Fatal(err)
		}
		ctx := newStopAfter(4) // before the chunk, before the call of table.sort, then the sort's
		L.SetContext(ctx)
		err := L.DoString(tt.call)
		L.RemoveContext()
		if err == nil || !strings.Contains(err.Error(), "stopped by the test") {
			t.Errorf("%s: got %v, want the context's error", tt.name, err)
			continue
		}
		// The sort stopped on its way: the table holds what it held, not yet in order.
		if err := L.DoString("local lt = " + tt.order + `
			ordered = true
			for i = 2, #t do if lt(t[i], t[i-1]) then ordered = false end end
			assert(#t == 20000)`); err != nil {
			t.Fatal(err)
		}
		if L.GetGlobal("ordered") == LTrue {
			t.Errorf("%s: the table was sorted to the end after the context stopped", tt.name)
		}
	}
}
