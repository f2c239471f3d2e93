package stdlib

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// fuzzPrelude normalises what gopher-lua returns differently from C Lua for reasons the
// fuzz target does not test (match returns nothing rather than nil), and collects gmatch.
const fuzzPrelude = `
function M(...) if select("#", ...) == 0 then return nil end return ... end
function GM(s, p)
  local o = {}
  for a, b in string.gmatch(s, p) do
    o[#o + 1] = tostring(a) .. "/" .. tostring(b)
    if #o > 1000 then break end
  end
  return table.concat(o, ",")
end
`

// gopherDeviations are the patterns and replacements on which gopher-lua's string library
// is known to differ from C Lua 5.1 (see the cases of strlib_test.go); the fuzz target
// skips them, since there ours follows C Lua.
var gopherDeviations = []*regexp.Regexp{
	regexp.MustCompile(`%f`),              // no frontier pattern
	regexp.MustCompile(`(^|[^%])(%%)*%$`), // a final '%' is accepted
	regexp.MustCompile(`%b.?$`),           // %b with fewer than two characters is accepted
	regexp.MustCompile(`\[[^]]*%.-`),      // a class before '-' in a set makes a range
	regexp.MustCompile(`\[[^]]*.--`),      // a range may not end with '-'
	regexp.MustCompile("\x00"),            // gopher-lua reads past a "\0"; C Lua's pattern ends there
}

// gopherAgrees reports whether the input avoids the known deviations of gopher-lua.
func gopherAgrees(pattern, repl string) bool {
	for _, re := range gopherDeviations {
		if re.MatchString(pattern) {
			return false
		}
	}
	if !capturesWellFormed(pattern) {
		return false
	}
	// A '%' before anything but a digit or '%' in a replacement: we raise an error, C Lua
	// 5.1 drops the '%', gopher-lua keeps it.
	for i := 0; i < len(repl); i++ {
		if repl[i] == '%' {
			if i+1 == len(repl) || !isDigit(repl[i+1]) && repl[i+1] != '%' {
				return false
			}
			i++
		}
	}
	return true
}

// capturesWellFormed reports whether the sets of pattern p are closed, its parentheses
// balance, with at most 32 captures, and every back reference names a capture closed
// before it that is not a position capture: gopher-lua raises errors for the others while
// parsing the pattern (C Lua only when the matcher reaches them), and lets a back
// reference to a position capture match the empty string.
func capturesWellFormed(p string) bool {
	var open []int
	closed := map[int]bool{}
	n := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '%':
			switch {
			case i+1 < len(p) && isDigit(p[i+1]) && !closed[int(p[i+1]-'0')]:
				return false
			case i+1 < len(p) && p[i+1] == 'b':
				i += 2
			}
			i++
		case '[':
			if i = setEnd(p, i) - 1; i < 0 {
				return false
			}
		case '(':
			if n++; i+1 < len(p) && p[i+1] == ')' {
				i++
				continue
			}
			open = append(open, n)
		case ')':
			if len(open) == 0 {
				return false
			}
			closed[open[len(open)-1]] = true
			open = open[:len(open)-1]
		}
	}
	return len(open) == 0 && n <= patMaxCaptures
}

// setEnd returns the index after the set that starts at p[i], as classEnd reads it, or 0
// if the set is not closed.
func setEnd(p string, i int) int {
	i++
	if i < len(p) && p[i] == '^' {
		i++
	}
	for i < len(p) {
		c := p[i]
		i++
		if c == '%' && i < len(p) {
			i++
		}
		if i < len(p) && p[i] == ']' {
			return i + 1
		}
	}
	return 0
}

// fuzzCall is one call compared for an input, where the subject is s, the pattern p, the
// replacement r and i an init position; skip tells the inputs on which gopher-lua is known
// to differ from C Lua for that call.
type fuzzCall struct {
	code string
	skip func(s, p string, i int) bool
}

var fuzzCalls = []fuzzCall{
	{code: `string.find(s, p)`},
	// gopher-lua returns 1, 0 for an empty pattern whatever the init.
	{`string.find(s, p, i)`, func(s, p string, i int) bool { return p == "" || initBeyond(s, p, i) }},
	{`string.find(s, p, i, true)`, func(s, p string, i int) bool { return p == "" || initBeyond(s, p, i) }},
	{code: `M(string.match(s, p))`},
	{`M(string.match(s, p, i))`, initBeyond},
	{code: `string.gsub(s, p, r)`},
	{code: `string.gsub(s, p, r, 2)`},
	{code: `string.gsub(s, p, function(a) return a:upper() end)`},
	{code: `string.gsub(s, p, {a = "<A>", b = false})`},
	// gopher-lua anchors gmatch; in C Lua 5.1, '^' is an ordinary character there.
	{`GM(s, p)`, func(_, p string, _ int) bool { return strings.HasPrefix(p, "^") }},
}

// initBeyond: C Lua starts a search beyond the end of the subject at its end; gopher-lua
// finds nothing there, or fails (a Go panic) for a plain search.
func initBeyond(s, _ string, i int) bool { return i > len(s)+1 }

