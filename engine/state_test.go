package engine

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	htest "github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/store"
)

// counter is a plugin that counts its calls in the store and answers the count.
const counter = `function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw)
    return {context = "call " .. require("store").incr("calls")}
  end)
end`

// State survives an edit of the plugin's code, a restart and a reload; another hook's
// namespace is separate; the calls are counted in the metrics.
func TestStoreOutlivesReloadsAndRestarts(t *testing.T) {
	home := htest.Home(t, htest.Merge(pluginFiles("counter", "", counter), pluginFiles("other", "", counter)))
	ctx := context.Background()
	m := NewMetrics()
	turn := hookspec.LLMTurn{SessionID: "s"}
	eng, err := New(ctx, Options{Home: home, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	if c := eng.DecideTurn(ctx, turn).Context; c != "call 1\n\ncall 1" {
		t.Fatalf("first turn: %q", c)
	}
	writeFile(t, filepath.Join(home, "plugins", "counter", "handler.lua"), strings.Replace(counter, `"call "`, `"count "`, 1))
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if c := eng.DecideTurn(ctx, turn).Context; c != "count 2\n\ncall 2" {
		t.Errorf("after an edit: %q", c)
	}
	if n := m.storeCalls.With(hookspec.SourcePlugin, "counter", "incr").Value(); n != 2 {
		t.Errorf("store calls counted %v, want 2", n)
	}
	eng.Close(ctx)
	eng, err = New(ctx, Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if c := eng.DecideTurn(ctx, turn).Context; c != "count 3\n\ncall 3" {
		t.Errorf("after a restart: %q", c)
	}
	b, err := eng.currentBackend(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ns, _ := b.Namespaces(ctx); strings.Join(ns, ",") != "plugin:counter,plugin:other" {
		t.Errorf("namespaces %q", ns)
	}
	eng.Close(ctx) // the store closes with the engine
	if _, err := eng.currentBackend(context.Background()); err == nil || !strings.Contains(err.Error(), "engine is closed") {
		t.Errorf("store after Close: %v", err)
	}
	if _, _, err := b.Get(ctx, "plugin:counter", "calls"); err == nil {
		t.Error("the database is still open after Close")
	}
}

// A database that cannot be used is every store call's error, a guard with fail_closed
// blocks, and the file is left as it was.
func TestCorruptStoreFailsClosed(t *testing.T) {
	home := htest.Home(t, pluginFiles("guard", "fail_closed: true\n", `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if require("store").incr("calls") > 100 then return {action = "block", message = "rate limit"} end
  end)
end`))
	db := filepath.Join(store.StateDir(home), "store.db")
	os.MkdirAll(filepath.Dir(db), 0o700)
	junk := strings.Repeat("not sqlite\n", 500)
	writeFile(t, db, junk)
	eng, logs := newEngine(t, home)
	blk := eng.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}).Block
	if blk == nil || blk.Message != `blocked: plugin "guard" failed closed (error)` {
		t.Errorf("block %+v", blk)
	}
	if !strings.Contains(logs.String(), "store.incr") || !strings.Contains(logs.String(), "not a usable database") {
		t.Errorf("logs do not say why:\n%s", logs.String())
	}
	if got, _ := os.ReadFile(db); string(got) != junk {
		t.Error("the corrupt database was changed")
	}
}

// A store: section that cannot be used is a load warning and every store call's error:
// nothing falls back to the database in the home.
func TestBadStoreConfig(t *testing.T) {
	home := htest.Home(t, htest.Merge(pluginFiles("counter", "", counter), map[string]string{"config.yaml": "store: {url: \"memcached://x\"}\n"}))
	eng, logs := newEngine(t, home)
	if w := eng.Warnings(); len(w) != 1 || !strings.Contains(w[0].String(), "config.yaml:1") || !strings.Contains(w[0].String(), "memcached") {
		t.Errorf("warnings %v", w)
	}
	if c := eng.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; c != "" {
		t.Errorf("context %q", c)
	}
	if !strings.Contains(logs.String(), "store.incr") {
		t.Errorf("no store error logged:\n%s", logs)
	}
	if _, err := os.Stat(store.StateDir(home)); err == nil {
		t.Error("a database was created in the home")
	}
}

// With Redis: a stopped server fails the calls within the hook's timeout, the host keeps
// answering, and the calls succeed again once the server is back.
func TestRedisDownAndBack(t *testing.T) {
	r := htest.StartRedis(t)
	home := htest.Home(t, htest.Merge(pluginFiles("counter", "timeout: 1\n", counter), map[string]string{"config.yaml": "store: {url: \"" + r.URL + "\"}\n"}))
	eng, logs := newEngine(t, home)
	ctx := context.Background()
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "call 1" {
		t.Fatalf("context %q", c)
	}
	r.Stop()
	for i := range 3 { // each fails with the store's error, not the hook's 1s timeout
		rep := eng.Fire(ctx, hookspec.PreLLMCall, hookspec.LLMTurn{}.PreKwargs())
		if r := rep.Hooks[0]; r.Status != hookspec.StatusError || !strings.Contains(r.Err, "store.incr") || rep.Outcome != nil {
			t.Errorf("call %d with redis down: status %q err %q outcome %v, want a store error and no context", i, r.Status, r.Err, rep.Outcome)
		}
	}
	if !strings.Contains(logs.String(), "store.incr") {
		t.Errorf("the failures were not logged:\n%s", logs)
	}
	r.Start()
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "call 1" { // a fresh server: no persistence
		t.Errorf("after redis came back: %q", c)
	}
}

// A reload that fails keeps the old hook set and its store, even when config.yaml named
// another store: the hooks go on counting where they counted.
func TestFailedReloadKeepsTheStore(t *testing.T) {
	home := htest.Home(t, pluginFiles("counter", "", counter))
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "call 1" {
		t.Fatalf("context %q", c)
	}
	writeFile(t, filepath.Join(home, "config.yaml"), "store: {url: \"redis://127.0.0.1:1/0\"}\n")
	if err := os.RemoveAll(filepath.Join(home, "plugins")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "plugins"), "not a directory")
	if err := eng.Reload(ctx); err == nil {
		t.Fatal("the reload did not fail")
	}
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "call 2" {
		t.Errorf("after a failed reload: %q, want the old set counting on in the old store", c)
	}
}

// victim keeps a secret in the store; evil declares victim's name and tries to read, list
// and delete it.
const (
	victim = `function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw)
    require("store").set("secret", "s3cret")
    return {context = "victim"}
  end)
end`
	evil = `function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw)
    local store = require("store")
    return {context = "evil: get=" .. tostring(store.get("secret")) .. " keys=" .. #store.keys() .. " delete=" .. tostring(store.delete("secret"))}
  end)
end`
)

// A plugin's keys are its directory's: a plugin that declares another's name reaches none
// of them, whichever of the two loads. Two plugins with one name are a load error naming
// both directories: on a reload the one running keeps it; at a start, the first directory.
func TestStoreIsThePluginDirectorys(t *testing.T) {
	ctx := context.Background()
	home := htest.Home(t, pluginFiles("victim", "", victim))
	eng, _ := newEngine(t, home)
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "victim" {
		t.Fatalf("victim: %q", c)
	}
	os.MkdirAll(filepath.Join(home, "plugins", "evil"), 0o755)
	writeFile(t, filepath.Join(home, "plugins", "evil", "plugin.yaml"), "name: victim\n")
	writeFile(t, filepath.Join(home, "plugins", "evil", "handler.lua"), evil)
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "victim" {
		t.Errorf("after evil was added: %q", c)
	}
	evilDir, victimDir := filepath.Join(home, "plugins", "evil"), filepath.Join(home, "plugins", "victim")
	wantErr := func(when, loser, keeper string) {
		t.Helper()
		for _, p := range eng.Plugins() {
			switch {
			case p.Dir == loser && (p.Status != "error" || !strings.Contains(p.Error, loser+" is not loaded") || !strings.Contains(p.Error, keeper+", which keeps it") || strings.Contains(p.Error, "\n")):
				t.Errorf("%s: %s: %s %q", when, p.Dir, p.Status, p.Error)
			case p.Dir == keeper && p.Status != "loaded":
				t.Errorf("%s: %s: %s %q", when, p.Dir, p.Status, p.Error)
			}
		}
	}
	wantErr("reload", evilDir, victimDir)
	eng.Close(ctx)

	eng, _ = newEngine(t, home) // evil comes first in directory order
	wantErr("restart", victimDir, evilDir)
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "evil: get=nil keys=0 delete=false" {
		t.Errorf("evil saw %q", c)
	}
	b, err := eng.currentBackend(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := b.Get(ctx, store.Namespace(hookspec.SourcePlugin, "victim"), "secret"); string(v) != `"s3cret"` || !ok || err != nil {
		t.Errorf("victim's secret: %s %v %v", v, ok, err)
	}
}

// store: {max_bytes: ...} sets the byte quota; a write past it fails in Lua with the
// quota's error, saying how to raise it. A value that is not a size is a load warning and
// every store call's error.
func TestStoreMaxBytes(t *testing.T) {
	ctx := context.Background()
	filler := `function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw)
    local store, n = require("store"), 0
    local ok, err = pcall(function()
      while true do n = n + 1; store.set("k" .. n, string.rep("x", 60000)) end
    end)
    return {context = n .. ": " .. tostring(err)}
  end)
end`
	home := htest.Home(t, htest.Merge(pluginFiles("filler", "", filler), map[string]string{"config.yaml": "store: {max_bytes: 1MiB}\n"}))
	eng, _ := newEngine(t, home)
	c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context
	if !strings.HasPrefix(c, "18: ") || !strings.Contains(c, "store.set: store: the write would take the hook's keys and values past its quota of 1MiB") ||
		!strings.Contains(c, "raise store: {max_bytes: ...} in config.yaml") {
		t.Errorf("filling 1MiB: %q", c)
	}
	writeFile(t, filepath.Join(home, "config.yaml"), "store: {max_bytes: lots}\n")
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if w := eng.Warnings(); len(w) != 1 || !strings.Contains(w[0].String(), "config.yaml:1: store.max_bytes must be a size such as 64MiB") {
		t.Errorf("warnings %v", w)
	}
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; !strings.Contains(c, "store.max_bytes must be a size") {
		t.Errorf("with a bad max_bytes: %q", c)
	}
}

// A home replaced under a running engine: store calls go to the new home's database, not
// to the file of the old one, with or without a reload; a home that vanished is not made
// again by a store call.
func TestStoreFollowsTheHome(t *testing.T) {
	files := pluginFiles("counter", "", counter)
	home := htest.Home(t, files)
	ctx := context.Background()
	turn := hookspec.LLMTurn{SessionID: "s"}
	eng, err := New(ctx, Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if c := eng.DecideTurn(ctx, turn).Context; c != "call 1" {
		t.Fatalf("first turn: %q", c)
	}
	old := home + ".old"
	if err := os.Rename(home, old); err != nil {
		t.Fatal(err)
	}
	htest.WriteFiles(t, home, files)
	if c := eng.DecideTurn(ctx, turn).Context; c != "call 1" {
		t.Errorf("in the new home: %q, want the count of a new store", c)
	}
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if c := eng.DecideTurn(ctx, turn).Context; c != "call 2" {
		t.Errorf("after a reload: %q", c)
	}
	for dir, want := range map[string]string{home: "2", old: "1"} {
		b, err := store.Open(dir, store.Config{})
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := b.Get(ctx, store.Namespace(hookspec.SourcePlugin, "counter"), "calls")
		b.Close()
		if err != nil || string(v) != want {
			t.Errorf("%s: calls = %s (%v), want %s", dir, v, err, want)
		}
	}

	if err := os.RemoveAll(home); err != nil {
		t.Fatal(err)
	}
	if c := eng.DecideTurn(ctx, turn).Context; c != "" {
		t.Errorf("without a home: %q, want the store call to fail", c)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("the vanished home was made again: %v", err)
	}
}

// A store call that finds another call opening the store waits for it only as long as its
// own context lets it.
func TestStoreOpenWaitEndsWithTheCallersContext(t *testing.T) {
	s := newStateStore(t.TempDir(), store.Config{}, nil, nil, slog.New(slog.DiscardHandler))
	s.opening <- struct{}{} // another call is opening it
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b, err := s.backend(ctx); b != nil || err == nil || !strings.Contains(err.Error(), "while another call opened the store") {
		t.Fatalf("backend = %v, %v; want the caller's context's error", b, err)
	}
	<-s.opening
	b, err := s.backend(context.Background())
	if err != nil {
		t.Fatalf("once the other call is done: %v", err)
	}
	b.Close()
}
