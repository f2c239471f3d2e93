package luabind

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The deny-list loop (`for _, p in ipairs(list) do if string.find(s, p, 1, true) then ...`),
// whose misses the interpreter searches in one Go loop (luabind/internal/lua findloop.go),
// gives what the same loop gives element by element (lua.Options.SkipFastPaths) and what C
// Lua 5.1 gives.

// findLoopCases are loops of that shape and of shapes close to it that must not change:
// hits first, last and nowhere, elements that are not strings or hold pattern characters,
// every source of the function and its arguments, then-blocks that go on, break, return or
// change what the loop reads, lists longer than a poll and than the boxed integers.
var findLoopCases = []string{
	`local cmd, n = "sudo rm -rf /", 0 for _, p in ipairs({"mkfs", "dd if=", "rm -rf"}) do if string.find(cmd, p, 1, true) then n = n + 1 end end return n`,
	`for i, p in ipairs({"a", "b", "c"}) do if string.find("xxc", p, 1, true) then return i .. p end end return "none"`,
	`for i, p in ipairs({"a", "b", "c"}) do if string.find("zzz", p, 1, true) then return i end end return "none"`,
	`for i, p in ipairs({"c", "b", "a"}) do if string.find("c", p, 1, true) then return i end end return "none"`,
	`local r = {} for i, p in ipairs({"x", 1, "y", 2.5, "z"}) do if string.find("1z2.5", p, 1, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local ok, e = pcall(function() for i, p in ipairs({"x", {}, "y"}) do if string.find("q", p, 1, true) then return i end end end) return tostring(ok)`,
	`local r = {} for i, p in ipairs({"a.b", "%d", "[x", "b"}) do if string.find("a.b 1 [x", p, 1, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"a.b", "%d", "zz", "b"}) do if string.find("axb 1", p) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"ab", "zz", "b"}) do if string.find("ab ab", p, 3) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"ab", "zz", "b", ""}) do if string.find("ab ab", p, -2, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"ab", "zz", "", "b"}) do if string.find("ab", p, 10, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"ab", "zz", "b"}) do if string.find("ab ab", p, nil, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"ab", "zz", "b"}) do if string.find("ab ab", p, 2.7, 1) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"a", "zz", "b"}) do if string.find(p, "b", 1, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"a", "zz", "b"}) do if string.find(p, p, 1, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local find = string.find local function f(s) for i, p in ipairs({"q", "w", "e"}) do if find(s, p, 1, true) then return i end end return 0 end return f("e") .. f("x")`,
	`local find = string.find for i, p in ipairs({"q", "w", "e"}) do if find("w", p, 1, true) then return i end end return 0`,
	`local s = "bc" for i, p in ipairs({"a", "b", "c"}) do if string.find(s, p, 1, true) then s = "a" end end return s`,
	`local t = {"a", "b", "c"} local n = 0 for i, p in ipairs(t) do if string.find("abc", p, 1, true) then n = n + 1 if i == 1 then t[4] = "c" t[5] = "zz" t[6] = "a" end end end return n`,
	`local n, real = 0, string.find for i, p in ipairs({"a", "b", "a", "a"}) do if string.find("a", p, 1, true) then n = n + 1 string.find = function() return nil end end end string.find = real return n`,
	`local n, real = 0, string for i, p in ipairs({"a", "b", "a", "a"}) do if string.find("a", p, 1, true) then n = n + 1 string = {find = function() return true end} end end string = real return n`,
	`local n = 0 for i, p in ipairs({"a", "b", "a"}) do if string.find("a", p, 1, true) then n = n + i break end end return n`,
	`local t = {} for i = 1, 5000 do t[i] = "p" .. i end t[4999] = "needle" for i, p in ipairs(t) do if string.find("a needle", p, 1, true) then return i .. p end end return "none"`,
	`local t = {} for i = 1, 5000 do t[i] = "p" .. i .. ";" end local n = 0 for i, p in ipairs(t) do if string.find("p1;", p, 1, true) then n = n + i end end return n`,
	`local t = {} for i = 1, 300 do t[i] = "x" .. i end local last for i, p in ipairs(t) do if string.find("none", p, 1, true) then last = i end end return tostring(last)`,
	`local t = {"a", "b"} t[4] = "c" local n = 0 for i, p in ipairs(t) do if string.find("c", p, 1, true) then n = n + 1 end end return n`,
	`local r = {} for i, p in ipairs({"a", "b"}) do for j, q in ipairs({"x", "b", "a"}) do if string.find(p, q, 1, true) then r[#r+1] = i .. j end end end return table.concat(r, ",")`,
	`local fs = {} for i, p in ipairs({"a", "b"}) do if string.find("b", p, 1, true) then fs[#fs+1] = function() return p end end end return fs[1]()`,
	`local r = {} for i, p in ipairs({"a", "b", "c"}) do local q = p if string.find("bc", q, 1, true) then r[#r+1] = q end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"a", "b", "c"}) do if string.find("bc", p, 1, true) then r[#r+1] = p else r[#r+1] = "-" end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"a", "b", "c"}) do if not string.find("bc", p, 1, true) then r[#r+1] = p end end return table.concat(r, ",")`,
	`local s = nil local ok = pcall(function() for i, p in ipairs({"a"}) do if string.find(s, p, 1, true) then return end end end) return tostring(ok)`,
	`local r = {} for i, p in ipairs({"A", "b"}) do if ("Ab"):find(p, 1, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local t = setmetatable({"a", "b"}, {__index = function(_, i) if i == 3 then return "c" end end}) local n = 0 for i, p in ipairs(t) do if string.find("abc", p, 1, true) then n = n + 1 end end return n`,
	`for i, p in ipairs({"a", "b", "c"}) do if string.find("zzz", p, 1, true, "extra") then return i end end return "none"`,
	`gs = "xbx" local r = {} for i, p in ipairs({"a", "b", "c", "x"}) do if string.find(gs, p, 1, true) then r[#r+1] = i gs = "c" end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"ab", "a", "b"}) do if string.find("ab ab", p, 4, true) then r[#r+1] = i end end return table.concat(r, ",")`,
	`local r = {} for i, p in ipairs({"a", "b", "a", "c"}) do if string.find("ab", p, 1, true) and i > 1 then r[#r+1] = i end end return table.concat(r, ",")`,
}

