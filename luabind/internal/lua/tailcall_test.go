package lua

import (
	"strings"
	"testing"
)

// A loop of tail calls keeps one frame and counts the calls it replaced; the traceback of
// an error raised in it says "(tailcall)" once, however many there were (it had a line for
// each: hundreds of megabytes after a second of looping).
func TestTailCallTraceback(t *testing.T) {
	tests := []struct {
		name, src string
		want      int // "(tailcall)" lines
	}{
		{"no tail call", `local function f() error("stop") end f()`, 0},
		{"one", `local function g() error("stop") end local function f() return g() end f()`, 1},
		{"a loop", `local function f(n) if n == 0 then error("stop") end return f(n - 1) end f(1000000)`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			L := NewState()
			defer L.Close()
			err := L.DoString(tt.src)
			if err == nil {
				t.Fatal("no error")
			}
			trace := err.Error()
			if got := strings.Count(trace, "(tailcall)"); got != tt.want {
				t.Errorf("got %d (tailcall) lines, want %d:\n%s", got, tt.want, trace)
			}
			if len(trace) > 4096 {
				t.Errorf("traceback is %d bytes long", len(trace))
			}
		})
	}
}
