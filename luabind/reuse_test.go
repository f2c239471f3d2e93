package luabind

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hermes-hooks/hermes/luabind/internal/kwflow"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// callbackProto compiles `return function(kw) <body> end` and returns the inner function.
func callbackProto(t *testing.T, body string) *lua.FunctionProto {
	t.Helper()
	proto, err := compile("t.lua", []byte("local up = {}\nreturn function(kw, ...)\n"+body+"\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	return proto.FunctionPrototypes[0]
}

func TestAnalyzeKwargs(t *testing.T) {
	for _, tt := range []struct {
		body     string
		readOnly bool
		escape   []string // fields whose tables may escape
		anyField bool
		why      string
	}{
		// Reads only.
		{`if kw.tool_name == "terminal" and string.find(kw.args.command or "", "rm -rf /", 1, true) then return {action = "block"} end`, true, nil, false, ""},
		{`local a = kw.args; local b = a; return b.command`, true, nil, false, ""},
		{`return #kw.args > 0 and not kw.x`, true, nil, false, ""},
		{`for i = 1, 3 do if kw.args[i] == nil then return i end end`, true, nil, false, ""},
		{`local t = kw.args or {}; return t.x`, true, nil, false, ""},
		{`while kw.x do local y = kw.args.y; if y then return y end end`, true, nil, false, ""},
		{`if kw == nil then return end; return kw.a`, true, []string{"a"}, false, ""},
		{`local s = string.format("%s", kw.tool_name); return s`, true, []string{"tool_name"}, false, ""},
		{`local function f(s) return s .. "!" end; return f(kw.tool_name)`, true, []string{"tool_name"}, false, ""},
		{`local n = 0; local function inc() n = n + 1 end; inc(); return kw.args.x, n`, true, nil, false, ""},
		// A field escapes, kw does not.
		{`return kw.args`, true, []string{"args"}, false, ""},
		{`up.last = kw.args`, true, []string{"args"}, false, ""},
		{`json_encode(kw.args)`, true, []string{"args"}, false, ""},
		{`local k = "args"; return kw[k]`, true, nil, true, ""},
		{`kw.args.x = 1`, true, []string{"args"}, false, ""},
		{`local t = kw.args; return t:find("x")`, true, []string{"args"}, false, ""},
		// kw escapes.
		{`return kw`, false, nil, false, "line 3: kw is returned"},
		{`last = kw`, false, nil, false, "line 3: kw is stored in a global"},
		{`up.kw = kw`, false, nil, false, "line 3: kw is stored in a table"},
		{`up[kw] = true`, false, nil, false, "line 3: kw is used as a table key"},
		{`table.insert(up, kw)`, false, nil, false, "line 3: kw is passed to a function"},
		{`local t = {kw}; return t`, false, nil, false, "line 3: kw is stored in a table"},
		{`local t = {x = kw}; return t`, false, nil, false, "line 3: kw is stored in a table"},
		{`return function() return kw end`, false, nil, false, "line 3: kw is captured by a closure"},
		{`kw.x = 1`, false, nil, false, "line 3: kw is written into"},
		{`setmetatable(kw, {})`, false, nil, false, "line 3: kw is passed to a function"},
		{`for k, v in pairs(kw) do end`, false, nil, false, "line 3: kw is passed to a function"},
		{`local a = kw; last = a`, false, nil, false, "line 3: kw is stored in a global"},
		{`local a = kw or {}; last = a`, false, nil, false, "line 3: kw is stored in a global"},
		{`return kw:method()`, false, nil, false, "line 3: kw has a method called on it"},
		{`return up < kw`, false, nil, false, "line 3: kw is an operand of an operator"},
		{`return up .. kw`, false, nil, false, "line 3: kw is an operand of an operator"},
		{`return up[kw]`, false, nil, false, "line 3: kw is used as a table key"},
		{`return -kw`, false, nil, false, "line 3: kw is an operand of an operator"},
		{`error(kw)`, false, nil, false, "line 3: kw is passed to a function"},
		{`coroutine.yield(kw)`, false, nil, false, "line 3: kw is passed to a function"},
		{`return select(1, kw)`, false, nil, false, "line 3: kw is passed to a function"},
		{`kw = {}; return kw`, true, nil, false, ""}, // the parameter is overwritten first
		{`for k, v in next, kw do end`, false, nil, false, "line 3: kw is iterated by a generic for"},
		{`for _, p in ipairs(up) do if kw.x == p then return 1 end end`, true, nil, false, ""},
		{`for _ in pairs(up) do end; for i = 1, 2 do end; return #kw.args`, true, nil, false, ""},
		{`if kw.x then kw = {} end; last = kw`, false, nil, false, "line 3: kw is stored in a global"},
		// A closure can reach kw or a field: a register it captures is shared with it for as
		// long as it lives, whatever the order of capture and assignment.
		{"local a = kw.args\nlocal f = function() return a end\nreturn f().x", false, nil, false,
			"line 3: kw.args is captured by a closure (the closure at line 4 captures a)"},
		{"local a\nlocal f = function() return a end\na = kw.args\nreturn f().x", false, nil, false,
			"line 5: kw.args is captured by a closure (the closure at line 4 captures a)"},
		{"local a\nlocal f = function() return a end\na = kw\nreturn f().x", false, nil, false,
			"line 5: kw is captured by a closure (the closure at line 4 captures a)"},
		{"local f = function() return kw end\nkw = {}\nreturn f()", false, nil, false,
			"line 3: kw is captured by a closure"},
		{"local f = function() kw = {} end\nf()\nreturn kw.x", false, nil, false, "line 3: kw is captured by a closure"},
		{"do local a; up.f = function() return a end end\nlocal b = kw.args\nreturn b.x", false, nil, false,
			"line 4: kw.args is captured by a closure (the closure at line 3 captures a)"}, // b reuses a's register
		{"local a = kw[up.k]\nreturn function() return a end", false, nil, false,
			"line 3: a field of kw is captured by a closure (the closure at line 4 captures a)"},
		{"local a = kw[\"x-y\"]\nreturn function() return a end", false, nil, false,
			`line 3: kw["x-y"] is captured by a closure (the closure at line 4 captures a)`},
	} {
		got := kwflow.Analyze(callbackProto(t, tt.body), 0)
		want := kwflow.Use{ReadOnly: tt.readOnly, Escaping: tt.escape, AnyField: tt.anyField}
		if !tt.readOnly {
			want = kwflow.Use{Why: tt.why}
		}
		// The fields read are checked by kwflow's TestUnread and by TestUnreadFieldNotConverted.
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(kwflow.Use{}, "Reads", "ReadsAny", "Inner", "InnerAny")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.body, diff)
		}
	}
	// The shapes of TestGuardSeesEveryKey: no callback a closure can reach kw from is
	// read-only, and each says why.
	for _, sh := range guardShapes {
		got := kwflow.Analyze(callbackProto(t, sh.body), 0)
		if diff := cmp.Diff(kwflow.Use{Why: sh.why}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", sh.name, diff)
		}
	}
}

