package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
)

// newFiresEngine is an engine of home that fires only pre_tool_call, as hermesctl hook
// makes one for a PreToolUse call.
func newFiresEngine(t *testing.T, opts Options) *Engine {
	t.Helper()
	opts.Fires = []hookspec.Hook{hookspec.PreToolCall}
	e, err := New(context.Background(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// statuses maps each plugin's name to its status.
func statuses(e *Engine) map[string]string {
	m := map[string]string{}
	for _, p := range e.Plugins() {
		m[p.Name] = p.Status
	}
	return m
}

// An engine that fires only some hooks loads the plugins that registered none of them only
// until it knows so: the next one skips them, and loads them again once their files change.
func TestFiresSkipsPluginsThatRegisterNoneOfThem(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, pluginFiles("guard", "", one("pre_tool_call", managedLuaGuard)))
	writeFiles(t, home, pluginFiles("memory", "", one("pre_llm_call", `return {context = "x"}`)))
	opts := Options{Home: home}

	e := newFiresEngine(t, opts) // nothing known yet: both load
	if got := statuses(e); got["guard"] != "loaded" || got["memory"] != "loaded" {
		t.Fatalf("first load: %v, want both loaded", got)
	}
	e = newFiresEngine(t, opts)
	if got := statuses(e); got["guard"] != "loaded" || got["memory"] != "skipped" {
		t.Fatalf("second load: %v, want memory skipped", got)
	}
	for _, p := range e.Plugins() {
		if p.Name == "memory" && (len(p.Hooks) != 1 || p.Hooks[0] != "pre_llm_call") {
			t.Errorf("a skipped plugin lists hooks %v, want those it registered", p.Hooks)
		}
	}
	if b := e.DecideTool(context.Background(), rmRF).Block; b == nil || b.Hook != "guard" {
		t.Fatalf("got %+v, want the guard's block", b)
	}

	// Edited to guard tool calls too: it loads, and its guard runs.
	writeFiles(t, home, pluginFiles("memory", "", "function register(ctx)\n ctx.register_hook('pre_llm_call', function(kw) end)\n"+
		" ctx.register_hook('pre_tool_call', function(kw) return {action = 'block', message = 'memory says no'} end)\nend\n"))
	e = newFiresEngine(t, opts)
	if got := statuses(e); got["memory"] != "loaded" {
		t.Fatalf("after the edit: %v, want memory loaded", got)
	}
	if b := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}).Block; b == nil || b.Hook != "memory" {
		t.Fatalf("got %+v, want the edited plugin's block", b)
	}

	// Another host (other host functions) may register otherwise: everything loads again.
	writeFiles(t, home, pluginFiles("memory", "", one("pre_llm_call", `return {context = "x"}`)))
	newFiresEngine(t, opts)
	opts.HostFuncs = map[string]hookspec.Func{"run_agent": func(context.Context, []any) (any, error) { return nil, nil }}
	if got := statuses(newFiresEngine(t, opts)); got["memory"] != "loaded" {
		t.Fatalf("with other host functions: %v, want memory loaded", got)
	}
}

// What may change between loads is never taken from the cache: a plugin whose loading read
// the clock, the store or its configuration's environment loads every time, and so does a
// managed plugin (the user's home cannot tell the engine to skip an administrator's guard).
func TestFiresAlwaysLoadsWhatMayChange(t *testing.T) {
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFiles(t, mh, pluginFiles("admin", "", one("pre_llm_call", `return nil`)))
	writeFiles(t, home, pluginFiles("clock", "", "function register(ctx)\n if os.time() > 0 then ctx.register_hook('pre_llm_call', function(kw) end) end\nend\n"))
	writeFiles(t, home, pluginFiles("stored", "", "local on = require('store').get('on')\nfunction register(ctx)\n ctx.register_hook('pre_llm_call', function(kw) end)\nend\n"))
	writeFiles(t, home, pluginFiles("plain", "", one("pre_llm_call", `return nil`)))
	opts := Options{Home: home, ManagedHome: mh}
	newFiresEngine(t, opts)
	got := statuses(newFiresEngine(t, opts))
	want := map[string]string{"admin": "loaded", "clock": "loaded", "stored": "loaded", "plain": "skipped"}
	for name, status := range want {
		if got[name] != status {
			t.Errorf("%s: %s, want %s (all: %v)", name, got[name], status, got)
		}
	}
}

// The cache is the engine's own: one that cannot be read is no cache (every plugin loads),
// an engine that may fire any hook neither reads nor writes it, and a dry run leaves no
// state in the home.
func TestFiresCacheFile(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, pluginFiles("memory", "", one("pre_llm_call", `return nil`)))
	file := filepath.Join(home, "state", regCacheFile)

	newEngine(t, home)
	if _, err := os.Stat(filepath.Join(home, "state")); err == nil {
		t.Fatal("an engine without Fires wrote the home's state directory")
	}
	newFiresEngine(t, Options{Home: home, DryRun: true})
	if _, err := os.Stat(filepath.Join(home, "state")); err == nil {
		t.Fatal("a dry run wrote the home's state directory")
	}
	newFiresEngine(t, Options{Home: home})
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no cache after a load with Fires: %v", err)
	}
	writeFile(t, file, "{not json")
	if got := statuses(newFiresEngine(t, Options{Home: home})); got["memory"] != "loaded" {
		t.Fatalf("with a corrupt cache: %v, want memory loaded", got)
	}
	if got := statuses(newFiresEngine(t, Options{Home: home})); got["memory"] != "skipped" {
		t.Fatalf("after the corrupt cache was rewritten: %v, want memory skipped", got)
	}

	// A link put in its place is neither read (the file it points to could say anything) nor
	// written through.
	if runtime.GOOS == "windows" {
		return
	}
	good, _ := os.ReadFile(file)
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	writeFile(t, target, string(good))
	os.Remove(file)
	if err := os.Symlink(target, file); err != nil {
		t.Fatal(err)
	}
	if got := statuses(newFiresEngine(t, Options{Home: home})); got["memory"] != "loaded" {
		t.Fatalf("with the cache a link: %v, want memory loaded", got)
	}
	if after, _ := os.ReadFile(target); string(after) != string(good) {
		t.Errorf("the file the link points to was written: %s", after)
	}
}

// Shell hooks of points the engine never fires are not loaded: their consent is not asked
// for, and no warning about them reaches an agent's call.
func TestFiresLoadsOnlyTheirShellHooks(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{"config.yaml": "hooks:\n  pre_tool_call:\n    - command: ./a.sh\n  pre_llm_call:\n    - command: ./b.sh\n"})
	e := newFiresEngine(t, Options{Home: home})
	hooks := e.ShellHooks()
	if len(hooks) != 1 || hooks[0].Event != "pre_tool_call" {
		t.Fatalf("shell hooks %+v, want only the pre_tool_call one", hooks)
	}
}
