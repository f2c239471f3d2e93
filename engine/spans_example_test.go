package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// With a TracerProvider (the host's, here one recording in memory), the hooks of a call
// are spans inside the host's own span: the firing says what was decided and by whom.
func ExampleOptions_tracerProvider() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "plugins", "guard")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: guard\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "rm -rf /" then return { action = "block", message = "not permitted" } end
  end)
end
`), 0o644)

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Home: home, TracerProvider: tp})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	defer eng.Close(ctx)

	ctx, span := tp.Tracer("host").Start(ctx, "execute_tool terminal")
	eng.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}, ToolCallID: "call-1"})
	span.End()

	for _, s := range exp.GetSpans() { // in the order they ended
		fmt.Print(s.Name)
		for _, kv := range s.Attributes {
			switch kv.Key {
			case engine.AttrHookDecision, engine.AttrDecision, engine.AttrDecisionHook, engine.AttrDecisionReason, engine.AttrToolCallID:
				fmt.Printf(" %s=%s", kv.Key, kv.Value.Emit())
			}
		}
		fmt.Println()
	}
	// Output:
	// hook guard hermes.hook.decision=block gen_ai.tool.call.id=call-1
	// fire pre_tool_call hermes.decision=block gen_ai.tool.call.id=call-1 hermes.decision.hook=guard hermes.decision.reason=not permitted
	// execute_tool terminal
}
