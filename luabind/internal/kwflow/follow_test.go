package kwflow

import (
	"slices"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// loaded runs chunk, which sets the global CB to a callback, in a new state and returns
// the callback and the state: the chunk has returned, so the upvalues it declared are
// closed, as a plugin's are once it is loaded.
func loaded(t *testing.T, chunk string) (*lua.LFunction, *lua.LState) {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	if err := L.DoString(chunk); err != nil {
		t.Fatal(err)
	}
	fn, ok := L.GetGlobal("CB").(*lua.LFunction)
	if !ok {
		t.Fatal("the chunk set no function CB")
	}
	return fn, L
}

// A table passed to a local function that only reads it stays read-only, and what that
// function reads or lets out counts as the caller's; any other use of it is an escape,
// with the reason found in the function called.
func TestFollowedCalls(t *testing.T) {
	const helpers = `
local function check(t) if t.tool_name == "terminal" then return t.args.command end end
local function keep(t) KEPT = t end
local function give(t) return t end
local function args(t) return t.args end
local function outer(t) return check(t) end
local function both(t, u) return t.tool_name, u.tool_name end
local function loop(t, n) if n > 0 then return loop(t, n - 1) end return t.x end
local function history(t) return #t.conversation_history end
local function late(t) return function() return t end end
`
	for _, tt := range []struct {
		body     string
		readOnly bool
		why      string   // a part of Why when not read-only
		reads    []string // fields Reads must name
		escaping []string // Escaping, exactly
		guards   int
	}{
		{body: "return check(kw)", readOnly: true, reads: []string{"tool_name", "args"}, guards: 1},
		{body: "if check(kw) then return {action = 'block'} end", readOnly: true, reads: []string{"tool_name"}, guards: 1},
		{body: "local c = check\nreturn c(kw)", readOnly: true, guards: 1},
		{body: "return outer(kw)", readOnly: true, reads: []string{"tool_name"}, guards: 2},
		{body: "return args(kw)", readOnly: true, reads: []string{"args"}, escaping: []string{"args"}, guards: 1},
		{body: "return history(kw)", readOnly: true, reads: []string{"conversation_history"}, guards: 1},
		{body: "return check(kw), check(kw)", readOnly: true, guards: 2},
		{body: "keep(kw)", why: "kw is passed to keep, where line 3: t is stored in a global"},
		{body: "return give(kw)", why: "kw is passed to give, where line 4: t is returned"},
		{body: "return late(kw)()", why: "kw is passed to late, where line 10: t is captured by a closure"},
		{body: "return both(kw, kw)", why: "kw is passed to a function"},
		{body: "return loop(kw, 10)", why: "too deep in calls to follow"},
		{body: "return CHECK(kw)", why: "kw is passed to a function"},
		{body: "local c = check\nif kw.x then c = keep end\nreturn c(kw)", why: "kw is passed to"},
		{body: "local c = check\nlocal function swap() c = keep end\nswap()\nreturn c(kw)", why: "kw is passed to a function"},
		{body: "return string.len(kw)", why: "kw is passed to a function"},
	} {
		fn, _ := loaded(t, helpers+"CHECK = check\nCB = function(kw)\n"+tt.body+"\nend\n")
		u := AnalyzeFunc(fn, 0)
		if u.ReadOnly != tt.readOnly || !tt.readOnly && !strings.Contains(u.Why, tt.why) {
			t.Errorf("%s:\n got %+v\n want read-only %v, why containing %q", tt.body, u, tt.readOnly, tt.why)
			continue
		}
		if !tt.readOnly {
			continue
		}
		for _, k := range tt.reads {
			if !slices.Contains(u.Reads, k) || u.Unread(k) {
				t.Errorf("%s: reads %v, want %q among them", tt.body, u.Reads, k)
			}
		}
		if u.Unread("unrelated") {
			t.Errorf("%s: a field no code looks up is unread, but the function followed may be replaced before it is called", tt.body)
		}
		if !slices.Equal(u.Escaping, tt.escaping) {
			t.Errorf("%s: escaping %v, want %v", tt.body, u.Escaping, tt.escaping)
		}
		if len(u.Guards) != tt.guards || !u.Holds() {
			t.Errorf("%s: %d guards (holding: %v), want %d", tt.body, len(u.Guards), u.Holds(), tt.guards)
		}
		if plain := Analyze(fn.Proto, 0); plain.ReadOnly {
			t.Errorf("%s: Analyze, which follows no call, says read-only", tt.body)
		}
	}
}

// Once an upvalue the analysis followed is written, even back to the same function, the
// answer no longer holds: a call in between may have handed the table to another.
func TestGuardsSeeWrites(t *testing.T) {
	fn, L := loaded(t, `
local function check(t) return t.tool_name end
local function keep(t) KEPT = t end
local helper = check
function SWAP() helper = keep end
function BACK() helper = check end
CB = function(kw) return helper(kw) end
`)
	u := AnalyzeFunc(fn, 0)
	if !u.ReadOnly || len(u.Guards) != 1 || !u.Holds() {
		t.Fatalf("before any write: %+v", u)
	}
	if err := L.DoString("SWAP() BACK()"); err != nil {
		t.Fatal(err)
	}
	if u.Holds() {
		t.Error("the helper was replaced and put back, and the analysis still holds")
	}
	if again := AnalyzeFunc(fn, 0); !again.ReadOnly || !again.Holds() {
		t.Errorf("analysed again, with the helper back: %+v", again)
	}
}

// An upvalue still open (its scope has not ended) may change without a write through it:
// the function it holds is not followed.
func TestOpenUpvalueNotFollowed(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	var u Use
	L.SetGlobal("analyse", L.NewFunction(func(L *lua.LState) int {
		u = AnalyzeFunc(L.CheckFunction(1), 0)
		return 0
	}))
	if err := L.DoString(`
local function check(t) return t.tool_name end
analyse(function(kw) return check(kw) end)
`); err != nil {
		t.Fatal(err)
	}
	if u.ReadOnly {
		t.Errorf("followed a function in an open upvalue: %+v", u)
	}
}
