package luabind

import (
	"context"
	"errors"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// The adapter reads arguments and pushes results by type, and names a bad argument.
func TestExportAdapter(t *testing.T) {
	t.Parallel()
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("m", funcTable(L, map[string]lua.LGFunction{
		"join": fn3(func(_ *lua.LState, a string, n int, sep Opt[string]) (string, error) {
			if !sep.Set {
				sep.V = ","
			}
			return strings.Repeat(a+sep.V, n), nil
		}),
		"half":  fn1(func(_ *lua.LState, x float64) (float64, error) { return x / 2, nil }),
		"pair":  fn1(func(_ *lua.LState, b bool) (values, error) { return values{lua.LBool(!b), lua.LString("x")}, nil }),
		"same":  fn1(func(_ *lua.LState, v lua.LValue) (lua.LValue, error) { return v, nil }),
		"quiet": fn0(func(*lua.LState) (none, error) { return none{}, nil }),
		"bad":   fn1(func(_ *lua.LState, s string) (bool, error) { return false, &argError{n: 1, msg: "not " + s} }),
		"fails": fn0(func(*lua.LState) (int, error) { return 0, errors.New("it failed") }),
	}))
	for src, want := range map[string]string{
		`return m.join("a", 2)`:                             "a,a,",
		`return m.join("a", 2, "-")`:                        "a-a-",
		`return tostring(m.half(3))`:                        "1.5",
		`local a, b = m.pair(true) return tostring(a) .. b`: "falsex",
		`return m.same(nil) == nil and "nil" or "?"`:        "nil",
		`return select("#", m.quiet())`:                     "0",
	} {
		if err := L.DoString(src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := L.Get(-1).String(); got != want {
			t.Errorf("%s = %q, want %q", src, got, want)
		}
		L.Pop(1)
	}
	for src, want := range map[string]string{
		`m.join(1)`:   "bad argument #2 to join (number expected, got nil)",
		`m.bad("x")`:  "bad argument #1 to bad (not x)",
		`m.fails()`:   "it failed",
		`m.half("q")`: "bad argument #1 to half (number expected, got string)",
	} {
		if err := L.DoString(src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}

// facade is a Go object built for Lua.
type facade struct {
	Name string
	sent []string
}

func (f *facade) Send(s string) string { f.sent = append(f.sent, s); return "sent " + s }

// An Object's methods answer a dot call as well as a colon call; its fields read as before.
func TestObjectCallStyles(t *testing.T) {
	obj := &facade{Name: "gw"}
	p := loadPlugin(t, `function register(ctx)
  ctx.register_hook("x", function(kw)
    local o = kw.obj
    return table.concat({o:Send("a"), o.send("b"), o.Send("c"), o:send("d"), o.Name}, ",")
  end)
end`, Options{})
	got, err := p.Call(context.Background(), 0, map[string]any{"obj": Object{V: obj}})
	if err != nil {
		t.Fatal(err)
	}
	if got != "sent a,sent b,sent c,sent d,gw" || strings.Join(obj.sent, "") != "abcd" {
		t.Errorf("got %v, sent %v", got, obj.sent)
	}
}
