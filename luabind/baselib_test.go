package luabind

import (
	"fmt"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// baseStates are a stock gopher-lua state and one with our base functions, whose generic
// for takes ipairs' steps itself.
func baseStates(t testing.TB) (stock, ours *lua.LState) {
	stock, ours = lua.NewState(), lua.NewState()
	stdlib.InstallBase(ours)
	t.Cleanup(stock.Close)
	t.Cleanup(ours.Close)
	return stock, ours
}

// calledState is one with our base functions whose generic for calls ipairs' iterator
// (lua.Options.SkipFastPaths).
func calledState(t testing.TB) *lua.LState {
	L := lua.NewState(lua.Options{SkipFastPaths: true})
	stdlib.InstallBase(L)
	t.Cleanup(L.Close)
	return L
}

// run evaluates code (which returns one string) in L; an error is the result.
func runString(L *lua.LState, code string) string {
	if err := L.DoString(code); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\nstack traceback"); i >= 0 {
			msg = msg[:i]
		}
		return "error: " + msg
	}
	v := L.Get(-1)
	L.Pop(1)
	return v.String()
}

const ipairsCollect = `local function collect(t, ...)
  local out = {}
  for i, v in ipairs(t, ...) do out[#out + 1] = tostring(i) .. "=" .. tostring(v) end
  return table.concat(out, ",")
end
`

// Our ipairs gives what gopher-lua's gives: the same pairs, the same stop at the first nil,
// the same errors, the same iterator when called by hand.
func TestIpairsLikeGopherLua(t *testing.T) {
	stock, ours := baseStates(t)
	cases := []string{
		`return collect({})`,
		`return collect({1, 2, 3})`,
		`return collect({1, nil, 3})`,
		`return collect({"a", "b", [4] = "d"})`,
		`local t = {} for i = 1, 5000 do t[i] = i * 2 end local s = 0 for i, v in ipairs(t) do s = s + i + v end return s`,
		`return collect({x = 1, y = 2})`,
		`local t = {1, 2, 3} local out = {} for i, v in ipairs(t) do t[i + 1] = nil out[#out + 1] = v end return table.concat(out, ",")`,
		`local f, t, i = ipairs({10, 20, 30}) local a, b = f(t, 1) return tostring(i) .. ":" .. tostring(a) .. "=" .. tostring(b)`,
		`local f = ipairs({}) return tostring(f({1, 2}, 5000))`,
		`local f = ipairs({}) local t = {} t[4097] = "x" local a, b = f(t, 4096) return tostring(a) .. tostring(b)`,
		`local f = ipairs({}) local a, b = f({[-1] = "n", [0] = "z"}, -2) return tostring(a) .. tostring(b)`,
		`return collect(setmetatable({}, {__index = function(_, i) return i < 3 and i or nil end}))`,
		`return collect(nil)`,
		`return collect("abc")`,
		`local f = ipairs({}) return f(nil, 1)`,
		`local f = ipairs({}) return f({}, "x")`,
		`return type(ipairs({}))`,
	}
	called := calledState(t)
	for _, c := range cases {
		want, got := runString(stock, ipairsCollect+c), runString(ours, ipairsCollect+c)
		if got != want {
			t.Errorf("%s\n  ours:       %s\n  gopher-lua: %s", c, got, want)
		}
		if c2 := runString(called, ipairsCollect+c); c2 != got {
			t.Errorf("%s\n  steps taken: %s\n  called:      %s", c, got, c2)
		}
	}
}

// FuzzIpairs builds a table from the fuzz input and iterates it every way: with
// gopher-lua's ipairs, and with ours, its steps taken by the interpreter and called.
func FuzzIpairs(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0, 5}, int16(0))
	f.Add([]byte{9, 9, 9}, int16(-3))
	f.Add([]byte{}, int16(4095))
	f.Fuzz(func(t *testing.T, items []byte, start int16) {
		if len(items) > 200 {
			t.Skip()
		}
		stock, ours := baseStates(t)
		called := calledState(t)
		var b strings.Builder
		b.WriteString(ipairsCollect + "local t = {}\n")
		for i, v := range items {
			if v != 0 { // 0 leaves a hole
				fmt.Fprintf(&b, "t[%d] = %d\n", i+1, v)
			}
		}
		fmt.Fprintf(&b, `local f = ipairs(t) local a, v = f(t, %d)
return collect(t) .. "|" .. tostring(a) .. "=" .. tostring(v)`, start)
		want, got := runString(stock, b.String()), runString(ours, b.String())
		if got != want {
			t.Fatalf("ours %q, gopher-lua %q", got, want)
		}
		if c := runString(called, b.String()); c != got {
			t.Fatalf("steps taken %q, called %q", got, c)
		}
	})
}
