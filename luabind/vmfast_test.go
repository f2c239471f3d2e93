package luabind

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// TestBuiltinsMarked: ipairs' iterator and string.find carry the fork's builtin marks, so
// the interpreter takes their steps itself, and no other function does.
func TestBuiltinsMarked(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	stdlib.InstallBase(L)
	stdlib.InstallString(L)
	if err := L.DoString(`it = ipairs({}) find = string.find match = string.match`); err != nil {
		t.Fatal(err)
	}
	fn := func(name string) *lua.LFunction { return L.GetGlobal(name).(*lua.LFunction) }
	if fn("it").Builtin != lua.BuiltinIpairsIter || fn("find").Builtin != lua.BuiltinStringFind {
		t.Error("ipairs' iterator or string.find is not marked")
	}
	if fn("match").Builtin != lua.NoBuiltin {
		t.Error("string.match is marked")
	}
}

// ourState is a state with our ipairs and string library; plain runs every instruction
// the plain way (lua.Options.SkipFastPaths), so loops and calls that take the fast paths in
// a state without it call the functions instead.
func ourState(t testing.TB, plain bool) *lua.LState {
	L := lua.NewState(lua.Options{SkipFastPaths: plain})
	stdlib.InstallBase(L)
	stdlib.InstallString(L)
	t.Cleanup(L.Close)
	return L
}

// fastStates are a gopher-lua state (the fork's own functions) and one with our ipairs and
// string library, in which loops and calls take the fast paths.
func fastStates(t testing.TB) (stock, ours *lua.LState) {
	stock = lua.NewState()
	t.Cleanup(stock.Close)
	return stock, ourState(t, false)
}

