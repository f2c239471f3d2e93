package luabind

import (
	"bytes"
	"context"
	"errors"
	"github.com/hermes-hooks/hermes/hookspec"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func loadPlugin(t testing.TB, src string, opts Options) *Plugin {
	t.Helper()
	if opts.File == "" {
		opts.File = "test/handler.lua"
	}
	p, err := LoadPlugin(context.Background(), []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadPlugin: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// eval registers one pre_tool_call callback with body and calls it with kwargs.
func eval(t *testing.T, body string, kwargs map[string]any, opts Options) (any, error) {
	t.Helper()
	p := loadPlugin(t, "function register(ctx)\n ctx.register_hook('x', function(kw)\n"+body+"\nend)\nend\n", opts)
	return p.Call(context.Background(), 0, kwargs)
}

func TestRegistrations(t *testing.T) {
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return nil end)
  ctx.register_hook("post_tool_call", function(kw) return nil end)
end`, Options{})
	want := []Registration{{Hook: "pre_tool_call", Line: 3}, {Hook: "post_tool_call", Line: 4}}
	if diff := cmp.Diff(want, p.Registrations()); diff != "" {
		t.Errorf("registrations (-want +got):\n%s", diff)
	}
}

func TestCtxTable(t *testing.T) {
	p := loadPlugin(t, `
local seen
function register(ctx)
  seen = {name = ctx.name, home = ctx.home, limit = ctx.config.limit, tags = ctx.config.tags}
  ctx.log.info("registered", {n = 1})
  ctx.register_hook("x", function() return seen end)
end`, Options{Name: "audit", Home: "/h", Config: map[string]any{"limit": 3, "tags": []any{"a", "b"}}})
	got, err := p.Call(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "audit", "home": "/h", "limit": int64(3), "tags": []any{"a", "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ctx (-want +got):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, src string
		kind      Kind
		want      string
	}{
		{"syntax", "function register(ctx)\n  local x = = 1\nend", KindSyntax, "f.lua:2:"},
		{"no register", "x = 1", KindLoad, "f.lua: no global function register(ctx)"},
		{"register not a function", "register = 5", KindLoad, "no global function register"},
		{"chunk error", "local a\n\nerror('boom')", KindRuntime, "f.lua:3: boom"},
		{"error in register", "function register(ctx)\n  error('bad config')\nend", KindRuntime, "f.lua:2: error in register(ctx): bad config"},
		{"loop in chunk", "while true do end", KindTimeout, "f.lua:1: timed out while loading"},
		{"bad register_hook", "function register(ctx) ctx.register_hook('x', 5) end", KindRuntime, "function expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadPlugin(context.Background(), []byte(tt.src), Options{File: "f.lua", Timeout: 200 * time.Millisecond})
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if le.Kind != tt.kind || !strings.Contains(le.Error(), tt.want) {
				t.Errorf("err = %q (kind %v), want kind %v containing %q", le.Error(), le.Kind, tt.kind, tt.want)
			}
		})
	}
}

func TestConversions(t *testing.T) {
	kwargs := map[string]any{
		"s": "str", "i": 42, "f": 1.5, "b": true, "n": nil,
		"list": []any{"a", 2}, "map": map[string]any{"k": "v"}, "strs": []string{"x", "y"},
	}
	got, err := eval(t, `return {
	  s = kw.s, i = kw.i, f = kw.f, b = kw.b, n_is_nil = (kw.n == nil),
	  first = kw.list[1], second = kw.list[2], k = kw.map.k, y = kw.strs[2],
	  arr = {1, 2, 3}, empty = {}, nested = {a = {b = {1.25}}}, int_float = 3.0}`, kwargs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"s": "str", "i": int64(42), "f": 1.5, "b": true, "n_is_nil": true,
		"first": "a", "second": int64(2), "k": "v", "y": "y",
		"arr": []any{int64(1), int64(2), int64(3)}, "empty": map[string]any{},
		"nested": map[string]any{"a": map[string]any{"b": []any{1.25}}}, "int_float": int64(3),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conversion (-want +got):\n%s", diff)
	}
}

func TestUnsupportedResults(t *testing.T) {
	tests := []struct{ body, want string }{
		{"return function() end", "unsupported value of type function"},
		{"return {f = print}", "unsupported value of type function at value.f"},
		{"local t = {} t.self = t return t", "cycle"},
		{"return coroutine.create(function() end)", "unsupported value of type thread"},
		{"return {[true] = 1}", "unsupported key"},
	}
	for _, tt := range tests {
		_, err := eval(t, tt.body, nil, Options{})
		var le *Error
		if !errors.As(err, &le) || le.Kind != KindConvert || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want KindConvert containing %q", tt.body, err, tt.want)
		}
	}
}

func TestSandbox(t *testing.T) {
	t.Setenv("HERMES_TEST_SECRET", "s3cret")
	t.Setenv("HERMES_TEST_OK", "fine")
	tests := []struct {
		body string
		want any
	}{
		{"return dofile == nil and loadfile == nil and debug == nil and package == nil", true},
		{"return io.popen == nil and io.write == nil and io.read == nil and io.stdout == nil and io.tmpfile == nil and type(io.open) == 'function'", true},
		{"return os.execute == nil and os.remove == nil and os.exit == nil and os.rename == nil", true},
		{"return type(os.time()) == 'number' and type(os.clock()) == 'number' and type(os.date('%Y')) == 'string'", true},
		{"return os.getenv('HERMES_TEST_SECRET') == nil", true},
		{"return os.getenv('HERMES_TEST_OK')", "fine"},
		{"return type(string.format) == 'function' and type(table.concat) == 'function' and type(math.floor) == 'function' and type(coroutine.wrap) == 'function'", true},
		{"return require('hermes').home", "/home/x"},
		{"return pcall(require, 'io')", false},
	}
	for _, tt := range tests {
		got, err := eval(t, tt.body, nil, Options{Home: "/home/x", Permissions: hookspec.Permissions{Env: []string{"HERMES_TEST_OK"}}})
		if err != nil {
			t.Errorf("%s: %v", tt.body, err)
			continue
		}
		if !cmp.Equal(got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.body, got, tt.want)
		}
	}
}

func TestModules(t *testing.T) {
	tests := []struct {
		body string
		want any
	}{
		{`local json = require("json") return json.encode({a = {1, 2}, b = "x<y", e = {}, ea = json.array({})})`, `{"a":[1,2],"b":"x<y","e":{},"ea":[]}`},
		{`local json = require("json") local v = json.decode('{"a":[1,null,3],"b":{"c":true}}') return {v.a[2] == json.null, v.a[3], v.b.c}`, []any{true, int64(3), true}},
		{`local json = require("json") return json.encode(json.decode('{"l":[]}'))`, `{"l":[]}`},
		{`local json = require("json") return pcall(json.decode, '{bad')`, false},
		{`local re = require("re") return re.match("key sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "sk-[A-Za-z0-9]{32,}")`, true},
		{`local re = require("re") return re.gsub("token sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 end", "sk-[A-Za-z0-9]{32,}", "[REDACTED]")`, "token [REDACTED] end"},
		{`local re = require("re") local s, n = re.gsub("a1 b2", "([a-z])(\\d)", "${2}${1}") return s .. n`, "1a 2b2"},
		{`local re = require("re") return (re.gsub("a1 b2", "\\d", function(m) return "<" .. m .. ">" end))`, "a<1> b<2>"},
		{`local re = require("re") local m, y = re.find("date 2026-11", "(\\d+)-\\d+") return m .. "|" .. y`, "2026-11|2026"},
		{`local re = require("re") return re.find_all("a1b22c333", "\\d+")`, []any{"1", "22", "333"}},
		{`local re = require("re") return pcall(re.match, "x", "(")`, false},
		{`local t = require("time") local a = t.now() t.sleep(0.01) return t.now() - a >= 0.01`, true},
		{`return require("hermes").version`, version},
		{`return pcall(require, "nope")`, false},
	}
	for _, tt := range tests {
		got, err := eval(t, tt.body, nil, Options{})
		if err != nil {
			t.Errorf("%s: %v", tt.body, err)
			continue
		}
		if !cmp.Equal(got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.body, got, tt.want)
		}
	}
}

func TestLogAndPrint(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})).With("hook", "audit")
	_, err := eval(t, `require("log").warn("careful", {tool = kw.tool}) print("hello", 1)`, map[string]any{"tool": "terminal"}, Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"level=WARN msg=careful hook=audit tool=terminal line=3", "level=INFO msg=\"hello\\t1\" hook=audit"} {
		if !strings.Contains(out, want) {
			t.Errorf("log output missing %q:\n%s", want, out)
		}
	}
}

