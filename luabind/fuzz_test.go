package luabind

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/luabind/internal/kwflow"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// fuzzKwargs is what every fuzzed callback receives.
var fuzzKwargs = map[string]any{
	"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /", "n": 3}, "list": []any{1, "two", 3.5, nil},
	"empty": map[string]any{}, "flag": true,
}

// FuzzToGo runs a fuzzed Lua expression as a plugin callback's return value and checks that
// whatever comes back converts to Go without a panic, into a value JSON can encode.
func FuzzToGo(f *testing.F) {
	for _, expr := range []string{
		"nil", "1", "-0", "2^53", "2^63", "1/0", "-1/0", "0/0", "math.huge", "1.5", `"s\0\255"`, "true",
		"{}", "{1, 2, 3}", "{1, nil, 3}", "{[1]=1, [3]=3}", "{[0]=0}", "{[1.5]=1}", "{a={b={c={}}}}",
		"{[true]=1}", "{print}", "print", "coroutine.create(print)", "json.null", "{json.null}",
		"json.array()", "json.array({})", "kw", "kw.args", "kw.list", "(function() local t = {} t.t = t return t end)()",
		"(function() local t = {} for i = 1, 100 do t = {t} end return t end)()",
		"setmetatable({}, {__index = function() error('x') end})", "string.rep('x', 100)",
		"error('boom')", "error({code = 1})", "error()", "(function() while true do end end)()",
		"(function() local function f() return f() + 1 end return f() end)()", `{["1"]=1, [1]=2}`, "{[1/0]=1}",
		"{[-1/0]=1}", "{[2^63]=1}", "1 end) end function register(ctx) ctx.register_hook('y', print) end --",
		"require('re').match('a', 'a')", "require('time').now()", "os.time()", "hermes", "ctx",
	} {
		f.Add(expr)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		src := "local json = require('json')\nfunction register(ctx)\n  ctx.register_hook('x', function(kw)\n    return " +
			expr + "\n  end)\nend\n"
		ctx := context.Background()
		p, err := LoadPlugin(ctx, []byte(src), Options{File: "fuzz/handler.lua", Timeout: 200 * time.Millisecond})
		if err != nil {
			checkLuaError(t, err)
			return
		}
		defer p.Close()
		for i := range p.Registrations() {
			v, err := p.Call(ctx, i, fuzzKwargs)
			if err != nil {
				checkLuaError(t, err)
				if v != nil {
					t.Fatalf("Call returned %v with the error %v", v, err)
				}
				continue
			}
			checkGoValue(t, v, 0)
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("json.Marshal of the converted value %#v: %v", v, err)
			}
		}
	})
}

// checkLuaError fails unless err is a *Error with a message.
func checkLuaError(t *testing.T, err error) {
	t.Helper()
	var le *Error
	if !errors.As(err, &le) || le.Error() == "" {
		t.Fatalf("error %v (%T) is not a *luabind.Error with a message", err, err)
	}
}

// checkGoValue fails unless v only holds the types toGo documents.
func checkGoValue(t *testing.T, v any, depth int) {
	t.Helper()
	if depth > stdlib.MaxConvertDepth+1 {
		t.Fatalf("converted value nested deeper than %d", stdlib.MaxConvertDepth)
	}
	switch x := v.(type) {
	case nil, bool, string, int64:
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			t.Fatalf("integral number %v converted to float64, want int64", x)
		}
	case []any:
		for _, e := range x {
			checkGoValue(t, e, depth+1)
		}
	case map[string]any:
		for _, e := range x {
			checkGoValue(t, e, depth+1)
		}
	default:
		t.Fatalf("converted value %#v has type %T, not one toGo documents", v, v)
	}
}

const jsonRoundTrip = `
local json = require("json")
function register(ctx)
  ctx.register_hook("x", function(kw)
    local ok, v = pcall(json.decode, kw.text)
    if not ok then return {decoded = false, err = tostring(v)} end
    local ok2, s = pcall(json.encode, v)
    if not ok2 then return {decoded = true, encoded = false, err = tostring(s)} end
    local v2 = json.decode(s)
    return {decoded = true, encoded = true, s = s, s2 = json.encode(v2)}
  end)
end
`