// TestFastPathsLikeGopherLua: loops over ipairs give what gopher-lua's ipairs gives, and
// what ours gives when it is called; calls of string.find what the same function gives
// when it is called; whatever the number of values asked for, around locals, closures and
// nested loops, and with the arguments that leave the fast path.
func TestFastPathsLikeGopherLua(t *testing.T) {
	stock, ours := fastStates(t)
	plain := ourState(t, true)
	loops := []string{
		`local o = {} for i in ipairs({"a", "b"}) do o[#o + 1] = i end return table.concat(o, ",")`,
		`local o = {} for i, v, x in ipairs({"a", "b"}) do o[#o + 1] = i .. v .. tostring(x) end return table.concat(o, ",")`,
		`local o = {} for i, v in ipairs({1, 2, 3}) do local a, b = v * 2 local c o[#o + 1] = a .. tostring(b) .. tostring(c) end return table.concat(o, ",")`,
		`local fs = {} for i, v in ipairs({"x", "y"}) do fs[i] = function() return i .. v end end return fs[1]() .. fs[2]()`,
		`local s = 0 for _, row in ipairs({{1, 2}, {3}, {}}) do for j, v in ipairs(row) do s = s + j * v end end return s`,
		`local n = 0 for i, v in ipairs({1, 2, 3, 4}) do if v == 3 then break end n = n + i end return n`,
		`local t = {} for i = 1, 5000 do t[i] = i end local s = 0 for i, v in ipairs(t) do s = s + i - v end return s .. #t`,
		`local t = {1, 2, 3} local o = {} for i, v in ipairs(t) do t[i + 2] = v o[#o + 1] = v if i > 6 then break end end return table.concat(o, ",")`,
		`local it, s, i = ipairs({5, 6}) local o = {} for k, v in it, s, i do o[#o + 1] = k .. "=" .. v end return table.concat(o, ",")`,
		`local it = ipairs({}) local o = {} for k, v in it, {7, 8, 9}, 1.5 do o[#o + 1] = k .. "=" .. v end return table.concat(o, ",")`,
		`local it = ipairs({}) local o = {} for k, v in it, {7, 8}, "0" do o[#o + 1] = k .. "=" .. v end return table.concat(o, ",")`,
		`local it = ipairs({}) return (pcall(function() for k in it, "str", 0 do end end))`,
		`local function f(...) local o = {} for i, v in ipairs({...}) do o[i] = v end return select("#", ...) .. #o end return f(1, nil, 3)`,
		`local n = 0 for _, p in ipairs({"rm", "dd", "mk"}) do if string.find("sudo rm -rf", p, 1, true) then n = n + 1 end end return n`,
	}
	for _, c := range loops {
		want, got := runString(stock, c), runString(ours, c)
		if got != want {
			t.Errorf("%s\n  ours:       %s\n  gopher-lua: %s", c, got, want)
		}
		if called := runString(plain, c); got != called {
			t.Errorf("%s\n  fast:   %s\n  called: %s", c, got, called)
		}
	}
	finds := []string{
		`return tostring(string.find("hello world", "o w", 1, true))`,
		`local a, b, c = string.find("hello world", "o", 6, true) return tostring(a) .. tostring(b) .. tostring(c)`,
		`local a, b, c = string.find("hello", "z", 1, true) return tostring(a) .. tostring(b) .. tostring(c)`,
		`return table.concat({string.find("a.b.c", ".", 3, true)}, ",") .. "|" .. select("#", string.find("abc", "x", 1, true))`,
		`return select("#", string.find("abc", "b")) .. select("#", string.find("abc", "b", 1)) .. select("#", string.find("abc", "b", nil, true))`,
		`local t = {string.find("abc", "c", -1, true)} return #t .. tostring(t[1])`,
		`local n = 0 for _, p in ipairs({"rm", "dd", "mk"}) do if string.find("sudo rm -rf", p, 1, true) then n = n + 1 end end return n`,
		`return tostring(string.find("abc", "", 10, true)) .. tostring(string.find("abc", "", 4, true)) .. tostring(string.find("", ""))`,
		`return tostring(string.find("aaa", "a", 0/0, true)) .. tostring(string.find("aaa", "a", -100, true)) .. tostring(string.find("aaa", "a", 2^60, true))`,
		`return tostring(string.find("a1b", "%d")) .. tostring(string.find("a1b", "%d", 1, false)) .. tostring(string.find("a%db", "%d", 1, true))`,
		`return tostring(string.find(12345, 34, 1, true)) .. tostring(string.find("12345", 34)) .. tostring(string.find("abc", "b", "2", true))`,
		`return tostring(string.find("abc", "b", 1, nil)) .. tostring(string.find("abc", "b", 1, 0))`,
		`return (pcall(function() return string.find("abc") end))`,
		`return (pcall(function() return string.find("abc", "b", {}, true) end))`,
		`local f = string.find local function g(...) local a, b = f(...) return a, b end return tostring(g("needle in hay", "hay", 1, true))`,
		`local s, n = "x", 0 for i = 1, 300 do s = s .. "y" if string.find(s, "yy", i, true) then n = n + 1 end end return n`,
	}
	for _, c := range finds {
		want, got := runString(plain, c), runString(ours, c)
		if got != want {
			t.Errorf("%s\n  fast:   %s\n  called: %s", c, got, want)
		}
	}
}

// FuzzFastFind compares a plain string.find, its results taken every way, on the fast
// path and called (lua.Options.SkipFastPaths). (The function itself is compared with
// gopher-lua's and C Lua's by FuzzStringLib and TestStringLibAgainstLua51.)
func FuzzFastFind(f *testing.F) {
	f.Add("rm -rf /tmp", "rm -rf", int16(1), true)
	f.Add("abcabc", "c", int16(-2), false)
	f.Add("", "", int16(0), true)
	f.Add("a.b", ".", int16(5), true)
	f.Fuzz(func(t *testing.T, s, p string, init int16, plain bool) {
		if len(s) > 300 || len(p) > 40 {
			t.Skip()
		}
		ours, called := ourState(t, false), ourState(t, true)
		args := fmt.Sprintf("%s, %s, %d, %t", strconv.Quote(s), strconv.Quote(p), init, plain)
		code := `local a, b, c = string.find(` + args + `)
local t = {string.find(` + args + `)}
local x = string.find(` + args + `)
return tostring(a) .. tostring(b) .. tostring(c) .. "|" .. #t .. tostring(t[1]) .. tostring(t[2]) .. "|" .. tostring(x)`
		if want, got := runString(called, code), runString(ours, code); got != want {
			t.Fatalf("string.find(%s)\n  fast:   %s\n  called: %s", args, got, want)
		}
	})
}

