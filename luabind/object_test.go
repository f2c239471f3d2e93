package luabind

import (
	"context"
	"github.com/hermes-hooks/hermes/hookspec"
	"strings"
	"testing"
)

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
	got, err := p.Call(context.Background(), 0, map[string]any{"obj": hookspec.Object{V: obj}})
	if err != nil {
		t.Fatal(err)
	}
	if got != "sent a,sent b,sent c,sent d,gw" || strings.Join(obj.sent, "") != "abcd" {
		t.Errorf("got %v, sent %v", got, obj.sent)
	}
}
