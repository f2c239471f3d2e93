package engine_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
)

// laughs returns YAML mapping key to nine levels of nine aliases each ("billion laughs":
// 9^9 values once expanded, from under a kilobyte).
func laughs(key string) string {
	var b strings.Builder
	b.WriteString(key + ":\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		prev := "*l" + string(rune('0'+i-1))
		b.WriteString("  l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [" +
			strings.TrimSuffix(strings.Repeat(prev+", ", 9), ", ") + "]\n")
	}
	return b.String()
}

// loadBounded runs engine.New on home and fails if it takes over 20s (a hang, not a
// benchmark) or allocates over 256 MiB (what an expanded alias bomb would take).
func loadBounded(t *testing.T, home string) (*engine.Engine, error) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	e, err := newWithin(t, 30*time.Second, engine.Options{Home: home, Getenv: noEnv})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; elapsed > 20*time.Second || alloc > 256<<20 {
		t.Errorf("engine.New took %v and allocated %d MiB, want under 20s and 256 MiB", elapsed, alloc>>20)
	}
	if e != nil {
		t.Cleanup(func() { e.Close(context.Background()) })
	}
	return e, err
}

func TestHostileYAML(t *testing.T) {
	const handler = "function register(ctx) ctx.register_hook('pre_tool_call', function() end) end\n"
	big := "#" + strings.Repeat("x", 1<<20) + "\n"
	tests := []struct {
		name      string
		config    string // config.yaml ("" = none)
		manifest  string // plugin.yaml of plugin p
		wantErr   string // in engine.New's error; "" = New succeeds
		pluginErr string // in the plugin's error; "" = loads
	}{
		{name: "billion laughs in a plugin's config", manifest: "name: p\n" + laughs("config"),
			pluginErr: "plugin.yaml:3: config: yaml: document contains excessive aliasing"},
		{name: "plugin.yaml over 1 MiB", manifest: "name: p\n" + big, pluginErr: "plugin.yaml: file larger than 1024 KiB"},
		{name: "billion laughs as hooks_auto_accept",
			config:   laughs("anchors") + "hooks_auto_accept: *l9\nhooks:\n  pre_tool_call:\n    - command: /bin/true\n",
			manifest: "name: p\n"},
		{name: "billion laughs as the disabled list", config: laughs("anchors") + "plugins: {disabled: *l9}\n",
			manifest: "name: p\n", wantErr: "config.yaml:11: plugins.disabled must be a list of strings"},
		{name: "billion laughs as the hooks", config: laughs("anchors") + "hooks: *l9\n", manifest: "name: p\n"},
		{name: "config.yaml over 1 MiB", config: big, manifest: "name: p\n", wantErr: "config.yaml: file larger than 1024 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"plugins/p/plugin.yaml": tt.manifest, "plugins/p/handler.lua": handler}
			if tt.config != "" {
				files["config.yaml"] = tt.config
			}
			e, err := loadBounded(t, writeFuzzHome(t, files))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("engine.New error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("engine.New: %v", err)
			}
			p := e.Plugins()[0]
			if tt.pluginErr == "" && p.Status != "loaded" || tt.pluginErr != "" && !strings.Contains(p.Error, tt.pluginErr) {
				t.Errorf("plugin status %q error %q, want error %q", p.Status, p.Error, tt.pluginErr)
			}
			for _, h := range e.ShellHooks() {
				if h.Registered {
					t.Errorf("shell hook %q registered (approved by %q): an alias bomb must not approve it", h.Command, h.ApprovedBy)
				}
			}
		})
	}
}
