package stdlib

import (
	"context"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// TestOsDateLikeInterpreter: os.date gives what the interpreter's gives, for every
// conversion, plain text, "%%", a final '%' and the "*t" table.
func TestOsDateLikeInterpreter(t *testing.T) {
	stock, ours := strStates(t)
	InstallOs(ours)
	for _, f := range []string{"", "plain", "%", "%%", "%%%", "a%%b%", "%q%!", "!%c", "!%a %A %b %B %c %d %F %H %I %m %M %p %P %S %w %x %X %y %Y %z %Z",
		"!x%Yy%%%mz", "!" + strings.Repeat("%d.", 100)} {
		for _, code := range []string{`os.date(%q, 1700000000)`, `R(os.date(%q, 1700000000))`} {
			code = strings.Replace(code, "%q", luaQuote(f), 1)
			if want, got := evalString(t, stock, code), evalString(t, ours, code); got != want || got == "error" {
				t.Errorf("%s: %s, want %s", code, got, want)
			}
		}
	}
	const table = `(function(t) return t.year .. "-" .. t.month .. "-" .. t.day .. " " .. t.hour .. ":" .. t.min .. ":" .. t.sec .. " " .. t.wday end)(os.date("!*t", 1700000000))`
	if want, got := evalString(t, stock, table), evalString(t, ours, table); got != want || got == "error" {
		t.Errorf("*t: %s, want %s", got, want)
	}
}

// luaQuote writes s as a Lua string literal.
func luaQuote(s string) string { return string(AppendQuoted(nil, s)) }

// errContext is a context whose Err says it was cancelled while its Done never closes: the
// interpreter's polls between instructions pass, and only a library function's Poller stops.
type errContext struct{ context.Context }

func (errContext) Err() error { return context.Canceled }

// TestOsDateBounded: a format of millions of conversions stops at the call's context, at
// the state's memory limit and at limits.MaxStringSize, and "%%" repeated a million times
// is a string of a million '%'.
func TestOsDateBounded(t *testing.T) {
	run := func(setup func(L *lua.LState), code string) error {
		L := lua.NewState()
		defer L.Close()
		InstallOs(L)
		setup(L)
		return L.DoString(code)
	}
	cancelled := func(L *lua.LState) { L.SetContext(errContext{context.Background()}) }
	limited := func(L *lua.LState) {
		L.SetMemoryLimit(lua.MemoryLimit{Limit: 16 << 20, Message: "limit exceeded: memory"})
	}
	for _, tt := range []struct {
		name  string
		setup func(L *lua.LState)
		code  string
		want  string
	}{
		{"cancelled", cancelled, `local f = string.rep("%c", 1e6) return os.date(f)`, context.Canceled.Error()},
		{"memory", limited, `return os.date(string.rep("%c", 1e6))`, "limit exceeded: memory"},
		{"size", func(*lua.LState) {}, `local s = string.rep("x", 2^25) return os.date(s .. "%d%d" .. s)`, "os.date result larger than 64 MiB"},
		{"percent", func(*lua.LState) {}, `assert(os.date(string.rep("%%", 1e6)) == string.rep("%", 1e6))`, ""},
	} {
		err := run(tt.setup, tt.code)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