// TestEveryLoopStops: with the interpreter polling only where a program can go on running,
// every way of running on still stops at the call's timeout, and the state keeps working.
func TestEveryLoopStops(t *testing.T) {
	loops := []string{
		`while true do end`,
		`repeat until false`,
		`for i = 1, math.huge do end`,
		`local t = {} for i = 1, 100 do t[i] = i end while true do for _, v in ipairs(t) do end end`,
		`local function it() return 1 end for _ in it do end`,
		`for _ in pairs({a = 1}) do local n = 0 while n >= 0 do n = n + 1 end end`,
		`local function f() return f() end f()`,
		`local function f(n) if n > 100 then return end f(n + 1) end while true do f(0) end`,
		`while true do string.find("abc", "b", 1, true) end`,
		`while true do pcall(error, "x") end`,
		`local t = setmetatable({}, {__index = function(t, k) local n = 0 for i = 1, 10 do n = n + i end return n end}) while true do local _ = t.x end`,
		`local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end`,
		`local ok = pcall(function() while true do end end) return "caught, and returned as if done"`,
		`table.sort({3, 2, 1, 5, 4, 6, 8, 7}, function(a, b) while true do end end)`,
		`string.gsub("aaaa", "a", function() while true do end end)`,
	}
	p := loadPlugin(t, runawayPlugin, Options{Timeout: 100 * time.Millisecond})
	for _, src := range loops {
		start := time.Now()
		_, err := p.Call(context.Background(), 0, map[string]any{"src": src})
		wantErr(t, src, err, KindTimeout, "timed out after 100ms")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: stopped after %v, want about the 100ms timeout", src, d)
		}
		if got, err := p.Call(context.Background(), 1, nil); got != "fine" || err != nil {
			t.Errorf("after %s: got %v, %v; want the plugin to keep working", src, got, err)
		}
	}
}

// TestCanceledCallRunsNothing: a call whose host context is already done does not run
// the hook's code, even code without a loop or a call.
func TestCanceledCallRunsNothing(t *testing.T) {
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("mark", function() marked = true end)
  ctx.register_hook("read", function() return marked == true end)
end`, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Call(ctx, 0, nil); err == nil {
		t.Fatal("a call under a canceled context succeeded")
	}
	if got, err := p.Call(context.Background(), 1, nil); got != false || err != nil {
		t.Fatalf("got %v, %v; want the canceled call to have set nothing", got, err)
	}
}

// FuzzJoinStrings: `..` of strings gives the strings joined, in every position a result
// can go to, and the same as the plain way gives (reached with a number operand, and with
// lua.Options.SkipFastPaths).
func FuzzJoinStrings(f *testing.F) {
	f.Add("User ", "u1", " on telegram")
	f.Add("", "", "")
	f.Add("a\x00b", "\xff", "ü")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		code := `local x = a .. b .. c
local t = {a .. b, c .. a}
local y = tostring(a .. 1 .. b == a .. "1" .. b)
return table.concat({x, t[1], t[2], y, select("#", a .. b), #(a .. b .. c)}, "|")`
		want := strings.Join([]string{a + b + c, a + b, c + a, "true", "1", strconv.Itoa(len(a + b + c))}, "|")
		for _, plain := range []bool{false, true} {
			L := ourState(t, plain)
			L.SetGlobal("a", lua.LString(a))
			L.SetGlobal("b", lua.LString(b))
			L.SetGlobal("c", lua.LString(c))
			if got := runString(L, code); got != want {
				t.Fatalf("a=%q b=%q c=%q, plain steps %t\n  got:  %q\n  want: %q", a, b, c, plain, got, want)
			}
		}
	})
}

