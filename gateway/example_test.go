package gateway_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

// A gateway hook subscribes to gateway events (wildcards allowed) in its HOOK.yaml; the
// host emits events without waiting (Emit) or waits for the hooks' answers (EmitSync), and
// Close lets queued events finish.
func Example() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "hooks", "greeter")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "HOOK.yaml"), []byte(`events: ["session:*"]`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`
function handle(event, ctx)
  return event .. " for " .. (ctx.user or "someone")
end
`), 0o644)

	ctx := context.Background()
	gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	gw.Emit(ctx, hookspec.NamedEvent{Name: "session:start", Data: map[string]any{"user": "ada"}}) // queued; returns at once
	for _, r := range gw.EmitSync(ctx, hookspec.NamedEvent{Name: "session:reset", Data: map[string]any{"user": "ada"}}) {
		fmt.Println(r.Name, r.Status, r.Result)
	}
	fmt.Println("agent:start has hooks:", len(gw.EmitSync(ctx, hookspec.NamedEvent{Name: "agent:start", Data: nil})) > 0)
	if err := gw.Close(ctx); err != nil { // the queued session:start runs before Close returns
		fmt.Println("close:", err)
	}
	// Output:
	// greeter ok session:reset for ada
	// agent:start has hooks: false
}
