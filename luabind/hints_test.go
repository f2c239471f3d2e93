package luabind

import (
	"context"
	"strings"
	"testing"
)

// Error messages say what C Lua would: what was nil, which block is not closed, and how to
// write "not equal".
func TestErrorMessagesSayWhat(t *testing.T) {
	t.Parallel()
	reg := func(body string) string { return "function register(ctx)\n" + body + "\nend\n" }
	tests := []struct{ name, src, want string }{
		{"missing end of a callback", "function register(ctx)\n  ctx.register_hook(\"x\", function(kw)\n    return 1\n  )\nend\n",
			"h.lua:4: 'end' expected (to close 'function' at line 2) near ')'"},
		{"!=", reg("  if 1 != 2 then end"), "h.lua:2: '!=' is not Lua: write ~= for \"not equal\""},
		{"unclosed table", reg("  local t = {a = 1\n  return t"), "h.lua:3: '}' expected (to close '{' at line 2) near 'return'"},
		{"missing end at the end", reg("  for i = 1, 2 do\n    x = i"), "'end' expected (to close 'function' at line 1) at end of file"},
		{"unclosed repeat", reg("  repeat\n    x = 1\n  end"), "'until' expected (to close 'repeat' at line 2) near 'end'"},
		{"other syntax errors stay", reg("  x = = 1"), "h.lua:2: syntax error near '='"},
		{"a misspelled global", reg("  undefinedfn(1)"), "h.lua:2: error in register(ctx): attempt to call global 'undefinedfn' (a nil value)"},
		{"a misspelled module function", reg("  local json = require('json')\n  json.encod({})"), "attempt to call field 'encod' (a nil value)"},
		{"a method", reg("  local m = {}\n  m:go(1)"), "attempt to call method 'go' (a nil value)"},
		{"a nil local", reg("  local x = nil\n  x.y = 1"), "attempt to index local 'x' (a nil value) with key 'y'"},
		{"a nil field", reg("  local v = ctx.config.threshold"), "attempt to index field 'config' (a nil value) with key 'threshold'"},
		{"a nil global", reg("  x = y.z"), "attempt to index global 'y' (a nil value) with key 'z'"},
	}
	for _, tt := range tests {
		_, err := LoadPlugin(context.Background(), []byte(tt.src), Options{File: "h.lua"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// At call time too, in a callback.
	p := loadPlugin(t, "function register(ctx)\n  ctx.register_hook(\"x\", function(kw)\n    return kw.args.command:upper()\n  end)\nend\n", Options{File: "cb.lua"})
	_, err := p.Call(context.Background(), 0, map[string]any{})
	if want := "cb.lua:3: attempt to index field 'args' (a nil value) with key 'command'"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("callback: %v, want %q", err, want)
	}
}

// FuzzCompileErrors: any source compiles or fails with a located *Error; the rewriting of
// syntax messages never panics.
func FuzzCompileErrors(f *testing.F) {
	for _, s := range []string{"function f(\n", "if 1 != 2 then end", "local t = {a = 1\nreturn t", "x = = 1", "repeat x = 1 end", "a.b.c(", "]])}end until"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, src string, line int) {
		_, err := compile("f.lua", []byte(src))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
		_ = syntaxHint([]byte(src), line, ")", "syntax error")
	})
}
