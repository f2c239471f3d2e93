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
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if strings.Contains(out.String(), want) || strings.Contains(errOut.String(), want) {
				return
			}
		}
		t.Fatalf("output never contained %q:\n%s\nstderr:\n%s", want, out.String(), errOut.String())
	}
	waitFor("watching " + home + ": 1 plugin(s)")
	time.Sleep(100 * time.Millisecond)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`function register(ctx) ctx.register_hook("pre_llm_call", function() end) ctx.register_hook("post_llm_call", function() end) end`), 0o644)
	waitFor("changed: plugins/p/handler.lua")
	waitFor("~ plugin p: loaded pre_llm_call,post_llm_call")
	waitFor("reloaded: 1 plugin(s)")
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte("function register(ctx)\n  ctx.register_hook(\n end"), 0o644)
	waitFor("handler.lua:3: syntax error near 'end'); the previous version keeps running")
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d", code)
	}
}
