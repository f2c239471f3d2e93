package luabind

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// CallInto answers what Call answers; an object comes back in the caller's map, which
// holds nothing of the call before, and whose nested tables are new.
func TestCallIntoLikeCall(t *testing.T) {
	src := `function register(ctx)
  ctx.register_hook("x", function(kw)
    if kw.n == 1 then return {action = "modify", args = {command = "ls"}} end
    if kw.n == 2 then return {context = "two"} end
    if kw.n == 3 then return {1, 2} end
    if kw.n == 4 then return "four" end
    if kw.n == 5 then return {bad = print} end
  end)
end`
	ctx := context.Background()
	p, err := LoadPlugin(ctx, []byte(src), Options{File: "answer.lua"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	answer := map[string]any{"left": "over"}
	var args map[string]any
	for _, n := range []int{1, 2, 3, 4, 5, 6, 1} {
		want, werr := p.Call(ctx, 0, map[string]any{"n": n})
		got, _, gerr := p.CallInto(ctx, 0, map[string]any{"n": n}, false, answer)
		if diff := cmp.Diff(want, got); diff != "" || (werr == nil) != (gerr == nil) {
			t.Fatalf("n=%d: CallInto (-Call +CallInto):\n%s\nerrors %v, %v", n, diff, werr, gerr)
		}
		m, isMap := got.(map[string]any)
		if isMap != (reflect.ValueOf(got).Kind() == reflect.Map && reflect.ValueOf(got).UnsafePointer() == reflect.ValueOf(answer).UnsafePointer()) {
			t.Fatalf("n=%d: an object answer is not the caller's map", n)
		}
		if n == 1 {
			a := m["args"].(map[string]any)
			if args != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(args).UnsafePointer() {
				t.Fatal("a nested table came back in the same map twice")
			}
			args = a
		}
	}
	if args["command"] != "ls" {
		t.Fatalf("the first call's nested map changed: %v", args)
	}
}
