package luabind

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// guardShapes are pre_tool_call guards that block `rm -rf /` through a closure, a helper or a
// coroutine that reads kw or kw.args. Each must see the whole call, every call, however the
// closure came to hold the table. why is the analysis' reason for building the tables afresh,
// with the lines of the body as callbackProto numbers them (its first line is line 3).
var guardShapes = []struct {
	name, body, why string
}{
	{"helper declared before the local is assigned", `
local args
local function bad() return string.find(args.command or "", "rm -rf /", 1, true) end
args = kw.args
if kw.tool_name == "terminal" and bad() then return {action = "block", message = "no"} end`,
		"line 6: kw.args is captured by a closure (the closure at line 5 captures args)"},
	{"helper declared after the local is assigned", `
local args = kw.args
local function bad() return string.find(args.command or "", "rm -rf /", 1, true) end
if kw.tool_name == "terminal" and bad() then return {action = "block", message = "no"} end`,
		"line 4: kw.args is captured by a closure (the closure at line 5 captures args)"},
	{"helper reading kw through an upvalue", `
local function bad() return kw.tool_name == "terminal" and string.find(kw.args.command or "", "rm -rf /", 1, true) end
if bad() then return {action = "block", message = "no"} end`,
		"line 4: kw is captured by a closure"},
	{"coroutine.wrap body reading kw", `
local check = coroutine.wrap(function()
  coroutine.yield(kw.tool_name == "terminal" and string.find(kw.args.command or "", "rm -rf /", 1, true))
end)
if check() then return {action = "block", message = "no"} end`,
		"line 4: kw is captured by a closure"},
	{"coroutine.create body reading a captured local", `
local args
local co = coroutine.create(function() return string.find(args.command or "", "rm -rf /", 1, true) end)
args = kw.args
local _, found = coroutine.resume(co)
if kw.tool_name == "terminal" and found then return {action = "block", message = "no"} end`,
		"line 6: kw.args is captured by a closure (the closure at line 5 captures args)"},
	{"captured local assigned kw.args in a branch", `
local args = {}
local function bad() return string.find(args.command or "", "rm -rf /", 1, true) end
if kw.tool_name == "terminal" then args = kw.args end
if bad() then return {action = "block", message = "no"} end`,
		"line 6: kw.args is captured by a closure (the closure at line 5 captures args)"},
	{"loop assigning kw to a captured local on its second iteration", `
local cur
local function bad()
  return cur ~= nil and cur.tool_name == "terminal" and string.find(cur.args.command or "", "rm -rf /", 1, true)
end
for i = 1, 3 do
  if i == 2 then cur = kw end
  if bad() then return {action = "block", message = "no"} end
end`,
		"line 9: kw is captured by a closure (the closure at line 5 captures cur)"},
	{"closure returning a local holding kw.args", `
local a = kw.args
local f = function() return a end
if kw.tool_name == "terminal" and string.find(f().command or "", "rm -rf /", 1, true) then
  return {action = "block", message = "no"}
end`,
		"line 4: kw.args is captured by a closure (the closure at line 5 captures a)"},
	{"closure kept in a global and called on the next call", `
local before = pending and pending()
local args = kw.args
pending = function() return string.find(args.command or "", "rm -rf /", 1, true) end
if kw.tool_name == "terminal" and pending() then return {action = "block", message = "no"} end`,
		"line 5: kw.args is captured by a closure (the closure at line 6 captures args)"},
	{"nested closure reading kw through two upvalues", `
local function outer() return function() return kw.args.command end end
if kw.tool_name == "terminal" and string.find(outer()() or "", "rm -rf /", 1, true) then
  return {action = "block", message = "no"}
end`,
		"line 4: kw is captured by a closure"},
}

