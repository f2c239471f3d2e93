package runner

import (
	"context"
	"strings"
	"testing"

	promtest "github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/metrics/promcollector"
	"github.com/prometheus/client_golang/prometheus"
)

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
	_, err := Replay(context.Background(), "t.jsonl", strings.NewReader(`
{"type":"message","platform":"cli","user_id":"u","text":"go"}
{"type":"llm","tool_calls":[{"id":"1","name":"terminal","args":{"command":"rm -rf /"},"result":"{}"},{"id":"2","name":"terminal","args":{"command":"ls"},"result":"{}"}]}
{"type":"llm","tool_calls":[{"id":"3","name":"terminal","args":{"command":"rm -rf /"},"result":"{}"}]}
{"type":"llm","response":"done"}
`), gateway.Options{Engine: engine.Options{Home: home, Metrics: m}, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(promcollector.New(m))
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
