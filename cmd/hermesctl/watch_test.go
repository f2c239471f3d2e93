package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestHooksWatch edits a plugin under a running `hooks watch` and sees the reload reported.
func TestHooksWatch(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "p")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: p\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`function register(ctx) ctx.register_hook("pre_llm_call", function() end) end`), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut testutil.Buffer
	done := make(chan int)
	go func() { done <- run(ctx, []string{"--home", home, "hooks", "watch"}, nil, &out, &errOut) }()
	waitFor := func(want string) {
		t.Helper()
		out.WaitFor(t, want, 10*time.Second)
	}
	waitFor("watching " + home + ": 1 plugin(s)")
	// The watches are set up after that line: edit until an edit is reported.
	edited := `function register(ctx) ctx.register_hook("pre_llm_call", function() end) ctx.register_hook("post_llm_call", function() end) end`
	for i := 0; ; i++ {
		os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(edited+strings.Repeat(" ", i)), 0o644)
		if out.Await("changed: plugins/p/handler.lua", time.Second) {
			break
		}
		if i == 20 {
			t.Fatalf("no edit reported:\n%s\nstderr:\n%s", out.String(), errOut.String())
		}
	}
	waitFor("~ plugin p: loaded pre_llm_call,post_llm_call")
	waitFor("reloaded: 1 plugin(s)")
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte("function register(ctx)\n  ctx.register_hook(\n end"), 0o644)
	errOut.WaitFor(t, "handler.lua:3: ')' expected (to close '(' at line 2) near 'end'); the previous version keeps running", 10*time.Second)
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d", code)
	}
}
