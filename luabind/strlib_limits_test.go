package luabind

import (
	"context"
	"github.com/hermes-hooks/hermes/hookspec"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/luabind/internal/limits"
)

// TestStringMethodsAreOurs: s:find and the other methods reach the string table through
// the string metatable, so they are the functions stdlib.InstallString put there.
func TestStringMethodsAreOurs(t *testing.T) {
	got, err := eval(t, `local s = "THE (quick) fox"
local a, b = s:find("%f[%a]%a+", 4) -- gopher-lua has no %f
return {s.find == string.find, s.gsub == string.gsub, s.format == string.format,
  s.rep == string.rep, s.match == string.match, s.gmatch == string.gmatch, a, b}`, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{true, true, true, true, true, true, int64(6), int64(10)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestStringLibResultsAreBounded: every library function that builds a string refuses,
// before building it, a result larger than limits.MaxStringSize, with a limit error naming it;
// the heap does not grow by much more than what the hook itself holds. The memory guard is
// off, so that the refusal is the function's own.
func TestStringLibResultsAreBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("builds strings of 64 MiB in one call, one goroutine: run without -race")
	}
	const big = `local s = string.rep("x", 16 * 2^20) local t = {} for i = 1, 2000 do t[i] = s end
`
	tests := []struct{ name, src, want string }{
		{"table.concat", big + `return #table.concat(t)`, "table.concat result larger than 64 MiB"},
		{"table.concat separator", `local t = {} for i = 1, 2^20 do t[i] = "" end return #table.concat(t, string.rep("-", 128))`, "table.concat result larger than"},
		{"string.gsub", big + `return #(string.rep("a", 2000):gsub("a", s))`, "string.gsub result larger than 64 MiB"},
		{"string.gsub %0", `return #(string.rep("x", 2^20):gsub(".+", string.rep("%0", 100)))`, "string.gsub result larger than"},
		{"string.gsub function", big + `return #(string.rep("a", 2000):gsub("a", function() return s end))`, "string.gsub result larger than"},
		{"string.gsub table", big + `return #(string.rep("a", 2000):gsub("a", {a = s}))`, "string.gsub result larger than"},
		{"string.format", big + `return #string.format(string.rep("%s", 100), unpack(t, 1, 100))`, "string.format result larger than 64 MiB"},
		{"string.format %q", `local s = string.rep("\0", 20 * 2^20) return #string.format("%q", s)`, "string.format result larger than"},
		{"string.rep", `return #string.rep("x", 2^40)`, "string.rep result larger than 64 MiB"},
		{"string.rep of a big string", big + `return #string.rep(s, 5)`, "string.rep result larger than"},
		{"json.encode", big + `return #require("json").encode(t)`, "json.encode result larger than 64 MiB"},
		{"json.encode escapes", `return #require("json").encode({string.rep("\1", 12 * 2^20)})`, "json.encode result larger than"},
		{"re.gsub", big + `return #require("re").gsub(string.rep("a", 2000), "a", s)`, "re.gsub result larger than 64 MiB"},
		{"re.gsub $0", `return #require("re").gsub(string.rep("x", 2^20), ".+", string.rep("$0", 100))`, "re.gsub result larger than"},
		{"re.gsub function", big + `return #require("re").gsub(string.rep("a", 2000), "a", function() return s end)`, "re.gsub result larger than"},
		{"re.find_all", `return #require("re").find_all(string.rep("a", 2^21), "a")`, "re.find_all result larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The timeout only stops a hang: under -race on a busy machine re.find_all's
			// 2^20 matches take more than 20 s before the limit refuses the next.
			p := loadPlugin(t, runawayPlugin, Options{Timeout: 3 * time.Minute, MemoryLimit: -1})
			before := heapAlloc()
			stop := heapPeak()
			_, err := p.Call(context.Background(), 0, map[string]any{"src": tt.src})
			peak := stop()
			wantErr(t, tt.name, err, KindLimit, tt.want)
			t.Logf("heap before %.1f MiB, peak %.1f MiB", mib(before), mib(peak))
			if peak > before+2*limits.MaxStringSize+32<<20 {
				t.Errorf("heap grew from %.1f MiB to %.1f MiB: more than twice the string limit", mib(before), mib(peak))
			}
		})
	}
}

// TestStringLibWithinTheLimits: results up to the limit are built.
func TestStringLibWithinTheLimits(t *testing.T) {
	tests := []struct {
		src  string
		want any
	}{
		{`local t = {} for i = 1, 4 do t[i] = string.rep("x", 2^20) end return #table.concat(t, ",")`, int64(4<<20 + 3)},
		{`return #(string.rep("a", 64):gsub("a", string.rep("y", 2^20)))`, int64(64 << 20)},
		{`return #string.format("%s%s", string.rep("x", 32 * 2^20), string.rep("y", 32 * 2^20))`, int64(64 << 20)},
		{`return #require("json").encode({string.rep("x", 2^20), string.rep("\n", 2^20)})`, int64(3<<20 + 7)},
		{`return #require("re").gsub(string.rep("a", 64), "a", string.rep("y", 2^20))`, int64(64 << 20)},
		{`return #require("re").find_all(string.rep("ab", 1000), "a")`, int64(1000)},
		{`return require("re").gsub("a-b", "(\\w)", "$1$$")`, "a$-b$"},
	}
	for _, tt := range tests {
		got, err := hostileCall(t, tt.src, nil)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %v, %v; want %v", tt.src, got, err, tt.want)
		}
	}
}