func TestAnalyzeKwargsNeedsAParameter(t *testing.T) {
	proto, err := compile("t.lua", []byte("return function(...) local kw = ... return kw.x end"))
	if err != nil {
		t.Fatal(err)
	}
	if got := kwflow.Analyze(proto.FunctionPrototypes[0], 0); got.ReadOnly || got.Why != "the function takes its arguments through ..." {
		t.Errorf("a vararg callback's kwargs: %+v", got)
	}
	proto, err = compile("t.lua", []byte("return function() return 1 end"))
	if err != nil {
		t.Fatal(err)
	}
	if got := kwflow.Analyze(proto.FunctionPrototypes[0], 0); !got.ReadOnly {
		t.Errorf("a callback without parameters cannot keep its kwargs, yet: %+v", got)
	}
}

// A callback that keeps its kwargs (or a table in them) must see what it kept unchanged
// by later calls, whatever way it kept them.
func TestKeptKwargsDoNotChange(t *testing.T) {
	for _, keep := range []string{
		`kept = kw`,
		`kept = {kw = kw}; kept = kept.kw`,
		`table.insert(list, kw); kept = list[#list]`,
		`local f = function() return kw end; kept = f()`,
		`kept = select(1, kw)`,
		`kept = {args = kw.args, tool_name = kw.tool_name}`,
		`local a = kw.args; kept = {args = a, tool_name = kw.tool_name}`,
		`local k = "args"; kept = {args = kw[k], tool_name = kw.tool_name}`,
		`local a; local function keep() kept = a end; a = kw; keep()`,
		`local a; local function keep() kept = {args = a, tool_name = kw.tool_name} end; a = kw.args; keep()`,
	} {
		t.Run(keep, func(t *testing.T) {
			p := loadPlugin(t, `
list = {}
function register(ctx)
  ctx.register_hook("x", function(kw)
    if kept then
      return {tool_name = kept.tool_name, command = kept.args.command}
    end
    `+keep+`
  end)
end`, Options{})
			first := map[string]any{"tool_name": "one", "args": map[string]any{"command": "ls"}}
			second := map[string]any{"tool_name": "two", "args": map[string]any{"command": "rm"}}
			if _, err := p.Call(context.Background(), 0, first); err != nil {
				t.Fatal(err)
			}
			got, err := p.Call(context.Background(), 0, second)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]any{"tool_name": "one", "command": "ls"}, got); diff != "" {
				t.Errorf("kept kwargs changed (-want +got):\n%s", diff)
			}
		})
	}
}

