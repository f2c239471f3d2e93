package luabind

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
)

// A plugin whose loading read anything from outside its source may register other hooks at
// another load, so it is not Pure: an engine then never trusts a cached list of its hooks.
func TestPureLoading(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o644)
	withFS := Options{Permissions: hookspec.Permissions{FS: []string{dir}}}
	withEnv := Options{Permissions: hookspec.Permissions{Env: []string{"HOME"}}}
	host := Options{HostFuncs: map[string]hookspec.Func{"flag": func(context.Context, []any) (any, error) { return true, nil }}}
	register := "\nfunction register(ctx) ctx.register_hook('pre_tool_call', function(kw) return nil end) end\n"
	for _, c := range []struct {
		name, top string
		opts      Options
		pure      bool
	}{
		{"constants, json, re, string work", `local json, re = require("json"), require("re")
local t = json.decode('{"a":[1,2]}'); local m = re.match("abc", "b"); local s = string.rep("x", 3) .. tostring(#t.a)`, Options{}, true},
		{"requiring modules only", `local store, time = require("store"), require("time")`, Options{Store: sqliteStore(t, "plugin:p")}, true},
		{"ctx.config and hermes constants", `local h = require("hermes"); local v = h.version .. h.home`, Options{Config: map[string]any{"on": true}}, true},
		{"os.time", `local t = os.time()`, Options{}, false},
		{"os.clock", `local t = os.clock()`, Options{}, false},
		{"os.date", `local t = os.date("%H")`, Options{}, false},
		{"os.getenv", `local v = os.getenv("HOME")`, withEnv, false},
		{"math.random", `local r = math.random(10)`, Options{}, false},
		{"time.now", `local n = require("time").now()`, Options{}, false},
		{"time.sleep", `require("time").sleep(0.001)`, Options{}, false},
		{"store.get", `local v = require("store").get("on")`, Options{Store: sqliteStore(t, "plugin:q")}, false},
		{"a host function", `local v = require("hermes").flag()`, host, false},
		{"io.open", `local f = io.open("` + filepath.Join(dir, "f.txt") + `"); f:close()`, withFS, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := loadPlugin(t, c.top+register, c.opts)
			if got := p.Pure(); got != c.pure {
				t.Errorf("Pure() = %v, want %v", got, c.pure)
			}
		})
	}
	// Inside register too, not only at the top level.
	p := loadPlugin(t, "function register(ctx)\n if os.time() > 0 then ctx.register_hook('pre_tool_call', function(kw) end) end\nend\n", Options{})
	if p.Pure() {
		t.Error("a register that reads the clock is Pure")
	}
	// A call later does not make a pure plugin impure: Pure is about loading.
	p = loadPlugin(t, "function register(ctx) ctx.register_hook('pre_tool_call', function(kw) return os.time() end) end\n", Options{})
	if _, err := p.Call(t.Context(), 0, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if !p.Pure() {
		t.Error("a plugin that reads the clock in a callback (not at load) is not Pure")
	}
}