// TestFindLoopsLikeCalled: each loop gives the same with the interpreter's loop and element
// by element, and what C Lua 5.1 gives.
func TestFindLoopsLikeCalled(t *testing.T) {
	ours, plain := ourState(t, false), ourState(t, true)
	got := make([]string, len(findLoopCases))
	for i, c := range findLoopCases {
		got[i] = runString(ours, c)
		if want := runString(plain, c); got[i] != want {
			t.Errorf("%s\n  fast:   %s\n  called: %s", c, got[i], want)
		}
		if strings.HasPrefix(got[i], "error") {
			t.Errorf("%s: %s", c, got[i])
		}
	}
	for i, want := range lua51(t, findLoopCases) {
		if got[i] != want {
			t.Errorf("%s\n  here:   %s\n  lua5.1: %s", findLoopCases[i], got[i], want)
		}
	}
}

// FuzzFindLoop: a deny list made of the fuzzer's words, searched in a command by a loop of
// one of several forms (how the function is found, which arguments, what the then-block
// does), gives the same with the interpreter's loop and element by element.
func FuzzFindLoop(f *testing.F) {
	f.Add("sudo rm -rf /", "mkfs|dd if=|rm -rf|x", uint8(0), int8(1), true)
	f.Add("a%b.c", "%|.|b|", uint8(7), int8(-2), false)
	f.Add("", "||a", uint8(13), int8(0), true)
	f.Fuzz(func(t *testing.T, cmd, words string, form uint8, init int8, plain bool) {
		if len(cmd) > 200 || len(words) > 400 {
			t.Skip()
		}
		var list []string
		for i, w := range strings.Split(words, "|") {
			switch {
			case w == "#n":
				list = append(list, strconv.Itoa(i)) // a number: not a string, left to the call
			case w == "#t":
				list = append(list, "true")
			default:
				list = append(list, strconv.Quote(w))
			}
		}
		fn := []string{"string.find", "find", "upfind"}[form%3]
		args := []string{
			fmt.Sprintf("cmd, p, %d, %t", init, plain),
			"cmd, p",
			fmt.Sprintf("cmd, p, %d", init),
			fmt.Sprintf("p, cmd, %d, %t", init, plain),
		}[form/3%4]
		then := []string{"n = n + i", "n = n + i break", "return n + i", "cmd = cmd .. p n = n + 1"}[form/12%4]
		// The loop runs in the function that holds cmd, find and n as locals, or in a
		// closure that reaches them as upvalues, or reads cmd as a global.
		loop := fmt.Sprintf(`for i, p in ipairs({%s}) do
      if %s(%s) then %s end
    end
    return n`, strings.Join(list, ", "), fn, args, then)
		body := []string{
			`local ok, err = pcall(function() ` + loop + ` end)`,
			`local ok, err = pcall(function(cmd, find) local n = n ` + loop + ` end, cmd, find)`,
			`local ok, err = pcall(function() local cmd = gcmd ` + loop + ` end)`,
		}[form/48%3]
		code := fmt.Sprintf(`local upfind = string.find
gcmd = %[1]s
return (function(cmd)
  local find, n = string.find, 0
  %[2]s
  return tostring(ok) .. ":" .. tostring(err) .. ":" .. n .. ":" .. cmd
end)(%[1]s)`, strconv.Quote(cmd), body)
		if want, got := runString(ourState(t, true), code), runString(ourState(t, false), code); got != want {
			t.Fatalf("%s\n  fast:   %s\n  called: %s", code, got, want)
		}
	})
}