// A refilled table shows exactly the current call's kwargs: keys of earlier calls are gone,
// changed values and types are seen, nested tables are complete.
func TestRefilledKwargs(t *testing.T) {
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("x", function(kw)
    local n, keys = 0, {}
    local seen = {}
    for _, k in ipairs({"a", "b", "c", "args", "n", "flag"}) do
      local v = kw[k]
      if type(v) == "table" then
        local inner = {}
        for _, ik in ipairs({"x", "y", "list"}) do
          local iv = v[ik]
          if type(iv) == "table" then iv = "list of " .. #iv end
          if iv ~= nil then inner[ik] = iv end
        end
        v = inner
      end
      seen[k] = v
    end
    return seen
  end)
end`, Options{})
	if !p.s.pool.slots[0].st.kws[0].use.ReadOnly {
		t.Fatal("the callback was not judged read-only: this test would not test refilling")
	}
	calls := []map[string]any{
		{"a": "1", "b": "2", "args": map[string]any{"x": "x1", "y": 1.5}},
		{"a": "1", "c": "3", "args": map[string]any{"y": 2, "list": []any{1, 2, 3}}},
		{"a": 7, "args": nil, "n": int64(4), "flag": true},
		{"a": "1", "args": map[string]any{"x": "x2"}, "flag": false},
		{},
	}
	want := []map[string]any{
		{"a": "1", "b": "2", "args": map[string]any{"x": "x1", "y": 1.5}},
		{"a": "1", "c": "3", "args": map[string]any{"y": int64(2), "list": "list of 3"}},
		{"a": int64(7), "n": int64(4), "flag": true},
		{"a": "1", "args": map[string]any{"x": "x2"}, "flag": false},
		nil, // an empty table converts to nil
	}
	for i, kw := range calls {
		got, err := p.Call(context.Background(), 0, kw)
		if err != nil {
			t.Fatal(err)
		}
		if want[i] == nil {
			if got != nil && fmt.Sprint(got) != "map[]" {
				t.Errorf("call %d: got %v, want nothing", i, got)
			}
			continue
		}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("call %d (-want +got):\n%s", i, diff)
		}
	}
}

// A table refilled with ever-new keys is rebuilt rather than growing gopher-lua's key index.
func TestRefillKeyChurn(t *testing.T) {
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("x", function(kw) local k = "k"; return kw.args[k] end)
end`, Options{})
	var tables = map[*lua.LTable]bool{}
	for i := range 3 * maxKeyChurn {
		key := fmt.Sprintf("key%d", i)
		got, err := p.Call(context.Background(), 0, map[string]any{"args": map[string]any{key: i, "k": key}})
		if err != nil || got != key {
			t.Fatalf("call %d: %v, %v", i, got, err)
		}
		tables[p.s.pool.slots[0].st.kws[0].field("args").t] = true
	}
	if len(tables) < 2 {
		t.Error("the args table was never rebuilt")
	}
}