// TestConcatIsBounded: `..` refuses to build a string larger than limits.MaxStringSize before
// building it, whatever the shape of the expression, and leaves ordinary joins alone.
func TestConcatIsBounded(t *testing.T) {
	tests := []struct{ name, body string }{
		{"one instruction", `local s = string.rep("x", 16 * 2^20)
  return #(s .. s .. s .. s .. s .. s .. s .. s .. s .. s)`},
		{"after a call", `local function f() return string.rep("y", 40 * 2^20) end
  return #(f() .. f())`},
		{"in a loop", `local s = "x" for i = 1, 40 do s = s .. s end return #s`},
		{"numbers mixed in", `local s = string.rep("z", 33 * 2^20) return #(1 .. s .. 2 .. s)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := hostileCall(t, tt.body, nil)
			le, ok := err.(*Error)
			if !ok || le.Kind != KindLimit || !strings.Contains(le.Msg, ".. result larger than 64 MiB") {
				t.Fatalf("got %v, %v; want a limit error naming ..", v, err)
			}
		})
	}
	v, err := hostileCall(t, `local a, b = "ab", 12 return a .. b .. "c" .. 1.5`, nil)
	if err != nil || v != "ab12c1.5" {
		t.Fatalf("ordinary concat: got %v, %v", v, err)
	}
}

// TestStraightLineCodeStops: a long run of straight-line code, without a loop or a call,
// stops at its timeout. Each statement joins three 20 MiB strings (a few ms); the 400 of
// them run for seconds, and the interpreter, which polls after every long join (and every
// 1024 instructions), stops them within a few statements of the 100 ms timeout. How many
// ran is counted in the state: the test reads no clock.
func TestStraightLineCodeStops(t *testing.T) {
	const statements = 400
	var src strings.Builder
	src.WriteString(`function register(ctx)
  ctx.register_hook("run", function()
    local s
    done = 0
    local big = string.rep("x", 20 * 2^20) -- in the call: loading has the same 100ms
`)
	for range statements {
		src.WriteString("    s = big .. big .. big done = done + 1\n")
	}
	src.WriteString(`  end)
  ctx.register_hook("done", function() return done end)
end`)
	p := loadPlugin(t, src.String(), Options{Timeout: 100 * time.Millisecond, MemoryLimit: -1})
	_, err := p.Call(context.Background(), 0, nil)
	wantErr(t, "straight-line code", err, KindTimeout, "timed out after 100ms")
	done, err := p.Call(context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Polled only every 1024 instructions (7 a statement), 146 statements would run; not
	// polled at all, 400. Stopped at the first poll past the timeout, a handful (none
	// when one join takes longer than the timeout, as under the race detector).
	if n, err := strconv.Atoi(fmt.Sprint(done)); err != nil || n >= 100 {
		t.Fatalf("%v of %d statements ran before the call stopped, want a few", done, statements)
	}
	t.Logf("%v of %d statements ran", done, statements)
}

// entries lists t's pairs in the order next gives them.
func entries(t *lua.LTable) string {
	var b strings.Builder
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		fmt.Fprintf(&b, "%s=%s;", k, v)
	}
	return b.String()
}

// FuzzSetStringKey: string keys set from Lua (constructor fields, t.k = v, t[k] = v,
// nils that delete) leave the table RawSetString leaves, and the same instructions run the
// plain way (lua.Options.SkipFastPaths): the same pairs, in the same order for next. So
// does LTable.ReplaceString.
func FuzzSetStringKey(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 0x80, 3, 2})
	f.Add([]byte{5, 5, 0x85, 5, 0x40})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			t.Skip()
		}
		ours, plain := ourState(t, false), ourState(t, true)
		want, replaced := ours.NewTable(), ours.NewTable()
		var code strings.Builder
		code.WriteString("local t = {k0 = 0, k1 = 1}\n")
		for _, tb := range []*lua.LTable{want, replaced} {
			tb.RawSetString("k0", lua.LNumber(0))
			tb.RawSetString("k1", lua.LNumber(1))
		}
		for i, op := range ops {
			key := fmt.Sprintf("k%d", op&7)
			value, lv := strconv.Itoa(i), lua.LValue(lua.LNumber(i))
			if op&0x80 != 0 {
				value, lv = "nil", lua.LNil
			}
			switch op & 0x60 {
			case 0x00:
				fmt.Fprintf(&code, "t.%s = %s\n", key, value)
			case 0x20:
				fmt.Fprintf(&code, "t[%q] = %s\n", key, value)
			default:
				fmt.Fprintf(&code, "do local k = %q t[k] = %s end\n", key, value)
			}
			want.RawSetString(key, lv)
			replaced.ReplaceString(key, lv)
		}
		code.WriteString("return t")
		run := func(L *lua.LState) string {
			if err := L.DoString(code.String()); err != nil {
				t.Fatal(err)
			}
			return entries(L.Get(-1).(*lua.LTable))
		}
		g, w := run(ours), entries(want)
		if g != w {
			t.Fatalf("%s\n  Lua:          %s\n  RawSetString: %s", code.String(), g, w)
		}
		if p := run(plain); p != g {
			t.Fatalf("%s\n  Lua:         %s\n  plain steps: %s", code.String(), g, p)
		}
		if r := entries(replaced); r != w {
			t.Fatalf("%s\n  ReplaceString: %s\n  RawSetString:  %s", code.String(), r, w)
		}
	})
}

// FuzzPairsLikeNext: LTable.Pairs walks a table as LTable.Next does, whatever was set and
// cleared in it: array entries and holes, string keys, other keys, keys set again after a
// clear.
func FuzzPairsLikeNext(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0x41, 0x42, 0x81, 0xc1, 0x43})
	f.Add([]byte{0x85, 5, 0x45, 0xc5, 0x45, 0x10})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 128 {
			t.Skip()
		}
		L := lua.NewState()
		defer L.Close()
		tb := L.NewTable()
		for i, op := range ops {
			var key lua.LValue
			switch op & 0x60 {
			case 0x00:
				key = lua.LNumber(op&0x1f + 1) // the array part, or past it
			case 0x20:
				key = lua.LNumber(float64(op&0x1f) + 0.5)
			default:
				key = lua.LString(fmt.Sprintf("k%d", op&0x1f))
			}
			value := lua.LValue(lua.LNumber(i))
			if op&0x80 != 0 {
				value = lua.LNil
			}
			tb.RawSet(key, value)
		}
		var want, got strings.Builder
		for k, v := tb.Next(lua.LNil); k != lua.LNil; k, v = tb.Next(k) {
			fmt.Fprintf(&want, "%s=%s;", k, v)
		}
		for k, v := range tb.Pairs() {
			fmt.Fprintf(&got, "%s=%s;", k, v)
		}
		if got.String() != want.String() {
			t.Fatalf("ops %x\n  pairs: %s\n  Next:  %s", ops, got.String(), want.String())
		}
	})
}

// TestBoxNumber: a number converted without an allocation is the number, -0 included.
func TestBoxNumber(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, 4095, 4096, -1, 2.5, 1e300, math.NaN(), math.Inf(-1)} {
		got, ok := stdlib.BoxNumber(f).(lua.LNumber)
		if !ok || math.Float64bits(float64(got)) != math.Float64bits(f) && !(f != f && got != got) {
			t.Errorf("stdlib.BoxNumber(%v) = %v", f, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = stdlib.BoxNumber(42) }); n != 0 {
		t.Errorf("stdlib.BoxNumber(42) allocates %v times", n)
	}
}
