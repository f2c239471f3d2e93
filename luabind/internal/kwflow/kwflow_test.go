package kwflow

import (
	"fmt"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// callback compiles `return function(<params>) <body> end` and returns the inner function.
func callback(t *testing.T, params, body string) *lua.FunctionProto {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader("return function("+params+")\n"+body+"\nend\n"), "t.lua")
	if err != nil {
		t.Fatal(err)
	}
	p, err := lua.Compile(chunk, "t.lua")
	if err != nil {
		t.Fatal(err)
	}
	return p.FunctionPrototypes[0]
}

func abc(op, a, b, c int) uint32 { return uint32(op)<<26 | uint32(a)<<18 | uint32(c)<<9 | uint32(b) }
func asbx(op, a, sbx int) uint32 { return uint32(op)<<26 | uint32(a)<<18 | uint32(sbx+(1<<18-1)>>1) }

// Bytecode the compiler never emits is refused rather than guessed at.
func TestMalformedBytecodeIsRefused(t *testing.T) {
	ret := abc(lua.OP_RETURN, 0, 1, 0)
	child := &lua.FunctionProto{NumUpvalues: 1}
	for name, code := range map[string][]uint32{
		"unknown opcode":                            {abc(lua.OP_NOP+1, 0, 0, 0), ret},
		"jump past the end":                         {asbx(lua.OP_JMP, 0, 5), ret},
		"jump before the start":                     {asbx(lua.OP_JMP, 0, -3), ret},
		"falling off the end":                       {abc(lua.OP_MOVE, 1, 0, 0)},
		"jump into a closure's upvalues":            {asbx(lua.OP_JMP, 0, 1), abc(lua.OP_CLOSURE, 1, 0, 0), abc(lua.OP_MOVE, 0, 0, 0), ret},
		"closure upvalue neither MOVE nor GETUPVAL": {abc(lua.OP_CLOSURE, 1, 0, 0), abc(lua.OP_LOADK, 0, 0, 0), ret},
		"closure of a missing prototype":            {abc(lua.OP_CLOSURE, 1, 0, 5), ret},
		"closure upvalues past the end":             {ret, abc(lua.OP_CLOSURE, 1, 0, 0)},
		"MOVEN followed by no MOVE":                 {abc(lua.OP_MOVEN, 1, 0, 1), abc(lua.OP_LOADK, 2, 0, 0), ret},
		"TFORLOOP followed by no JMP":               {abc(lua.OP_TFORLOOP, 1, 0, 1), ret, ret},
		"SETLIST's count past the end":              {abc(lua.OP_NEWTABLE, 1, 0, 0), abc(lua.OP_SETLIST, 1, 1, 0)},
		"jump into SETLIST's count":                 {asbx(lua.OP_JMP, 0, 2), abc(lua.OP_NEWTABLE, 1, 0, 0), abc(lua.OP_SETLIST, 1, 1, 0), 1, ret},
		"register out of range":                     {abc(lua.OP_MOVE, 1, 300, 0), ret},
		"LOADBOOL skipping past the end":            {abc(lua.OP_LOADBOOL, 1, 1, 1), ret},
		"closure capturing out of range":            {abc(lua.OP_CLOSURE, 1, 0, 0), abc(lua.OP_MOVE, 0, 300, 0), ret},
	} {
		p := &lua.FunctionProto{NumParameters: 1, NumUsedRegisters: 3, Code: code,
			FunctionPrototypes: []*lua.FunctionProto{child}, Constants: []lua.LValue{lua.LString("k")}}
		if got := Analyze(p, 0); got.ReadOnly || got.Why != "the callback's bytecode could not be analysed" {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

// The registers closures capture are collected before the flow is followed: whatever enters
// one, at any point, is reachable by a closure.
func TestCapturedRegisters(t *testing.T) {
	for _, tt := range []struct {
		body, why string
	}{
		{"local a\nlocal f = function() return a end\nif kw.x then a = kw end",
			"line 4: kw is captured by a closure (the closure at line 3 captures a)"},
		{"local a\nwhile true do\n  if a then return a.x end\n  a = kw\n  local f = function() return a end\nend",
			"line 5: kw is captured by a closure (the closure at line 6 captures a)"},
		{"local a, b\nlocal f = function() return b end\nfor i = 1, 2 do b = a; a = kw.args end", // on the second turn
			"line 4: kw.args is captured by a closure (the closure at line 3 captures b)"},
		{"local a = kw\nlocal f = function() return a end",
			"line 2: kw is captured by a closure (the closure at line 3 captures a)"},
		{"local a = kw.x and kw\nlocal f = function() return a end", // the first reason, by instruction
			"line 2: kw.x is captured by a closure (the closure at line 3 captures a)"},
		{"local function f() return f end\nlocal g = f\ng = kw\nf = g",
			"line 5: kw is captured by a closure (the closure at line 2 captures f)"},
		{"local t = {}\nlocal f = function() return t end\nt = kw.args or t",
			"line 4: kw.args is captured by a closure (the closure at line 3 captures t)"},
		{"local a = kw.args\nreturn coroutine.wrap(function() return a end)",
			"line 2: kw.args is captured by a closure (the closure at line 3 captures a)"},
		{"local f = function() return kw end", "line 2: kw is captured by a closure"},
	} {
		if got := Analyze(callback(t, "kw", tt.body), 0); got.ReadOnly || got.Why != tt.why {
			t.Errorf("%s:\n got %+v\nwant why %q", tt.body, got, tt.why)
		}
	}
	// Closures that capture nothing of the table leave it read-only.
	for _, body := range []string{
		"local n = 0\nlocal f = function() n = n + 1 end\nf()\nreturn kw.args.x",
		"local function helper(s) return s .. '!' end\nreturn helper(kw.tool_name)",
		"local s = kw.tool_name\nlocal f = function() return s end\nreturn f()", // a string, not a table: still kw.tool_name
	} {
		got := Analyze(callback(t, "kw", body), 0)
		if strings.Contains(body, "local s = kw.tool_name") {
			if got.ReadOnly || got.Why != "line 2: kw.tool_name is captured by a closure (the closure at line 3 captures s)" {
				t.Errorf("%s: %+v", body, got) // fields are not told apart by type: any captured field counts
			}
			continue
		}
		if !got.ReadOnly {
			t.Errorf("%s: not read-only: %s", body, got.Why)
		}
	}
}

// A gateway handler's table is its second parameter; the first is not tracked.
func TestSecondParameter(t *testing.T) {
	p := callback(t, "event, ctx", "last_event = event\nlocal u = ctx.user\nif u then return u.id end")
	if got := Analyze(p, 1); !got.ReadOnly || got.Refill("user") != true {
		t.Errorf("handle reading ctx: %+v", got)
	}
	p = callback(t, "event, ctx", "local f = function() return ctx end\nreturn event == 'x'")
	if got := Analyze(p, 1); got.ReadOnly || got.Why != "line 2: ctx is captured by a closure" {
		t.Errorf("handle whose closure captures ctx: %+v", got)
	}
	if got := Analyze(p, 0); !got.ReadOnly {
		t.Errorf("event is not captured: %+v", got)
	}
	if got := Analyze(callback(t, "event", "return event"), 1); !got.ReadOnly {
		t.Errorf("a function without the parameter cannot see the table: %+v", got)
	}
	if got := Analyze(callback(t, "event, ...", "return ..."), 1); got.ReadOnly {
		t.Errorf("a function that takes the table through ...: %+v", got)
	}
}

func TestRefill(t *testing.T) {
	for _, tt := range []struct {
		use  Use
		want map[string]bool
	}{
		{Use{}, map[string]bool{"args": false}},
		{Use{ReadOnly: true}, map[string]bool{"args": true, "x": true}},
		{Use{ReadOnly: true, Escaping: []string{"args"}}, map[string]bool{"args": false, "x": true}},
		{Use{ReadOnly: true, AnyField: true}, map[string]bool{"args": false, "x": false}},
	} {
		for key, want := range tt.want {
			if got := tt.use.Refill(key); got != want {
				t.Errorf("%+v.Refill(%q) = %v, want %v", tt.use, key, got, want)
			}
		}
	}
}

// A field the callback never looks up is one it cannot see: the engine may leave it
// unconverted. Any way of reaching it (a constant key, a run-time key, the table passed on)
// counts as seeing it.
func TestUnread(t *testing.T) {
	const key = "conversation_history"
	many := manyConstants()
	for _, tt := range []struct {
		body   string
		unread bool
	}{
		{"return {context = kw.sender_id .. ' on ' .. kw.model}", true},
		{"if kw.user_message == '' then return 'empty' end", true},
		{"return 'constant'", true},
		{"return #kw > 0", true}, // the length of kw is its array part: no key of the call
		{"if kw.is_first_turn then return end\nreturn #kw.conversation_history", false},
		{"local h = kw.conversation_history\nreturn nil", false},
		{"return kw['conversation_history'][1].content", false},
		{"local k = 'conversation_history'\nreturn kw[k]", false},
		{"return kw[1]", false},
		{"return check(kw)", false},
		{"return json.encode(kw)", false},
		{"for k, v in pairs(kw) do end", false},
		{"return rawget(kw, 'conversation_history')", false},
		{"local f = function() return kw.model end\nreturn f()", false},
		{many + "return kw.model", false},
	} {
		u := Analyze(callback(t, "kw", tt.body), 0)
		if got := u.Unread(key); got != tt.unread {
			t.Errorf("%s:\n Unread(%q) = %v, want %v (%+v)", tt.body, key, got, tt.unread, u)
		}
		if u.Unread("model") && strings.Contains(tt.body, "kw.model") {
			t.Errorf("%s: kw.model is read, Unread says it is not (%+v)", tt.body, u)
		}
	}
	if got := Analyze(callback(t, "event", "return event"), 1); !got.Unread(key) {
		t.Errorf("a function without the parameter cannot see its fields: %+v", got)
	}
}

// A field of a field is unread when the function looks up the outer field only to read
// other fields of it: kw.request.system leaves kw.request.messages unread, and anything
// that could let the inner table be seen whole (passing it on, a key known only at run
// time, a closure, a helper function) leaves nothing unread in it.
func TestUnreadInner(t *testing.T) {
	many := manyConstants()
	for _, tt := range []struct {
		body   string
		unread bool
	}{
		{"return {request = {system = kw.request.system .. '!'}}", true},
		{"local r = kw.request\nif r.model == 'x' and #r.system > 0 then return 1 end", true},
		{"if kw.request then return kw.request.params.temperature end", true},
		{"return #kw.request", true}, // the length of a keyed table: no key of it
		{"return kw.request.messages[1]", false},
		{"for _, m in ipairs(kw.request.messages) do end", false},
		{"local k = 'messages'\nreturn kw.request[k]", false},
		{"local r = kw.request\nreturn r['messages']", false},
		{"return json.encode(kw.request)", false},
		{"for k, v in pairs(kw.request) do end", false},
		{"return kw.request", false},
		{"local r = kw.request\nreturn function() return r.system end", false},
		{"local f = 'request'\nreturn kw[f].system", false},
		{"local t = kw.request or kw.other\nreturn t.messages", false},
		{"return kw.request:len()", false},
		{many + "return kw.request.system", false},
	} {
		u := Analyze(callback(t, "kw", tt.body), 0)
		if got := u.Field("request").Unread("messages"); got != tt.unread {
			t.Errorf("%s:\n Field(request).Unread(messages) = %v, want %v (%+v)", tt.body, got, tt.unread, u)
		}
		if strings.Contains(tt.body, "kw.request.system") && u.Field("request").Unread("system") {
			t.Errorf("%s: kw.request.system is read, Unread says it is not (%+v)", tt.body, u)
		}
		if f := u.Field("request"); f.Refill("messages") || f.Refill("params") {
			t.Errorf("%s: a table read out of kw.request may leave the call, yet Refill says it is refilled (%+v)", tt.body, f)
		}
	}
	// A helper the table is passed to is followed, but what it reads of a field is not.
	fn, _ := loaded(t, "local function helper(kw) return kw.request.messages end\nCB = function(kw) return helper(kw) end")
	if u := AnalyzeFunc(fn, 0); u.Field("request").Unread("messages") {
		t.Errorf("behind a helper: Field(request).Unread(messages) is true (%+v)", u)
	}
}

// manyConstants is Lua code declaring more string constants than the keys the analysis
// tracks one by one.
func manyConstants() string {
	var b strings.Builder
	for i := range 70 {
		fmt.Fprintf(&b, "local s%d = 'c%d'\n", i, i)
	}
	return b.String()
}
