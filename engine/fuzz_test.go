package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// fuzzHandler registers two callbacks; the second returns the plugin's config, so that
// whatever YAML decoded into ctx.config crosses back from Lua too.
const fuzzHandler = `
local cfg
function register(ctx)
  cfg = ctx.config
  ctx.register_hook("pre_tool_call", function(kw) return nil end)
  ctx.register_hook("post_tool_call", function(kw) return cfg end)
end
`

// fuzzLoadLimit bounds engine.New on a fuzzed home: loading never hangs.
const fuzzLoadLimit = 20 * time.Second

// writeFuzzHome writes files (path -> content) into a new home.
func writeFuzzHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, content := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// newWithin runs engine.New and fails the test if it does not return within limit.
func newWithin(t *testing.T, limit time.Duration, opts engine.Options) (*engine.Engine, error) {
	t.Helper()
	type result struct {
		e   *engine.Engine
		err error
	}
	done := make(chan result, 1)
	go func() {
		e, err := engine.New(context.Background(), opts)
		done <- result{e, err}
	}()
	select {
	case r := <-done:
		return r.e, r.err
	case <-time.After(limit):
		t.Fatalf("engine.New did not return within %v", limit)
		return nil, nil
	}
}

// noEnv keeps HERMES_ACCEPT_HOOKS of the environment out of fuzzed loads.
func noEnv(string) string { return "" }

func FuzzPluginManifest(f *testing.F) {
	for _, s := range []string{
		"", "name: p\n", "name: p\npriority: 10\ntimeout: 1\nfail_closed: true\n", "enabled: false\n",
		"name: ''\n", "name: [x]\n", "timeout: 0.000000001\n", "timeout: 1e400\n", "states: 64\n", "states: 0\n",
		"config: {limit: 3, tags: [a, b], nested: {deep: [1, 2.5, null, true]}}\n", "config: {.nan: 1, ~: 2, 1: 3}\n",
		"config: {a: &a [x, x], b: [*a, *a], c: [*b, *b]}\n", "config: 2001-12-14t21:59:43.10-05:00\n",
		"permissions: {fs: [/], env: ['*'], exec: [sh]}\n", "permissions: {fs: /}\n", "unknown: 1\nnmae: x\n",
		"[1, 2]\n", "a: [\n", "\t", "version: !!binary aGk=\n", "priority: 1e3\n", "description: &d x\nversion: *d\n",
		"memory: 1MiB\n", "memory: 64 MiB\n", "memory: 5GiB\n", "memory: 0\n", "memory: 64MB\n", "memory: 1048576\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, manifest string) {
		home := writeFuzzHome(t, map[string]string{
			"plugins/p/plugin.yaml": manifest,
			"plugins/p/handler.lua": fuzzHandler,
		})
		e, err := newWithin(t, fuzzLoadLimit, engine.Options{Home: home, Getenv: noEnv})
		if err != nil {
			t.Fatalf("engine.New failed on a plugin manifest (only config.yaml may fail it): %v", err)
		}
		defer e.Close(context.Background())
		infos := e.Plugins()
		if len(infos) != 1 {
			t.Fatalf("got %d plugin infos, want 1", len(infos))
		}
		info := infos[0]
		switch info.Status {
		case "loaded":
			if info.Timeout <= 0 || info.Timeout > 300 {
				t.Errorf("loaded with timeout %v, want (0, 300]", info.Timeout)
			}
			if info.Memory < 1<<20 || info.Memory > 4<<30 {
				t.Errorf("loaded with memory %d, want 1 MiB to 4 GiB", info.Memory)
			}
			ctx, cancel := context.WithTimeout(context.Background(), fuzzLoadLimit)
			defer cancel()
			e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}})
			e.Fire(ctx, hookspec.PostToolCall, map[string]any{"tool_name": "terminal"})
		case "disabled":
		case "error":
			if !strings.Contains(info.Error, "plugin.yaml") && !strings.Contains(info.Error, "handler.lua") {
				t.Errorf("error %q names neither plugin.yaml nor handler.lua", info.Error)
			}
		default:
			t.Errorf("status %q, want loaded, disabled or error", info.Status)
		}
		for _, w := range e.Warnings() {
			if w.File == "" || w.Msg == "" {
				t.Errorf("warning %+v has no file or message", w)
			}
		}
	})
}

func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"", "~", "plugins: {disabled: [p]}\n", "plugins: {disabled: p}\n", "plugins: [p]\n", "plugins:\n",
		"hooks:\n  pre_tool_call:\n    - command: /bin/true\n      matcher: 'terminal|file'\n      timeout: 5\n",
		"hooks:\n  pre_tools_call: []\n  post_tool_call: [{command: \"'unterminated\"}]\n",
		"hooks: {pre_tool_call: [{command: x, timeout: -1, fail_closed: maybe, matcher: '('}]}\n",
		"hooks_auto_accept: false\nhooks_consent: pinned\n", "hooks_consent: [x]\n", "hooks_auto_accept: {a: 1}\n",
		"hooks: &h {pre_tool_call: [{command: a}]}\nextra: *h\n", "gateway_hooks: {x: 1}\n",
		"- 1\n", "a: [\n", "\x00", "plugins: {disabled: [p], enabled: [q], other: 1}\n",
		"x: &x [*x]\nhooks_auto_accept: *x\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, config string) {
		home := writeFuzzHome(t, map[string]string{
			"config.yaml":           config,
			"plugins/p/plugin.yaml": "name: p\n",
			"plugins/p/handler.lua": fuzzHandler,
		})
		// Nothing here may approve or prompt for a shell hook: no flag, no env, no prompt.
		e, err := newWithin(t, fuzzLoadLimit, engine.Options{Home: home, Getenv: noEnv})
		if err != nil {
			if e != nil {
				t.Errorf("engine.New returned an engine and the error %v", err)
			}
			if !strings.Contains(err.Error(), "config.yaml") {
				t.Fatalf("error %q does not name config.yaml", err)
			}
			return
		}
		defer e.Close(context.Background())
		for _, h := range e.ShellHooks() {
			if h.Registered && h.ApprovedBy != "config" {
				t.Errorf("shell hook %q registered (approved by %q) with no approval given", h.Command, h.ApprovedBy)
			}
		}
		for _, w := range e.Warnings() {
			if w.File == "" || w.Msg == "" {
				t.Errorf("warning %+v has no file or message", w)
			}
		}
	})
}