// guardCalls are the calls every guard shape sees, in order, and whether each is blocked.
var guardCalls = []struct {
	kwargs  any
	blocked bool
}{
	{map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"}}, true},
	{map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls -la"}, "task_id": "t"}, false},
	{map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "sudo rm -rf / --no-preserve-root", "cwd": "/"}}, true},
	{pairsTable{{"tool_name", "terminal"}, {"args", map[string]any{"command": "echo hi"}}, {"session_id", "s"}}, false},
	{pairsTable{{"task_id", "t"}, {"args", map[string]any{"command": "cd / && rm -rf /"}}, {"tool_name", "terminal"}}, true},
	{map[string]any{"tool_name": "read_file", "args": map[string]any{"command": "rm -rf /"}}, false},
	{pairsTable{{"tool_name", "terminal"}, {"args", map[string]any{"command": "rm -rf /", "timeout": 3}}}, true},
}

// TestGuardSeesEveryKey runs each guard shape as a plugin over a series of calls: it must
// block every dangerous one, however many calls came before, and the engine must say why
// its kwargs are built afresh.
func TestGuardSeesEveryKey(t *testing.T) {
	for _, sh := range guardShapes {
		t.Run(sh.name, func(t *testing.T) {
			p := loadPlugin(t, "function register(ctx)\n  ctx.register_hook('pre_tool_call', function(kw)\n"+
				sh.body+"\n  end)\nend\n", Options{})
			if p.Registrations()[0].FreshKwargs == "" {
				t.Error("the callback's kwargs are refilled")
			}
			for i, c := range guardCalls {
				got, err := p.Call(context.Background(), 0, c.kwargs)
				if err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
				if blocked := fmt.Sprint(got) == "map[action:block message:no]"; blocked != c.blocked {
					t.Errorf("call %d (%v): result %v, want blocked = %v", i+1, c.kwargs, got, c.blocked)
				}
			}
		})
	}
}