// TestPathologicalPatternsTimeOut: a pattern that backtracks for minutes stops at the
// call's timeout, and the state serves the next call.
func TestPathologicalPatternsTimeOut(t *testing.T) {
	tests := []struct{ name, src string }{
		{"find 300", `return string.find(("a"):rep(300), "a-a-a-b")`},
		{"find 5000", `return string.find(("a"):rep(5000), "a-a-a-b")`},
		{"match", `return string.match(("a"):rep(5000), "(.-)(.-)(.-)b")`},
		{"gmatch", `for a in string.gmatch(("a"):rep(5000), "a*a*a*a*b") do end`},
		{"gsub", `return string.gsub(("a"):rep(5000), ".-.-.-b", "")`},
		{"method", `return (("a"):rep(5000)):find(".-.-.-b")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := loadPlugin(t, runawayPlugin, Options{Timeout: time.Second})
			start := time.Now()
			_, err := p.Call(context.Background(), 0, map[string]any{"src": tt.src})
			took := time.Since(start)
			wantErr(t, tt.name, err, KindTimeout, "timed out")
			t.Logf("stopped after %v", took)
			if took > 3*time.Second {
				t.Errorf("stopped after %v, want about the 1s timeout", took)
			}
			if got, err := p.Call(context.Background(), 1, nil); got != "fine" || err != nil {
				t.Errorf("next call: got %v, %v", got, err)
			}
		})
	}
}

// TestPatternCanceledByTheHost: cancelling the caller's context stops a match in progress.
func TestPatternCanceledByTheHost(t *testing.T) {
	started := make(chan struct{})
	host := map[string]hookspec.Func{"started": func(context.Context, []any) (any, error) {
		close(started)
		return nil, nil
	}}
	p := loadPlugin(t, `function register(ctx)
  ctx.register_hook("x", function()
    require("hermes").started()
    return string.find(("a"):rep(5000), "a-a-a-b")
  end)
end`, Options{Timeout: time.Minute, HostFuncs: host})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	start := time.Now()
	_, err := p.Call(ctx, 0, nil)
	wantErr(t, "cancel", err, KindCanceled, "canceled")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopped after %v", took)
	}
}

// TestEmptyPatternGsubIsLinear: gopher-lua's gsub copies the whole result for every
// match, so an empty pattern over 256 KiB takes tens of seconds; ours is linear.
func TestEmptyPatternGsubIsLinear(t *testing.T) {
	start := time.Now()
	got, err := eval(t, `local s = ("x"):rep(262144)
local r, n = string.gsub(s, "", "")
local r2, n2 = string.gsub(s, "", "-")
return {r == s, n, #r2, n2, r2:sub(1, 5)}`, nil, Options{Timeout: 20 * time.Second})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{true, int64(262145), int64(2*262144 + 1), int64(262145), "-x-x-"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	t.Logf("took %v", took)
	if took > 5*time.Second {
		t.Errorf("took %v", took)
	}
}

// TestReGsubMatchesGo: re.gsub replaces what regexp's ReplaceAllString replaces, with the
// same rule for empty matches, whether the search resumes in the middle of the subject or
// (for ^, \b and the like) goes through ReplaceAllStringFunc.
func TestReGsubMatchesGo(t *testing.T) {
	tests := []struct{ pattern, subject, repl string }{
		{`a*`, "baaac", "-"},
		{``, "héllo", "."},
		{`x*`, "", "-"},
		{`(\w)(\d)`, "a1 b2 c", "${2}${1}"},
		{`(?P<k>\w+)=(?P<v>\w+)`, "a=1, b=2", "$v=$k$$"},
		{`\d+`, "x12y345z", "<$0>"},
		{`é|l+`, "héllo", "[$0]"},
		{`\bfoo\b`, "foo food foo", "bar"},
		{`^\s+|\s+$`, "  trim  ", ""},
		{`(?m)^`, "a\nb\nc", "> "},
		{`\B`, "abc", "."},
		{`(a)|(b)`, "abc", "[$1|$2]"},
	}
	for _, tt := range tests {
		want := regexp.MustCompile(tt.pattern).ReplaceAllString(tt.subject, tt.repl)
		got, err := hostileCall(t, `local s = require("re").gsub(kw.s, kw.p, kw.r) return s`,
			map[string]any{"s": tt.subject, "p": tt.pattern, "r": tt.repl})
		if err != nil || got != want {
			t.Errorf("re.gsub(%q, %q, %q) = %v, %v; want %q", tt.subject, tt.pattern, tt.repl, got, err, want)
		}
	}
	got, err := hostileCall(t, `local re = require("re")
local s, n = re.gsub("a1b22c", "(\\d)(\\d?)", function(m, a) return "<" .. m .. "|" .. a .. ">" end)
local t, m = re.gsub("ab", "", function() end)
return {s, n, t, m}`, nil)
	if diff := cmp.Diff([]any{"a<1|1>b<22|2>c", int64(2), "ab", int64(3)}, got); err != nil || diff != "" {
		t.Errorf("function replacement: %v (-want +got):\n%s", err, diff)
	}
}