// Whatever a callback does with its kwargs, it sees the same thing whether the engine
// refills tables or builds new ones: the results of a series of calls are compared with
// those of the same plugin run with the analysis switched off.
func TestReuseIsInvisible(t *testing.T) {
	bodies := []string{
		`local r = prev and prev.tool_name; prev = kw; return r`,
		`local r = prev and prev.command; prev = kw.args; return r`,
		`local r = seen[1] and seen[1].tool_name; seen[#seen + 1] = kw; return r`,
		`local r = last and last(); last = function() return kw.tool_name end; return r`,
		`local r = keep and keep.x; keep = kw.args.nested; return r`,
		`local r = kw.extra; kw.extra = kw.tool_name; return r`,
		`local r = rawget(kw, "extra"); rawset(kw, "extra", 1); return r`,
		`local r = kw.args.extra; kw.args.extra = 1; return r`,
		`local n = 0; for _ in pairs(kw) do n = n + 1 end; return n`,
		`local n = 0; for _ in pairs(kw.args) do n = n + 1 end; return n`,
		`return kw.args.command`,
		`return kw.args.nested and kw.args.nested.x`,
		`local r = prevargs == kw.args; prevargs = kw.args; return r`,
		`local r = prevkw == kw; prevkw = kw; return r`,
		`local t = setmetatable({}, {__index = kw}); return t.tool_name`,
		`local r = getmetatable(kw) ~= nil; setmetatable(kw, {}); return r`,
		`return #kw.args`,
		`local a = kw.args; if a.x then return a.x end; return kw.tool_name`,
		`local k = "tool_name"; return kw[k]`,
		`local r = saved and saved[1].command; saved = {kw.args}; return r`,
		`local r = caught and caught.tool_name; local _, e = pcall(error, kw); caught = e; return r`,
		`local r = co and co(); co = coroutine.wrap(function() coroutine.yield(kw.tool_name) end); return r`,
		`local r = nested_seen == kw.args.nested; nested_seen = kw.args.nested; return r`,
		`local r = lastn and lastn.x; lastn = kw.args.nested or lastn; return r`,
		`return kw.tool_name .. tostring(kw.more)`, // args and history never looked at
		`return #kw.history`,
		`local h = kw.history; return h[1] and h[1].role .. #h`,
		`local r = lasth and lasth[1].content; lasth = kw.history; return r`,
		`if kw.history[1] then kw.history[1].content = "changed" end; return kw.history[1] and kw.history[1].content`,
		`local r = {}; for i, m in ipairs(kw.history) do r[i] = m.role end; return r`,
		`return json_encode and 1 or #kw`,
	}
	history := []any{map[string]any{"role": "user", "content": "hi"}, map[string]any{"role": "assistant", "content": "hello"}}
	calls := []map[string]any{
		{"tool_name": "one", "args": map[string]any{"command": "ls", "x": "1", "nested": map[string]any{"x": "n1"}}, "history": history},
		{"tool_name": "two", "args": map[string]any{"command": "rm"}, "history": []any{}},
		{"tool_name": "two", "args": map[string]any{"command": "rm", "nested": map[string]any{"x": "n3"}}, "history": history[:1]},
		{"tool_name": "three", "args": map[string]any{}, "more": true, "history": history},
	}
	run := func(body string) []any {
		p := loadPlugin(t, "seen = {}\nfunction register(ctx)\n ctx.register_hook('x', function(kw)\n"+body+"\nend)\nend\n", Options{})
		var out []any
		for _, kw := range calls {
			v, err := p.Call(context.Background(), 0, kw)
			if err != nil {
				v = "error: " + err.Error()
			}
			out = append(out, v)
		}
		return out
	}
	reused := 0
	for _, body := range bodies {
		sameAsFresh(t, body, run)
		if kwflow.Analyze(callbackProto(t, body), 0).ReadOnly {
			reused++
		}
	}
	if reused < 8 { // the comparison is only worth something if many bodies were refilled
		t.Errorf("only %d of %d bodies had their kwargs refilled", reused, len(bodies))
	}
}

// countingTable is a Table that counts how often it is converted to Lua.
type countingTable struct{ n *int }

func (c countingTable) FillLua(w TableWriter) { *c.n++; w.String("role", "user") }
func (c countingTable) FieldCount() int       { return 1 }