// A callback that only reads its kwargs, and so gets them refilled, still sees every key of
// every call: keys it reads only under a name computed at run time, or in one call only.
func TestRefilledTableHasEveryKey(t *testing.T) {
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook('x', function(kw)
    local names = {"tool_name", "task_id", "session_id", "tool_call_id", "extra"}
    local out = {}
    for i = 1, #names do out[i] = tostring(kw[names[i]]) end
    out[#out + 1] = tostring(kw.args.command) .. "/" .. tostring(kw.args[names[5]])
    return table.concat(out, ",")
  end)
end`, Options{})
	if p.s.pool.slots[0].st.kws[0] == nil {
		t.Fatal("the callback's kwargs are not refilled: this test would not test refilling")
	}
	for i, c := range []struct {
		kw   any
		want string
	}{
		{pairsTable{{"tool_name", "terminal"}, {"args", map[string]any{"command": "ls"}}, {"task_id", "t1"}}, "terminal,t1,nil,nil,nil,ls/nil"},
		{pairsTable{{"tool_name", "terminal"}, {"args", map[string]any{"command": "rm", "extra": 1}}, {"task_id", "t2"},
			{"session_id", "s"}, {"tool_call_id", "c"}}, "terminal,t2,s,c,nil,rm/1"},
		{map[string]any{"extra": true, "args": map[string]any{}}, "nil,nil,nil,nil,true,nil/nil"},
		{pairsTable{{"tool_call_id", "c3"}, {"args", map[string]any{"command": "x"}}}, "nil,nil,nil,c3,nil,x/nil"},
	} {
		got, err := p.Call(context.Background(), 0, c.kw)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("call %d: %v, want %v", i+1, got, c.want)
		}
	}
}

// keepShapes keep a table of their kwargs (kw.args, or for a gateway handler its context's
// user table, $T in the body) past the call, each its own way, and return what the table kept by the previous
// call holds now: it must be what that call received.
var keepShapes = []struct{ name, body string }{
	{"in a global", `local r = kept and kept.id; kept = $T; return r`},
	{"in an upvalue", `local r = up_kept and up_kept.id; up_kept = $T; return r`},
	{"in a table in a global", `local r = list[1] and list[#list].id; list[#list + 1] = $T; return r`},
	{"through a captured local assigned after the capture", `
local r = kept and kept.id
local a
local function keep() kept = a end
a = $T
keep()
return r`},
	{"through a captured local assigned before the capture", `
local r = kept and kept.id
local a = $T
local function keep() kept = a end
keep()
return r`},
	{"returned by a helper", `local r = kept and kept.id; local function pick(t) return t end; kept = pick($T); return r`},
	{"returned by a closure", `local r = kept and kept.id; kept = (function() return $T end)(); return r`},
	{"in a closure kept in a global", `local r = getter and getter().id; local a = $T; getter = function() return a end; return r`},
	{"in a suspended coroutine.wrap", `
local r = co and co()
co = coroutine.wrap(function() local a = $T; coroutine.yield(); return a.id end)
co()
return r`},
	{"in a suspended coroutine.create", `
local r = th and select(2, coroutine.resume(th))
th = coroutine.create(function(x) coroutine.yield(); return x.id end)
coroutine.resume(th, $T)
return r`},
	{"in a coroutine's upvalue", `
local r = th and select(2, coroutine.resume(th))
local a
th = coroutine.create(function() coroutine.yield(); return a.id end)
coroutine.resume(th)
a = $T
return r`},
}

// TestKeptTablesNeverChange checks, for plugins (kw.args) and gateway handlers (the user table
// of handle's second argument), that a table a callback keeps is never changed by a later
// call.
func TestKeptTablesNeverChange(t *testing.T) {
	const prelude = "list = {}\nlocal up_kept\n"
	ids := []string{"one", "two", "three", "four"}
	for _, sh := range keepShapes {
		want := []any{nil, "one", "two", "three"}
		t.Run("plugin "+sh.name, func(t *testing.T) {
			p := loadPlugin(t, prelude+"function register(ctx)\n  ctx.register_hook('x', function(kw)\n"+
				strings.ReplaceAll(sh.body, "$T", "kw.args")+"\n  end)\nend\n", Options{})
			var got []any
			for i, id := range ids {
				var kw any = map[string]any{"tool_name": "terminal", "args": map[string]any{"id": id, "n": i}}
				if i%2 == 1 {
					kw = pairsTable{{"tool_name", "terminal"}, {"args", map[string]any{"id": id, "n": i}}}
				}
				v, err := p.Call(context.Background(), 0, kw)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, v)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("kept args changed (-want +got):\n%s", diff)
			}
		})
		t.Run("handler "+sh.name, func(t *testing.T) {
			h, err := LoadHandler(context.Background(), []byte(prelude+"function handle(event, ctx)\n"+
				strings.ReplaceAll(sh.body, "$T", "ctx.user")+"\nend\n"), "handle", Options{File: "h.lua"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(h.Close)
			var got []any
			for _, id := range ids {
				v, err := h.Call(context.Background(), "agent:step", map[string]any{"platform": "p", "user": map[string]any{"id": id}})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, v)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("kept context.user changed (-want +got):\n%s", diff)
			}
		})
	}
}

// The shapes above, and the guards, give the same results with the analysis off.
func TestKeepShapesAgreeWithFreshTables(t *testing.T) {
	run := func(body string) []any {
		p := loadPlugin(t, "list = {}\nlocal up_kept\nfunction register(ctx)\n  ctx.register_hook('x', function(kw)\n"+
			body+"\n  end)\nend\n", Options{})
		var out []any
		for _, c := range guardCalls {
			v, err := p.Call(context.Background(), 0, c.kwargs)
			if err != nil {
				v = "error: " + err.Error()
			}
			out = append(out, v)
		}
		return out
	}
	var bodies []string
	for _, sh := range keepShapes {
		bodies = append(bodies, strings.ReplaceAll(strings.ReplaceAll(sh.body, "$T", "kw.args"), ".id", ".command"))
	}
	for _, sh := range guardShapes {
		bodies = append(bodies, sh.body)
	}
	for _, body := range bodies {
		sameAsFresh(t, body, run)
	}
}
