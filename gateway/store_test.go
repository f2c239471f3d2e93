package gateway

import (
	"context"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A gateway hook has its own store namespace, apart from a plugin of the same name.
func TestGatewayHookStore(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"hooks/counter/HOOK.yaml":     "name: counter\nevents: [agent:step]\n",
		"hooks/counter/handler.lua":   `function handle(event_type, context) return require("store").incr("steps") end`,
		"plugins/counter/plugin.yaml": "name: counter\n",
		"plugins/counter/handler.lua": `function register(ctx) ctx.register_hook("pre_llm_call", function() require("store").incr("steps", 100) end) end`,
	})
	ctx := context.Background()
	g, err := New(ctx, Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(ctx)
	eng := g.Engine()
	eng.DecideTurn(ctx, hookspec.LLMTurn{})
	var last any
	for range 3 {
		rs := g.EmitSync(ctx, hookspec.NamedEvent{Name: "agent:step", Data: map[string]any{}})
		if len(rs) != 1 || rs[0].Status != hookspec.StatusOK {
			t.Fatalf("results %+v", rs)
		}
		last = rs[0].Result
	}
	if last != int64(3) {
		t.Errorf("the gateway hook counted %v, want 3 (its own namespace)", last)
	}
	b, exists, err := engine.OpenStore(home) // the same database, as hermesctl store reads it
	if err != nil || !exists {
		t.Fatalf("open the home's store: exists %v, %v", exists, err)
	}
	defer b.Close()
	if v, _, _ := b.Get(ctx, "plugin:counter", "steps"); string(v) != "100" {
		t.Errorf("the plugin's count is %s, want 100", v)
	}
}