// A table-valued field a callback never looks up is not converted for it at all (a
// conversation history of a thousand messages would be a thousand tables), while a callback
// that reads it, or hands kw on, gets it converted on every call.
func TestUnreadFieldNotConverted(t *testing.T) {
	for _, tt := range []struct {
		body      string
		converted bool
	}{
		{`return kw.model .. (kw.session_id or "")`, false},
		{`if kw.is_first_turn then return "first" end; return kw.model`, false},
		{`return kw.model .. #kw.conversation_history`, true},
		{`local k = "conversation_history"; return kw.model .. #kw[k]`, true},
		{`local function check(t) return t.model end; return check(kw)`, true}, // kw is passed on: new tables
	} {
		t.Run(tt.body, func(t *testing.T) {
			p := loadPlugin(t, "function register(ctx)\n ctx.register_hook('x', function(kw)\n"+tt.body+"\nend)\nend\n", Options{})
			n := 0
			for i := range 3 {
				kw := map[string]any{"model": "m", "is_first_turn": i == 0, "conversation_history": countingTable{&n}}
				got, err := p.Call(context.Background(), 0, kw)
				if err != nil {
					t.Fatal(err)
				}
				if s, _ := got.(string); i > 0 && !strings.HasPrefix(s, "m") {
					t.Fatalf("call %d: %v", i, got)
				}
			}
			if want := map[bool]int{false: 0, true: 3}[tt.converted]; n != want {
				t.Errorf("the history was converted %d times in 3 calls, want %d", n, want)
			}
		})
	}
}

// A gateway handler's context table (its second argument) is refilled the same way, and
// just as invisibly.
func TestHandlerContextReuse(t *testing.T) {
	bodies := []struct {
		body     string
		refilled bool // ctx itself
	}{
		{`return ctx.platform .. ":" .. tostring(ctx.user and ctx.user.id)`, true},
		{`local r = prev and prev.platform; prev = ctx; return r`, false},
		{`local r = prevuser and prevuser.id; prevuser = ctx.user; return r`, true}, // ctx.user is fresh
		{`local r = ctx.seen; ctx.seen = event; return r`, false},
	}
	calls := []map[string]any{
		{"platform": "telegram", "user": map[string]any{"id": "u1"}},
		{"platform": "slack", "user": map[string]any{"id": "u2"}},
		{"platform": "slack"},
	}
	run := func(body string) ([]any, *Handler) {
		h, err := LoadHandler(context.Background(), []byte("function handle(event, ctx)\n"+body+"\nend\n"), "handle", Options{File: "h.lua"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Close)
		var out []any
		for _, c := range calls {
			v, err := h.Call(context.Background(), "agent:step", c)
			if err != nil {
				v = "error: " + err.Error()
			}
			out = append(out, v)
		}
		return out, h
	}
	for _, b := range bodies {
		got, h := run(b.body)
		if refilled := h.s.pool.slots[0].st.kws[0] != nil; refilled != b.refilled {
			t.Errorf("%s: refilled = %v, want %v", b.body, refilled, b.refilled)
		}
		saved := analyze
		analyze = func(*lua.LFunction, int) kwflow.Use { return kwflow.Use{} }
		want, _ := run(b.body)
		analyze = saved
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: results differ from fresh tables (-fresh +reused):\n%s", b.body, diff)
		}
	}
}

// pairsTable is a Table that fills the given fields in order.
type pairsTable []struct {
	k string
	v any
}

func (p pairsTable) FillLua(w TableWriter) {
	for _, f := range p {
		if s, ok := f.v.(string); ok {
			w.String(f.k, s)
		} else {
			w.Value(f.k, f.v)
		}
	}
}

func (p pairsTable) FieldCount() int { return len(p) }

// A Table source (what pre_tool_call passes) refilled: keys that come and go, in any order,
// read directly or through args.
func TestRefilledTableSource(t *testing.T) {
	calls := []pairsTable{
		{{"a", "1"}, {"b", "2"}, {"args", map[string]any{"x": "x1", "y": 1}}},
		{{"b", "2"}, {"a", "1"}},
		{{"a", "3"}, {"args", map[string]any{"y": 2}}, {"c", true}},
		{},
		{{"args", map[string]any{"x": "x5"}}, {"a", "5"}},
	}
	for _, body := range []string{
		`return {a = kw.a, b = kw.b, x = kw.args and kw.args.x}`,
		`local k = "c"; return {a = kw.a, c = kw[k]}`,
		`local args = kw.args or {}; return {x = args.x, y = args.y}`,
		`return {n = #kw, a = kw.a}`,
	} {
		run := func() []any {
			p := loadPlugin(t, "function register(ctx)\n ctx.register_hook('x', function(kw)\n"+body+"\nend)\nend\n", Options{})
			var out []any
			for _, c := range calls {
				v, err := p.Call(context.Background(), 0, c)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, v)
			}
			return out
		}
		got := run()
		saved := analyze
		analyze = func(*lua.LFunction, int) kwflow.Use { return kwflow.Use{} }
		want := run()
		analyze = saved
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: results differ from fresh tables (-fresh +refilled):\n%s", body, diff)
		}
	}
}

