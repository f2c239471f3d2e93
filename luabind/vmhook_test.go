package luabind

import (
	"strings"
	"testing"
)

// TestConcatIsBounded: `..` refuses to build a string larger than maxStringSize before
// building it, whatever the shape of the expression, and leaves ordinary joins alone.
func TestConcatIsBounded(t *testing.T) {
	tests := []struct{ name, body string }{
		{"one instruction", `local s = string.rep("x", 16 * 2^20)
  return #(s .. s .. s .. s .. s .. s .. s .. s .. s .. s)`},
		{"after a call", `local function f() return string.rep("y", 40 * 2^20) end
  return #(f() .. f())`},
		{"in a loop", `local s = "x" for i = 1, 40 do s = s .. s end return #s`},
		{"numbers mixed in", `local s = string.rep("z", 33 * 2^20) return #(1 .. s .. 2 .. s)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := hostileCall(t, tt.body, nil)
			le, ok := err.(*Error)
			if !ok || le.Kind != KindLimit || !strings.Contains(le.Msg, ".. result larger than 64 MiB") {
				t.Fatalf("got %v, %v; want a limit error naming ..", v, err)
			}
		})
	}
	v, err := hostileCall(t, `local a, b = "ab", 12 return a .. b .. "c" .. 1.5`, nil)
	if err != nil || v != "ab12c1.5" {
		t.Fatalf("ordinary concat: got %v, %v", v, err)
	}
}