func TestTimeoutInterruptsAndStateSurvives(t *testing.T) {
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("loop", function() while true do end end)
  ctx.register_hook("sleep", function() require("time").sleep(60) end)
  ctx.register_hook("pcall_loop", function() while true do pcall(function() while true do end end) end end)
  ctx.register_hook("ok", function() return "fine" end)
  -- coroutines made at load, and in an earlier call, run under the current call's deadline
  ctx.register_hook("co_load", function() coroutine.resume(at_load) end)
  ctx.register_hook("co_make", function() later = coroutine.wrap(function() coroutine.yield() while true do end end); later() end)
  ctx.register_hook("co_later", function() later() end)
end
at_load = coroutine.create(function() while true do end end)`, Options{Timeout: 100 * time.Millisecond})
	if _, err := p.Call(context.Background(), 5, nil); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"loop", "sleep", "pcall_loop", "", "co_load", "", "co_later"} {
		if name == "" {
			continue
		}
		start := time.Now()
		_, err := p.Call(context.Background(), i, nil)
		if !isTimeout(err) {
			t.Errorf("%s: err = %v, want timeout", name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v, want about the 100ms timeout", name, d)
		}
		if got, err := p.Call(context.Background(), 3, nil); err != nil || got != "fine" {
			t.Errorf("after %s: got %v, %v; want the state to keep working", name, got, err)
		}
	}
}

func TestLimits(t *testing.T) {
	tests := []struct{ body, want string }{
		{"local function f(n) return 1 + f(n + 1) end return f(1)", "call stack overflow"},
		{`return string.rep("x", 2^40)`, "string.rep result larger than"},
		{"error({code = 1})", "table"},
		{"local t = nil return t.x", "attempt to index"},
	}
	for _, tt := range tests {
		_, err := eval(t, tt.body, nil, Options{Timeout: 2 * time.Second})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want containing %q", tt.body, err, tt.want)
		}
	}
}

func TestHostFuncs(t *testing.T) {
	var got []any
	host := map[string]hookspec.Func{
		"run_agent": func(ctx context.Context, args []any) (any, error) {
			got = args
			return map[string]any{"text": "ok"}, nil
		},
		"fail":  func(context.Context, []any) (any, error) { return nil, errors.New("nope") },
		"panic": func(context.Context, []any) (any, error) { panic("kaboom") },
	}
	v, err := eval(t, `local h = require("hermes") return h.run_agent("prompt", {x = 1}).text`, nil, Options{HostFuncs: host})
	if err != nil || v != "ok" {
		t.Fatalf("run_agent = %v, %v", v, err)
	}
	if diff := cmp.Diff([]any{"prompt", map[string]any{"x": int64(1)}}, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if _, err := eval(t, `require("hermes").fail()`, nil, Options{HostFuncs: host}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("fail: err = %v", err)
	}
	if _, err := eval(t, `require("hermes").panic()`, nil, Options{HostFuncs: host}); err == nil || !strings.Contains(err.Error(), "kaboom") {
		t.Errorf("panic: err = %v", err)
	}
	// Funcs inside kwargs become callable functions (host objects such as gateway.send).
	var sent string
	gw := map[string]any{"send": hookspec.Func(func(_ context.Context, a []any) (any, error) { sent = a[2].(string); return nil, nil })}
	if _, err := eval(t, `kw.gateway.send("telegram", "c1", "hi")`, map[string]any{"gateway": gw}, Options{}); err != nil || sent != "hi" {
		t.Errorf("gateway.send: sent %q, err %v", sent, err)
	}
}

func TestGlobalsArePerPluginAndPerState(t *testing.T) {
	a := loadPlugin(t, `count = 0 function register(ctx) ctx.register_hook("x", function() count = count + 1 return count end) end`, Options{})
	b := loadPlugin(t, `function register(ctx) ctx.register_hook("x", function() return count == nil end) end`, Options{})
	for i := 1; i <= 3; i++ {
		if got, _ := a.Call(context.Background(), 0, nil); got != int64(i) {
			t.Errorf("call %d: count = %v", i, got)
		}
	}
	if got, _ := b.Call(context.Background(), 0, nil); got != true {
		t.Errorf("plugin b sees plugin a's global")
	}
}

// TestConcurrentCalls checks that a state is never entered twice at once: each call marks
// its state busy and fails if it finds it busy already.
func TestConcurrentCalls(t *testing.T) {
	for _, states := range []int{1, 4} {
		p := loadPlugin(t, `
busy = false
function register(ctx)
  ctx.register_hook("x", function(kw)
    if busy then error("state entered twice") end
    busy = true
    local s = 0 for i = 1, 200 do s = s + i end
    busy = false
    return kw.n * 2
  end)
end`, Options{States: states})
		var wg sync.WaitGroup
		var bad atomic.Int32
		for g := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					n := g*100 + i
					got, err := p.Call(context.Background(), 0, map[string]any{"n": n})
					if err != nil || got != int64(n*2) {
						bad.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		if bad.Load() != 0 {
			t.Errorf("states=%d: %d bad calls", states, bad.Load())
		}
		if got := p.s.pool.size(); got > states {
			t.Errorf("states=%d: created %d states", states, got)
		}
	}
}

func TestHandler(t *testing.T) {
	h, err := LoadHandler(context.Background(), []byte(`function handle(ev, ctx) return ev .. ":" .. ctx.platform end`), "handle", Options{File: "h.lua"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got, err := h.Call(context.Background(), "agent:start", map[string]any{"platform": "telegram"})
	if err != nil || got != "agent:start:telegram" {
		t.Errorf("got %v, %v", got, err)
	}
	_, err = LoadHandler(context.Background(), []byte(`x = 1`), "handle", Options{File: "h.lua"})
	if err == nil || !strings.Contains(err.Error(), "h.lua: no global function handle") {
		t.Errorf("missing handle: err = %v", err)
	}
}

func TestClosedPluginRefusesCalls(t *testing.T) {
	p, err := LoadPlugin(context.Background(), []byte(`function register(ctx) ctx.register_hook("x", function() return 1 end) end`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if _, err := p.Call(context.Background(), 0, nil); err == nil {
		t.Error("call after Close succeeded")
	}
}

func TestSyntaxErrorAtEndOfFileHasALine(t *testing.T) {
	_, err := LoadPlugin(context.Background(), []byte("function register(ctx)\n  if x then\n    y()\nend\n"), Options{File: "f.lua"})
	if err == nil || !strings.HasPrefix(err.Error(), "f.lua:4: ") || !strings.Contains(err.Error(), "'end' expected (to close 'function' at line 1) at end of file") {
		t.Errorf("err = %v, want f.lua:4: 'end' expected (to close 'function' at line 1) at end of file", err)
	}
}
