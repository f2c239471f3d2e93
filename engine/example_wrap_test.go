package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// Middleware around a tool call: a wrap_tool_call hook retries a flaky tool, and the host
// sees one result, the tool having run twice.
func ExampleEngine_RunTool_wrap() {
	home, _ := os.MkdirTemp("", "hermes-wrap")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "plugins", "retry")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: retry\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`
function register(ctx)
  ctx.register_hook("wrap_tool_call", function(kw, next)
    local ok, result = pcall(next, kw.args)
    if ok then return result end
    return next(kw.args) -- once more; its error, if any, is the call's
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
	runs := 0
	run := eng.RunTool(ctx, hookspec.ToolCall{Name: "web_search", Args: map[string]any{"query": "weather"}},
		func(context.Context, hookspec.ToolCall) (string, error) {
			runs++
			if runs == 1 {
				return "", errors.New("connection reset")
			}
			return `{"results":["sunny"]}`, nil
		})
	fmt.Printf("result %s, error %v, the tool ran %d times\n", run.Result, run.Err, runs)
	// Output: result {"results":["sunny"]}, error <nil>, the tool ran 2 times
}

// A model request through the hooks: pre_api_request redacts a secret before the request
// leaves, and answers a known question itself, without the model.
func ExampleEngine_RunLLM() {
	home, _ := os.MkdirTemp("", "hermes-llm")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "plugins", "gatekeeper")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: gatekeeper\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`
function register(ctx)
  ctx.register_hook("pre_api_request", function(kw)
    local last = kw.request.messages[#kw.request.messages]
    if last.content == "status?" then
      return { action = "respond", response = { content = "All systems normal." } }
    end
    local redacted = string.gsub(last.content, "sk%-%w+", "[REDACTED]")
    if redacted ~= last.content then
      return { action = "modify", request = { messages = { { role = "user", content = redacted } } } }
    end
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
	model := func(_ context.Context, req hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		return hookspec.LLMResponse{Content: fmt.Sprintf("the model got %q", req.Messages[0].Content)}, nil
	}
	for _, text := range []string{"my key is sk-abc123", "status?"} {
		req := hookspec.LLMRequest{SessionID: "s1", Model: "m1", Messages: []hookspec.Message{{Role: "user", Content: text}}}
		run := eng.RunLLM(ctx, req, model)
		fmt.Printf("%s (model called: %v)\n", run.Response.Content, run.Calls > 0)
	}
	// Output:
	// the model got "my key is [REDACTED]" (model called: true)
	// All systems normal. (model called: false)
}
