package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// A gateway embeds the engine: it loads a home once and asks it at each lifecycle point.
func Example() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "plugins", "guard")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: guard\npriority: 10\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.tool_name == "terminal" and string.find(kw.args.command or "", "rm -rf /", 1, true) then
      return { action = "block", message = "rm -rf / is not permitted" }
    end
  end)
  ctx.register_hook("pre_llm_call", function(kw)
    return { context = "The user prefers short answers." }
  end)
end
`), 0o644)

	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Home: home})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	defer eng.Close(ctx)

	call := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}, SessionID: "s1"}
	if blk := eng.DecideTool(ctx, call).Block; blk != nil {
		fmt.Println("blocked:", blk.Message)
	}
	fmt.Println("context:", eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s1", UserMessage: "hi"}).Context)
	fmt.Println("result:", eng.TransformToolResult(ctx, hookspec.ToolCall{Name: "terminal", Result: `{"output":"a"}`}))
	// Output:
	// blocked: rm -rf / is not permitted
	// context: The user prefers short answers.
	// result: {"output":"a"}
}