// FuzzJSONModule decodes fuzzed text with json.decode inside Lua and encodes it back: the
// Lua decoder accepts exactly what Go's accepts, and encoding what it decoded gives the
// same JSON value and is stable.
func FuzzJSONModule(f *testing.F) {
	for _, s := range []string{
		"", "null", "0", "-0", "1e400", "-1e400", "12345678901234567890", "0.1", "1E2", `"a\u0000b\ud800"`,
		"[]", "{}", "[[]]", `[{}]`, `{"a": []}`, `[1, null, 3]`, `{"a": null}`, `{"1": 1, "2": 2}`,
		`{"a": 1, "a": 2}`, `[1, 2] [3]`, `{"a": 1} x`, "[", `{"a"}`, "\xff", `"\xff"`, " true ",
		`{"__jsontype": "array"}`, strings.Repeat("[", 70) + strings.Repeat("]", 70), `{"<&>": "<&>"}`,
	} {
		f.Add(s)
	}
	p, err := LoadPlugin(context.Background(), []byte(jsonRoundTrip), Options{File: "fuzz/json.lua", Timeout: 2 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, text string) {
		v, err := p.Call(context.Background(), 0, map[string]any{"text": text})
		if err != nil {
			t.Fatalf("round trip failed outside pcall: %v", err)
		}
		got := v.(map[string]any)
		var want any
		goErr := json.Unmarshal([]byte(text), &want)
		if decoded, _ := got["decoded"].(bool); decoded != (goErr == nil) {
			t.Fatalf("json.decode(%q): decoded %v (%v), Go's json.Unmarshal error %v", text, decoded, got["err"], goErr)
		}
		if goErr != nil {
			return
		}
		if encoded, _ := got["encoded"].(bool); !encoded {
			msg, _ := got["err"].(string)
			if !strings.Contains(msg, "nested deeper") && !strings.Contains(msg, "cannot encode") {
				t.Fatalf("json.encode(json.decode(%q)) failed: %s", text, msg)
			}
			return
		}
		s, s2 := got["s"].(string), got["s2"].(string)
		if s != s2 {
			t.Fatalf("encoding is not stable: %q then %q", s, s2)
		}
		var back any
		if err := json.Unmarshal([]byte(s), &back); err != nil {
			t.Fatalf("json.encode produced invalid JSON %q: %v", s, err)
		}
		// cmp.Diff takes exponential time on deeply nested equal arrays: diff only what differs.
		if !reflect.DeepEqual(want, back) {
			t.Fatalf("round trip of %q through Lua changed the value (-want +got):\n%s", text, cmp.Diff(want, back))
		}
	})
}

var hexAddr = regexp.MustCompile(`0x[0-9a-f]+`)

