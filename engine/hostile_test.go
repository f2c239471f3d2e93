package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// loadBounded runs engine.New on home and fails if it takes over 20s (a hang, not a
// benchmark) or allocates over 256 MiB (what an expanded alias bomb would take).
func loadBounded(t *testing.T, home string) (e *engine.Engine, err error) {
	t.Helper()
	testutil.Bounded(t, 20*time.Second, 256<<20, func() {
		e, err = newWithin(t, 30*time.Second, engine.Options{Home: home, Getenv: noEnv})
	})
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
		{name: "billion laughs in a plugin's config", manifest: "name: p\n" + testutil.BillionLaughs("config"),
			pluginErr: "plugin.yaml:3: config: yaml: document contains excessive aliasing"},
		{name: "plugin.yaml over 1 MiB", manifest: "name: p\n" + big, pluginErr: "plugin.yaml: file larger than 1024 KiB"},
		{name: "billion laughs as hooks_auto_accept",
			config:   testutil.BillionLaughs("anchors") + "hooks_auto_accept: *l9\nhooks:\n  pre_tool_call:\n    - command: /bin/true\n",
			manifest: "name: p\n"},
		{name: "billion laughs as the disabled list", config: testutil.BillionLaughs("anchors") + "plugins: {disabled: *l9}\n",
			manifest: "name: p\n", wantErr: "config.yaml:11: plugins.disabled must be a list of strings"},
		{name: "billion laughs as the hooks", config: testutil.BillionLaughs("anchors") + "hooks: *l9\n", manifest: "name: p\n"},
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
