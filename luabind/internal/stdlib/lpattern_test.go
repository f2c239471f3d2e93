package stdlib

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// callGo calls the Go function fn with args in L and returns its results, or its error.
func callGo(L *lua.LState, fn lua.LGFunction, args ...lua.LValue) ([]lua.LValue, error) {
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(L.NewFunction(fn))
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), lua.MultRet, nil); err != nil {
		return nil, err
	}
	var out []lua.LValue
	for i := top + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	return out, nil
}

// TestPatternErrors: malformed patterns raise C Lua 5.1's messages, when the matcher
// reaches the mistake (as in C Lua, a mistake after a failing item goes unnoticed).
func TestPatternErrors(t *testing.T) {
	tests := []struct{ subject, pattern, want string }{
		{"a", "%", "malformed pattern (ends with '%')"},
		{"a", "a%", "malformed pattern (ends with '%')"},
		{"a", "[a", "malformed pattern (missing ']')"},
		{"a", "[^", "malformed pattern (missing ']')"},
		{"a", "[%", "malformed pattern (missing ']')"},
		{"a", "[]", "malformed pattern (missing ']')"},
		{"a", "(a", "unfinished capture"},
		{"a", "a)", ""}, // no special character: a plain search
		{"ab", "a.)", "invalid pattern capture"},
		{"a", "%1", "invalid capture index"},
		{"a", "(a%1)", "invalid capture index"},
		{"a", "%0", "invalid capture index"},
		{"a", "%b", "unbalanced pattern"},
		{"a", "%bx", "unbalanced pattern"},
		{"a", "%f", "missing '[' after '%f' in pattern"},
		{"a", "%fa", "missing '[' after '%f' in pattern"},
		{"a", strings.Repeat("(", 33) + "a" + strings.Repeat(")", 33), "too many captures"},
		{strings.Repeat("a", 2000), strings.Repeat("a?", 2000), "pattern too complex"},
		{"b", "(a", ""}, // no match, so the unfinished capture is never seen
		{"b", "x%", ""},
	}
	L := lua.NewState()
	defer L.Close()
	for _, tt := range tests {
		_, err := callGo(L, strFind, lua.LString(tt.subject), lua.LString(tt.pattern))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("find(%q, %q): %v, want no error", tt.subject, tt.pattern, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("find(%q, %q): %v, want %q", tt.subject, tt.pattern, err, tt.want)
		}
	}
}

// TestReplacementErrors: gsub's replacement string allows %0-%9 and %% only.
func TestReplacementErrors(t *testing.T) {
	tests := []struct{ pattern, repl, want string }{
		{"b", "%x", "invalid use of '%' in replacement string"},
		{"b", "x%", "invalid use of '%' in replacement string"},
		{"b", "%2", "invalid capture index"},
		{"(b)", "%2", "invalid capture index"},
		{"x", "%x", ""}, // no match: the replacement is never read
	}
	L := lua.NewState()
	defer L.Close()
	for _, tt := range tests {
		_, err := callGo(L, strGsub, lua.LString("abc"), lua.LString(tt.pattern), lua.LString(tt.repl))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("gsub(%q, %q): %v, want no error", tt.pattern, tt.repl, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("gsub(%q, %q): %v, want %q", tt.pattern, tt.repl, err, tt.want)
		}
	}
}

// TestMatcherPolls: a matcher stops with the context's error once the context of its
// state is done, whether the work is one long match or many short ones.
func TestMatcherPolls(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	L := lua.NewState()
	defer L.Close()
	L.SetContext(ctx)
	long := lua.LString(strings.Repeat("a", 5000))
	tests := []struct {
		name string
		fn   lua.LGFunction
		args []lua.LValue
	}{
		{"find", strFind, []lua.LValue{long, lua.LString("a-a-a-b")}},
		{"match", strMatch, []lua.LValue{long, lua.LString(".-.-.-b")}},
		{"gsub", strGsub, []lua.LValue{long + long, lua.LString(""), lua.LString("")}},
		{"balance", strFind, []lua.LValue{lua.LString(strings.Repeat("(", 1e6)), lua.LString("%b()")}},
	}
	for _, tt := range tests {
		start := time.Now()
		_, err := callGo(L, tt.fn, tt.args...)
		if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
			t.Errorf("%s: %v, want the context's error", tt.name, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: stopped after %v", tt.name, took)
		}
	}
}

// TestMatchClass compares the classes with their definitions in the C locale.
func TestMatchClass(t *testing.T) {
	classes := map[byte]*regexp.Regexp{
		'a': regexp.MustCompile(`^[A-Za-z]$`),
		'c': regexp.MustCompile(`^[\x00-\x1f\x7f]$`),
		'd': regexp.MustCompile(`^[0-9]$`),
		'l': regexp.MustCompile(`^[a-z]$`),
		'p': regexp.MustCompile("^[!-/:-@\\[-`{-~]$"),
		's': regexp.MustCompile(`^[ \t\n\v\f\r]$`),
		'u': regexp.MustCompile(`^[A-Z]$`),
		'w': regexp.MustCompile(`^[A-Za-z0-9]$`),
		'x': regexp.MustCompile(`^[0-9A-Fa-f]$`),
		'z': regexp.MustCompile(`^\x00$`),
	}
	for cl, re := range classes {
		for c := range 256 {
			want := re.MatchString(string([]byte{byte(c)}))
			if got := matchClass(byte(c), cl); got != want {
				t.Errorf("%%%c against %q: %v, want %v", cl, byte(c), got, want)
			}
			if got := matchClass(byte(c), cl-32); got == want {
				t.Errorf("%%%c against %q: %v, want %v", cl-32, byte(c), got, !want)
			}
		}
	}
	if !matchClass('.', '.') || matchClass('a', '.') {
		t.Error("a non-letter class must stand for itself")
	}
}

// benchStates returns gopher-lua's string library and ours, each in a state with a
// function f running code.
func benchStates(b *testing.B, code string) map[string]*lua.LState {
	states := map[string]*lua.LState{"gopher-lua": lua.NewState(), "ours": lua.NewState()}
	InstallString(states["ours"])
	for _, L := range states {
		if err := L.DoString("s = string.rep('hello world, ', 100) .. 'needle'\nfunction f() " + code + " end"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(L.Close)
	}
	return states
}

func BenchmarkStringLib(b *testing.B) {
	for _, bc := range []struct{ name, code string }{
		{"find-plain", `return string.find(s, "needle", 1, true)`},
		{"find-pattern", `return string.find(s, "n%a+e")`},
		{"match-captures", `return string.match(s, "(%a+), (%a+)needle")`},
		{"gsub", `return string.gsub(s, "o", "0")`},
		{"gsub-empty", `return string.gsub(s, "", "")`},
		{"gmatch", `local n = 0 for w in string.gmatch(s, "%a+") do n = n + 1 end return n`},
		{"format", `return string.format("%s=%d (%5.2f)", "key", 42, 3.14159)`},
	} {
		for name, L := range benchStates(b, bc.code) {
			b.Run(bc.name+"/"+name, func(b *testing.B) {
				f := L.GetGlobal("f")
				for b.Loop() {
					if err := L.CallByParam(lua.P{Fn: f, NRet: 0, Protect: true}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