// fuzzStmts are what FuzzKwargsReuse builds callback bodies from, one statement per byte of
// its program: closures and local helpers that capture the locals a and b before or after
// they hold kw or one of its tables, nested functions reading upvalues, coroutines, and
// tables and closures kept in globals, which the next call looks at first (fuzzPrologue).
var fuzzStmts = []string{
	"a = kw", "a = kw.args", "b = kw.args", "b = kw.args and kw.args.nested", "a, b = b, a",
	"if kw.flag then a = kw.args end", "for i = 1, 3 do if i == 2 then b = kw end end",
	"while b == nil and a ~= nil do b = a end",
	"f = function() return a end", "g = function() K2 = b end", "local function h() return b end; F2 = h",
	"f = function() return function() return a end end", "g = function() local x = a; return function() K1 = x end end",
	"if f then K1 = f() end", "if g then local r = g(); if r then r() end end", "F1 = f", "F2 = g",
	"K1 = a", "K2 = {b}", "K1 = kw.args", "a = {kw.args}",
	"CO = coroutine.wrap(function() local x = a; coroutine.yield(show(x)); return show(x) end); out[#out + 1] = CO()",
	"local th = coroutine.create(function(x) coroutine.yield(); K2 = x end); coroutine.resume(th, b); TH = th",
	"TH = coroutine.create(function() coroutine.yield(); K1 = a end); coroutine.resume(TH)",
	"out[#out + 1] = show(coroutine.wrap(function() return a end)())",
	"do local c = kw.args; F2 = function() return c end end",
	"do local c; F1 = function() return c end; c = kw end",
	"local k = 'args'; a = kw[k]", "local k = 'args'; local v = kw[k]; F1 = function() return v end",
	"out[#out + 1] = show(a) .. show(b)", "out[#out + 1] = show(f and f())",
	"if type(b) == 'table' then b.extra = kw.tool_name end",
	"a = nil; b = nil",
	"local function id(t) return t end; K1 = id(a)",
	"if kw.tool_name == 'terminal' and string.find(kw.args.command or '', 'rm -rf /', 1, true) then out[#out + 1] = 'blocked' end",
	"local d = kw.args; local function bad() return string.find(d.command or '', 'rm', 1, true) end; out[#out + 1] = tostring(bad())",
	"local e; local function seen() return e and e.tool_name end; e = kw; out[#out + 1] = tostring(seen())",
	"out[#out + 1] = tostring(kw.task_id) .. tostring(kw.args.n) .. tostring(kw.empty and kw.empty.x)",
	"for i = 1, 2 do local t = kw.args; F1 = function() return t end end",
	"repeat local t = kw; F2 = function() return t end until true",
	"local ok, e = pcall(error, a); K1 = e",
	"local co = coroutine.create(function(x) while true do x = coroutine.yield(x) end end); coroutine.resume(co, a); TH = co",
	"if F1 then local r = F1(); out[#out + 1] = tostring(r == kw.args) .. tostring(r == kw) end",
	"out[#out + 1] = tostring(h_read(kw))", "h_keep(kw)", "a = h_args(kw)", "out[#out + 1] = tostring(h_nested(kw))",
	"b = h_give(kw)", "out[#out + 1] = tostring(helper(kw))", "h_swap(); helper(kw); h_back()", "h_swap()", "h_back()",
	"out[#out + 1] = tostring(h_count(kw))",
}

// fuzzHelpers are the chunk's local functions the statements pass kw to, which the analysis
// follows into: some only read it, some keep it, and helper can be replaced.
const fuzzHelpers = `local function h_read(t) return t.tool_name end
local function h_keep(t) K1 = t end
local function h_args(t) return t.args end
local function h_nested(t) return h_read(t) end
local function h_give(t) return t end
local function h_count(t) return tostring(t.task_id) .. tostring(t.args and t.args.n) .. tostring(t.empty and t.empty.x) end
local helper = h_read
local function h_swap() helper = h_keep end
local function h_back() helper = h_read end
`

// fuzzPrologue starts every generated body: it shows what the previous calls kept.
const fuzzPrologue = `local out = {}
out[#out + 1] = show(K1) .. show(K2)
out[#out + 1] = tostring(K1 == kw) .. tostring(K1 == kw.args) .. tostring(K2 == kw.args)
if type(F1) == "function" then out[#out + 1] = show(F1()) end
if type(F2) == "function" then local ok, v = pcall(F2); out[#out + 1] = tostring(ok) .. show(v) end
if CO then local ok, v = pcall(CO); out[#out + 1] = tostring(ok) .. show(v) end
if TH then out[#out + 1] = tostring(coroutine.resume(TH)) .. show(K1) .. show(K2) end
`

// fuzzShow is the chunk's function show, which describes a value without calling into it.
const fuzzShow = `function show(v)
  if type(v) ~= "table" then return tostring(v) end
  local args = rawget(v, "args")
  if type(args) == "table" then args = rawget(args, "command") end
  return "{" .. tostring(rawget(v, "tool_name")) .. "," .. tostring(rawget(v, "command")) .. "," ..
    tostring(rawget(v, "extra")) .. "," .. tostring(args) .. "," .. tostring(rawget(v, "x")) .. "}"
end
`

// fuzzProgram is the program of the given statements of fuzzStmts, run as a plugin callback.
func fuzzProgram(stmts ...string) []byte {
	prog := []byte{0}
	for _, s := range stmts {
		i := slices.Index(fuzzStmts, s)
		if i < 0 {
			panic("not in fuzzStmts: " + s)
		}
		prog = append(prog, byte(i))
	}
	return prog
}

