package gateway

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/prometheus/client_golang/prometheus"
	promtest "github.com/prometheus/client_golang/prometheus/testutil"

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
	got := g.EmitCollect(ctx, "agent:end", nil)
	if diff := cmp.Diff([]any{"a2", "b1", "d1"}, got); diff != "" {
		t.Errorf("after reload (-want +got):\n%s", diff)
	}
	if !strings.Contains(logs.String(), "hooks/b/handler.lua:2:") || !strings.Contains(logs.String(), "previous version keeps running") {
		t.Errorf("broken edit not reported with file and line:\n%s", logs.String())
	}
	g.Emit("agent:end", nil) // workers of the new set are running
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := g.Reload(ctx); err != ErrClosed {
		t.Errorf("Reload after Close = %v", err)
	}
}

func TestReplayMetrics(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		map[string]string{"plugins/guard/plugin.yaml": "name: guard\n", "plugins/guard/handler.lua": `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "rm -rf /" then return {action = "block", message = "no"} end
  end)
end`},
		hookFiles("steps", `events: ["agent:step", "agent:end"]`, `function handle(ev) if ev == "agent:end" then error("boom") end end`),
	))
	m := engine.NewMetrics()
	_, err := ReplayReader(context.Background(), "t.jsonl", strings.NewReader(`
{"type":"message","platform":"cli","user_id":"u","text":"go"}
{"type":"llm","tool_calls":[{"id":"1","name":"terminal","args":{"command":"rm -rf /"},"result":"{}"},{"id":"2","name":"terminal","args":{"command":"ls"},"result":"{}"}]}
{"type":"llm","tool_calls":[{"id":"3","name":"terminal","args":{"command":"rm -rf /"},"result":"{}"}]}
{"type":"llm","response":"done"}
`), engine.Options{Home: home, Metrics: m}, Options{Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	want := `
# HELP hermes_hook_blocks_total Tool calls blocked, counted for the hook whose block won.
# TYPE hermes_hook_blocks_total counter
hermes_hook_blocks_total{event="agent:end",hook="steps",source="gateway"} 0
hermes_hook_blocks_total{event="agent:step",hook="steps",source="gateway"} 0
hermes_hook_blocks_total{event="pre_tool_call",hook="guard",source="plugin"} 2
# HELP hermes_hook_calls_total Hook calls, by hook and event.
# TYPE hermes_hook_calls_total counter
hermes_hook_calls_total{event="agent:end",hook="steps",source="gateway"} 1
hermes_hook_calls_total{event="agent:step",hook="steps",source="gateway"} 2
hermes_hook_calls_total{event="pre_tool_call",hook="guard",source="plugin"} 3
# HELP hermes_hook_errors_total Hook calls that failed (error raised, crashed, could not start).
# TYPE hermes_hook_errors_total counter
hermes_hook_errors_total{event="agent:end",hook="steps",source="gateway"} 1
hermes_hook_errors_total{event="agent:step",hook="steps",source="gateway"} 0
hermes_hook_errors_total{event="pre_tool_call",hook="guard",source="plugin"} 0
`
	if err := promtest.GatherAndCompare(reg, strings.NewReader(want), "hermes_hook_calls_total", "hermes_hook_errors_total", "hermes_hook_blocks_total"); err != nil {
		t.Error(err)
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
	if got := g.EmitCollect(context.Background(), "agent:end", nil); !cmp.Equal(got, []any{"a"}) {
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