// sameAsFresh checks that run(body), as the engine runs it, gives what it gives with the
// analysis off, when every call gets new tables.
func sameAsFresh[T any](t *testing.T, body string, run func(string) T) {
	t.Helper()
	got := run(body)
	saved := analyze
	analyze = func(*lua.LFunction, int) kwflow.Use { return kwflow.Use{} }
	want := run(body)
	analyze = saved
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: results differ from fresh tables (-fresh +reused):\n%s", body, diff)
	}
}

// A refilled table's string or number field that the callback never looks up keeps its
// old value when the call's differs: nothing can see it, and boxing the new one costs an
// allocation. A field it reads is always the call's.
func TestUnreadStringNotBoxed(t *testing.T) {
	p := loadPlugin(t, `function register(ctx)
 ctx.register_hook('x', function(kw) if kw.model ~= "m" then error("model") end end)
 ctx.register_hook('y', function(kw) return kw.model .. kw.user_message end)
end`, Options{})
	msgs := make([]map[string]any, 64)
	for i := range msgs {
		msgs[i] = map[string]any{"model": "m", "user_message": fmt.Sprintf("hello %d", i), "n": 5000 + i}
	}
	call := func(hook int, kw map[string]any) {
		if _, err := p.Call(context.Background(), hook, kw); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	varying := testing.AllocsPerRun(200, func() { call(0, msgs[i%64]); i++ })
	same := testing.AllocsPerRun(200, func() { call(0, msgs[0]) })
	if varying > same {
		t.Errorf("a call with unread fields that change allocates %.1f times, %.1f when they do not: they were boxed", varying, same)
	}
	for i, kw := range msgs[:4] {
		got, err := p.Call(context.Background(), 1, kw)
		if want := fmt.Sprintf("mhello %d", i); got != want || err != nil {
			t.Errorf("call %d: got %v, %v; want %q", i, got, err, want)
		}
	}
}

// Kwargs passed to a helper function the chunk declares stay refilled when the helper only
// reads them, and a callback can never tell: not when the helper reads fields the callback
// does not, returns a table in them, keeps them, or is replaced (even for one call, and put
// back) by a function that keeps them.
func TestKwargsThroughHelpers(t *testing.T) {
	const helpers = `
local function check(t) return t.tool_name end
local function command(t) return t.args.command end
local function args(t) return t.args end
local function keep(t) kept = t end
local helper = check
local function swap() helper = keep end
local function back() helper = check end
`
	show := `if kept then return {tool_name = kept.tool_name, command = kept.command or kept.args.command} end
`
	for _, tt := range []struct {
		body     string
		refilled bool
		want     []any
	}{
		{"return check(kw)", true, []any{"one", "two", "three"}},
		{"return command(kw)", true, []any{"ls", "rm", "pwd"}},
		{show + "kept = args(kw)", true, []any{nil, map[string]any{"command": "ls"}, map[string]any{"command": "ls"}}},
		{show + "keep(kw)", false, []any{nil, map[string]any{"tool_name": "one", "command": "ls"}, map[string]any{"tool_name": "one", "command": "ls"}}},
		{show + "swap(); helper(kw); back()", true, []any{nil, map[string]any{"tool_name": "one", "command": "ls"}, map[string]any{"tool_name": "one", "command": "ls"}}},
	} {
		run := func() ([]any, *Plugin) {
			p := loadPlugin(t, helpers+"function register(ctx)\n  ctx.register_hook('x', function(kw)\n"+tt.body+"\n  end)\nend\n", Options{})
			var out []any
			for i, c := range []string{"one", "two", "three"} {
				var kw any = map[string]any{"tool_name": c, "args": map[string]any{"command": []string{"ls", "rm", "pwd"}[i]}}
				if i == 1 {
					kw = pairsTable{{"tool_name", c}, {"args", map[string]any{"command": "rm"}}}
				}
				v, err := p.Call(context.Background(), 0, kw)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, v)
			}
			return out, p
		}
		got, p := run()
		if fresh := p.Registrations()[0].FreshKwargs; (fresh == "") != tt.refilled {
			t.Errorf("%s: refilled = %v, want %v (%s)", tt.body, fresh == "", tt.refilled, fresh)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.body, diff)
		}
		sameAsFresh(t, tt.body, func(string) []any { out, _ := run(); return out })
	}
}