// runFuzzCall evaluates one call in L with a deadline; done is false when it ran out of
// time (L's context is then cancelled, and L must not be used again).
func runFuzzCall(t *testing.T, L *lua.LState, code string) (result string, done bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	L.SetContext(ctx)
	result = evalString(t, L, code)
	return result, ctx.Err() == nil
}

// FuzzStringLib compares find, match, gmatch and gsub with gopher-lua's on generated
// subjects, patterns and replacements, wherever gopher-lua is known to agree with C Lua
// and finishes in time. gopher-lua's matcher cannot be interrupted within one call, so
// ours runs first, under a deadline, and an input it cannot finish in time is skipped.
func FuzzStringLib(f *testing.F) {
	for _, seed := range [][3]string{
		{"hello world", "o", "0"}, {"hello world", "(o)(r)", "%2%1"}, {"hello", "()ll()", "%1"},
		{"key = value", "(%w+)%s*=%s*(%w+)", "%2=%1"}, {"  trim  ", "^%s*(.-)%s*$", "[%1]"},
		{"aaab", "a-b", "x"}, {"baaac", "a*", "-"}, {"abc", "", "-"}, {"abc", "^", ">"},
		{"abc", "$", "<"}, {"a$b", "$b", "%%"}, {"f(a(b)c)d", "%b()", "%0%0"},
		{"THE (quick) fox", "%f[%a]%a+", "W"}, {"abc123 DEF", "%a+", "%0"}, {"a \t\nb", "%s+", " "},
		{"ab!?,.cd", "%p+", ""}, {"ab\x01\x7fcd", "%c+", "?"}, {"zzBEEFzz", "%x+", "%0"},
		{"hello123", "[^a-z]+", "#"}, {"a-b", "[a-]+", "_"}, {"x]y", "[]]", "!"}, {"a^b", "[%^]", ""},
		{"A1b2", "[A-Z0-9]+", "."}, {"abcabc", "(abc)%1", "%1"}, {"one two", "%a+", "%0%0"},
		{"x.y.z", "%.", "/"}, {"50%", "%%", "%%%%"}, {"hello", "l+", "L"}, {"hello", "hel?l?o", "x"},
		{"aaa", "^a", "A"}, {"abc", "%w", "%1%1"}, {"a,b,,c", "([^,]*)", "<%1>"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a-a-a-b", ""},
		// bytes 0x80 and above are in no class but the complements (the C locale)
		{"caf\xc3\xa9 \xe2\x84\xaaelvin", "%a+", "<%0>"}, {"\x80\xff x\xa0y", "%W+", "_"},
		{"\xc3\xa9t\xc3\xa9", "[%l\x80-\xbf]+", "%0%0"}, {"A\xc4\xb0b", "%u", "%0"},
		{"\xe2\x80\xa8 \x85x", "%s+", "."}, {"\xc2\xa1!", "%p", ""}, {"\x7f\x80\x9f", "%c+", "?"},
	} {
		f.Add(seed[0], seed[1], seed[2], int8(1))
	}
	f.Fuzz(func(t *testing.T, s, p, r string, i int8) {
		if len(s) > 300 || len(p) > 40 || len(r) > 40 || !gopherAgrees(p, r) {
			t.Skip()
		}
		stock, ours := strStates(t)
		for _, L := range []*lua.LState{stock, ours} {
			if err := L.DoString(fuzzPrelude); err != nil {
				t.Fatal(err)
			}
			L.SetGlobal("s", lua.LString(s))
			L.SetGlobal("p", lua.LString(p))
			L.SetGlobal("r", lua.LString(r))
			L.SetGlobal("i", lua.LNumber(i))
		}
		for _, c := range fuzzCalls {
			code := c.code
			if c.skip != nil && c.skip(s, p, int(i)) {
				continue
			}
			got, ok := runFuzzCall(t, ours, code)
			if !ok {
				t.Skip("too slow")
			}
			want, ok := runFuzzCall(t, stock, code)
			if !ok {
				t.Skip("too slow for gopher-lua")
			}
			if got != want {
				t.Errorf("%s with s=%s p=%s r=%s i=%d\n  ours: %s\ngopher: %s", code,
					strconv.Quote(s), strconv.Quote(p), strconv.Quote(r), i, got, want)
			}
		}
	})
}

// TestFuzzFilters: the deviations the fuzz target skips are the ones it says.
func TestFuzzFilters(t *testing.T) {
	for _, tt := range []struct {
		p, r string
		want bool
	}{
		{"a+", "x", true}, {"%%", "%%", true}, {"%d", "%1", true}, {"[a-z]", "", true},
		{"%f[%a]", "", false}, {"a%", "", false}, {"%%%", "", false}, {"%b(", "", false},
		{"(a)", "", true}, {"%1", "", false}, {"[%a-z]", "", false}, {"[a", "", false},
		{"a", "%x", false}, {"a", "x%", false}, {"(a", "", false}, {"a)", "", false},
		{"(a)%1", "", true}, {"(a%1)", "", false}, {"()%1", "", false}, {"[(]", "", true},
		{"%b()", "", true}, {"%b)(", "", true},
	} {
		if got := gopherAgrees(tt.p, tt.r); got != tt.want {
			t.Errorf("gopherAgrees(%q, %q) = %v, want %v", tt.p, tt.r, got, tt.want)
		}
	}
}
