package gateway

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

func TestGatewayReload(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		hookFiles("a", `events: ["agent:end"]`, `function handle() return "a1" end`),
		hookFiles("b", `events: ["agent:end"]`, `function handle() return "b1" end`),
		hookFiles("c", `events: ["agent:end"]`, `function handle() return "c1" end`),
	))
	g, logs := newGateway(t, home, Options{})
	ctx := context.Background()
	write := func(name, content string) {
		t.Helper()
		if err := writeFileErr(filepath.Join(home, name), content); err != nil {
			t.Fatal(err)
		}
	}
	write("hooks/a/handler.lua", `function handle() return "a2" end`)
	write("hooks/b/handler.lua", "function handle()\n  return = 1\nend")
	write("hooks/c/HOOK.yaml", "events: [agent:end]\nenabled: false\n")
	write("hooks/d/HOOK.yaml", `events: ["agent:*"]`)
	write("hooks/d/handler.lua", `function handle() return "d1" end`)
	if err := g.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	got := collect(g.EmitSync(ctx, hookspec.NamedEvent{Name: "agent:end", Data: nil}))
	if diff := cmp.Diff([]any{"a2", "b1", "d1"}, got); diff != "" {
		t.Errorf("after reload (-want +got):\n%s", diff)
	}
	if !strings.Contains(logs.String(), "hooks/b/handler.lua:2:") || !strings.Contains(logs.String(), "previous version keeps running") {
		t.Errorf("broken edit not reported with file and line:\n%s", logs.String())
	}
	g.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: nil}) // workers of the new set are running
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := g.Reload(ctx); err != ErrClosed {
		t.Errorf("Reload after Close = %v", err)
	}
}

func TestGatewayHooksDisabledInConfig(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		hookFiles("a", `events: ["agent:end"]`, `function handle() return "a" end`),
		hookFiles("b", `events: ["agent:end"]`, `function handle() return "b" end`),
		hookFiles("c", "name: \"\"\nevents: [agent:end]\n", `function handle() return "c" end`),
		map[string]string{"config.yaml": "gateway_hooks:\n  disabled: [b]\n"},
	))
	g, _ := newGateway(t, home, Options{})
	if got := collect(g.EmitSync(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: nil})); !cmp.Equal(got, []any{"a"}) {
		t.Errorf("got %v, want only a (b disabled in config.yaml, c has an empty name)", got)
	}
	status := map[string]string{}
	for _, h := range g.Hooks() {
		status[filepath.Base(h.Dir)] = h.Status
	}
	if diff := cmp.Diff(map[string]string{"a": "loaded", "b": "disabled", "c": "error"}, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}