// FuzzKwargsReuse runs a callback over a series of calls twice: as loaded, and with the
// analysis switched off (new tables every call). Its body is a fuzzed program of fuzzStmts
// (prog: the first byte chooses between a plugin callback and a gateway handler, each next
// one a statement) followed, for plugins, by a fuzzed Lua body. The analysis must not panic
// on any bytecode, and a callback whose kwargs are refilled must not be able to tell: not
// from what it returns, nor from what the tables and closures it kept show later.
func FuzzKwargsReuse(f *testing.F) {
	for _, body := range []string{
		`return kw.args.command`, `local r = prev and prev.tool_name; prev = kw; return r`,
		`local r = prev and prev.command; prev = kw.args; return r`, `kw.x = 1`, `return #kw.args`,
		`local a = kw.args; for i = 1, 3 do if a[i] then return i end end`, `return kw[kw.tool_name]`,
		`local r = p == kw.args; p = kw.args; return r`, `while kw.flag do kw = kw.args end; return kw`,
		`local t = {kw.tool_name, kw.args.command}; table.sort(t); return t`,
		`local f = function() return kw end; return f().tool_name`, `return (kw.args or {}).n`,
		`local n = 0; repeat n = n + 1 until kw.args.n <= n; return n`, `return kw.empty == kw.empty`,
		"local r = keep and keep.command\nlocal a\nlocal function k() keep = a end\na = kw.args\nk()\nreturn r",
		"local r = getter and getter()\nlocal args = kw.args\ngetter = function() return args.command end\nreturn r",
		"local r = co and co()\nlocal a\nco = coroutine.wrap(function() coroutine.yield(); return a.command end)\nco()\na = kw.args\nreturn r",
	} {
		f.Add(body, []byte{})
	}
	for _, prog := range [][]byte{
		fuzzProgram("f = function() return a end", "a = kw.args", "F1 = f"),
		fuzzProgram("g = function() K2 = b end", "b = kw.args", "if g then local r = g(); if r then r() end end"),
		fuzzProgram("TH = coroutine.create(function() coroutine.yield(); K1 = a end); coroutine.resume(TH)", "a = kw.args"),
		fuzzProgram("CO = coroutine.wrap(function() local x = a; coroutine.yield(show(x)); return show(x) end); out[#out + 1] = CO()"),
		fuzzProgram("f = function() return function() return a end end", "for i = 1, 3 do if i == 2 then b = kw end end", "a, b = b, a", "F1 = f"),
		fuzzProgram("do local c; F1 = function() return c end; c = kw end"),
		fuzzProgram("local k = 'args'; local v = kw[k]; F1 = function() return v end"),
		fuzzProgram("local e; local function seen() return e and e.tool_name end; e = kw; out[#out + 1] = tostring(seen())",
			"out[#out + 1] = tostring(kw.task_id) .. tostring(kw.args.n) .. tostring(kw.empty and kw.empty.x)"),
		fuzzProgram("out[#out + 1] = tostring(h_read(kw))", "a = h_args(kw)", "out[#out + 1] = tostring(h_count(kw))"),
		fuzzProgram("h_swap(); helper(kw); h_back()", "out[#out + 1] = tostring(helper(kw))"),
		fuzzProgram("out[#out + 1] = tostring(h_nested(kw))", "h_swap()", "b = h_give(kw)", "K1 = a", "a, b = b, a", "K1 = a"),
		fuzzProgram("if kw.tool_name == 'terminal' and string.find(kw.args.command or '', 'rm -rf /', 1, true) then out[#out + 1] = 'blocked' end",
			"local d = kw.args; local function bad() return string.find(d.command or '', 'rm', 1, true) end; out[#out + 1] = tostring(bad())"),
	} {
		f.Add("", prog)
		handler := slices.Clone(prog)
		handler[0] = 1
		f.Add("", handler)
	}
	calls := []any{
		fuzzKwargs,
		map[string]any{"tool_name": "two", "args": map[string]any{"command": "ls", "n": 1, "nested": map[string]any{"x": "n2"}}, "flag": false},
		pairsTable{{"tool_name", "terminal"}, {"args", map[string]any{"command": "rm -rf / now", "nested": map[string]any{"x": "n3"}}},
			{"flag", true}, {"task_id", "t3"}},
		map[string]any{"tool_name": "args", "args": map[string]any{}, "empty": map[string]any{"x": 1}},
		pairsTable{{"args", map[string]any{"command": "five", "n": 5}}, {"tool_name", "five"}},
	}
	f.Fuzz(func(t *testing.T, body string, prog []byte) {
		if strings.Contains(body, "pairs") || strings.Contains(body, "next") {
			return // the order of a table's keys is not the same from one build to the next
		}
		if _, err := compile("fuzz.lua", []byte("return function(kw)\n"+body+"\nend")); err != nil {
			body = "" // keep the program
		}
		handler := len(prog) > 0 && prog[0]&1 == 1
		var gen strings.Builder
		if len(prog) > 0 {
			gen.WriteString(fuzzPrologue + "do\nlocal a, b, f, g\n")
			for _, c := range prog[1:min(len(prog), 41)] {
				gen.WriteString(fuzzStmts[int(c)%len(fuzzStmts)] + "\n")
			}
			gen.WriteString("end\nOUT = table.concat(out, ';')\n")
		}
		src := fuzzShow + fuzzHelpers + "seen = {}\nfunction register(ctx)\n  ctx.register_hook('x', function(kw)\n" + gen.String() + body +
			"\n  end)\n  ctx.register_hook('y', function() return OUT end)\nend\n"
		if handler {
			src = fuzzShow + fuzzHelpers + "function handle(event, kw)\n" + gen.String() + "return OUT\nend\n"
		}
		if proto, err := compile("fuzz.lua", []byte(src)); err == nil {
			var walk func(p *lua.FunctionProto)
			walk = func(p *lua.FunctionProto) {
				for i := range int(p.NumParameters) + 1 {
					kwflow.Analyze(p, i)
				}
				for _, c := range p.FunctionPrototypes {
					walk(c)
				}
			}
			walk(proto)
		}
		run := func() []any {
			opts := Options{File: "fuzz/handler.lua", Timeout: 200 * time.Millisecond}
			var call func(kw any) (any, error)
			if handler {
				h, err := LoadHandler(context.Background(), []byte(src), "handle", opts)
				if err != nil {
					return nil
				}
				defer h.Close()
				call = func(kw any) (any, error) { return h.Call(context.Background(), "agent:step", kw) }
			} else {
				p, err := LoadPlugin(context.Background(), []byte(src), opts)
				if err != nil {
					return nil
				}
				defer p.Close()
				call = func(kw any) (any, error) {
					v, err := p.Call(context.Background(), 0, kw)
					if err == nil || !isTimeout(err) {
						var kept any
						kept, err = p.Call(context.Background(), 1, nil)
						v = []any{v, kept, errString(err)}
					}
					return v, err
				}
			}
			var out []any
			for _, kw := range calls {
				v, err := call(kw)
				if isTimeout(err) {
					return nil // may time out in one run and not the other
				}
				if err != nil {
					v = err.Error()
				}
				out = append(out, v)
			}
			// Addresses ("table: 0x...") differ from run to run whatever the tables.
			b, _ := json.Marshal(out)
			return []any{hexAddr.ReplaceAllString(string(b), "0x")}
		}
		got := run()
		saved := analyze
		analyze = func(*lua.LFunction, int) kwflow.Use { return kwflow.Use{} }
		want, again := run(), run()
		analyze = saved
		if got != nil && want != nil && cmp.Equal(want, again) { // a body may not be deterministic (os.clock)
			if !cmp.Equal(want, got) {
				got = run() // a second chance for a body whose timing shows (memory limit)
			}
			if diff := cmp.Diff(want, got); got != nil && diff != "" {
				t.Fatalf("refilled kwargs told apart (-fresh +refilled):\n%s\n%s", diff, src)
			}
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
