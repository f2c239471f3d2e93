package luabind

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestNonFiniteReturnIsUnsupported: NaN and the infinities have no JSON form, so a hook that
// returns one reports an unsupported value instead of handing the host a result that
// `hooks test --json` and `replay --json` cannot print.
func TestNonFiniteReturnIsUnsupported(t *testing.T) {
	for _, expr := range []string{"0/0", "1/0", "-1/0", "math.huge", "{score = 0/0}", "{1, 2, -1/0}", "{a = {b = 1/0}}"} {
		t.Run(expr, func(t *testing.T) {
			v, err := hostileCall(t, "return "+expr, nil)
			le, ok := err.(*Error)
			if !ok || le.Kind != KindConvert || !strings.Contains(le.Msg, "unsupported value") {
				t.Fatalf("got %v, %v; want an unsupported-value error", v, err)
			}
			if le.File == "" || le.Line == 0 {
				t.Errorf("error %q has no file:line", le)
			}
		})
	}
	v, err := hostileCall(t, "return {n = 1.5, big = 2^60, huge = 2^1023}", nil)
	if err != nil {
		t.Fatalf("finite numbers: %v", err)
	}
	if _, err := json.Marshal(v); err != nil {
		t.Errorf("finite numbers do not encode: %v", err)
	}
}

// TestJSONDecodeOutOfRange: json.decode refuses numbers beyond float64, as Go does, rather
// than turning them into infinities that json.encode then refuses.
func TestJSONDecodeOutOfRange(t *testing.T) {
	for _, text := range []string{"1e400", "[-1e999]", `{"a": 1e309}`} {
		got, err := hostileCall(t, `local ok, err = pcall(require("json").decode, kw.text)
  return {ok = ok, err = tostring(err)}`, map[string]any{"text": text})
		if err != nil {
			t.Fatal(err)
		}
		m := got.(map[string]any)
		if m["ok"] != false || !strings.Contains(m["err"].(string), "out of range") {
			t.Errorf("json.decode(%s) = %v, want an out-of-range error", text, m)
		}
	}
}

// hostileCall loads a plugin whose one callback has body and calls it with kwargs. The
// timeout only stops a hang: under -race on a busy machine, building the 64 MiB strings the
// limit tests build takes more than the default 5 s.
func hostileCall(t *testing.T, body string, kwargs map[string]any) (any, error) {
	t.Helper()
	src := "function register(ctx)\n  ctx.register_hook('x', function(kw)\n" + body + "\n  end)\nend\n"
	p, err := LoadPlugin(context.Background(), []byte(src), Options{File: "hostile/handler.lua", Timeout: time.Minute})
	if err != nil {
		t.Fatalf("LoadPlugin: %v", err)
	}
	defer p.Close()
	return p.Call(context.Background(), 0, kwargs)
}
