package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// plugin writes a plugin of one handler into home/plugins/name.
func plugin(home, name, handler string) {
	dir := filepath.Join(home, "plugins", name)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: "+name+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(handler), 0o644)
}

// A hook may rewrite a call rather than block it: the host runs the tool with the
// decision's Args, never with the arguments the model asked for.
func ExampleEngine_DecideTool() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	plugin(home, "safer-push", `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local cmd = kw.args.command or ""
    if cmd:find("git push --force", 1, true) then
      return { action = "modify", args = { command = cmd:gsub("%-%-force", "--force-with-lease") } }
    end
  end)
end
`)
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Home: home})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	defer eng.Close(ctx)

	d := eng.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "git push --force"}})
	if d.Block != nil {
		fmt.Println("blocked:", d.Block.Message)
		return
	}
	fmt.Println("run:", d.Args["command"], "| modified:", d.Modified, "by", d.Hook)
	// Output:
	// run: git push --force-with-lease | modified: true by safer-push
}

// RunTool runs a call's whole sequence of hooks around the host's tool. A hook that asks
// a person goes to Options.Approve: here the host says yes to anything but the production
// database.
func ExampleEngine_RunTool() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	plugin(home, "ask-on-drop", `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if (kw.args.command or ""):find("DROP TABLE", 1, true) then
      return { action = "ask", message = "Drop a table?" }
    end
  end)
end
`)
	ctx := context.Background()
	approve := func(_ context.Context, req engine.ApprovalRequest) (bool, error) {
		cmd, _ := req.Call.Args["command"].(string)
		fmt.Printf("asked %q about %q\n", req.Message, cmd)
		return !strings.Contains(cmd, "prod"), nil
	}
	eng, err := engine.New(ctx, engine.Options{Home: home, Approve: approve})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	defer eng.Close(ctx)

	sql := func(_ context.Context, call hookspec.ToolCall) (string, error) {
		return "ran " + call.Args["command"].(string), nil
	}
	for _, cmd := range []string{"psql dev -c 'DROP TABLE t'", "psql prod -c 'DROP TABLE t'"} {
		run := eng.RunTool(ctx, hookspec.ToolCall{Name: "sql", Args: map[string]any{"command": cmd}}, sql)
		if run.Block != nil {
			fmt.Println(run.Block.Message)
			continue
		}
		fmt.Println(run.Result, "| approved:", run.Approved)
	}
	// Output:
	// asked "Drop a table?" about "psql dev -c 'DROP TABLE t'"
	// ran psql dev -c 'DROP TABLE t' | approved: true
	// asked "Drop a table?" about "psql prod -c 'DROP TABLE t'"
	// blocked: ask-on-drop asked for approval (Drop a table?) and the answer was no
}

// The store keeps what a hook counts across calls, states, reloads and processes: here a
// guard that allows three deletions a session.
func ExampleEngine_store() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	plugin(home, "rate-limit", `
local store = require("store")
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if (kw.args.command or ""):find("^rm ") then
      local n = store.incr("deletions:" .. kw.session_id)
      if n > 3 then return { action = "block", message = "three deletions a session" } end
    end
  end)
end
`)
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Home: home})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	defer eng.Close(ctx)
	for i := range 5 {
		blk := eng.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": fmt.Sprint("rm f", i)}, SessionID: "s1"}).Block
		fmt.Println(i+1, blk != nil)
	}
	// Output:
	// 1 false
	// 2 false
	// 3 false
	// 4 true
	// 5 true
}

// Reload loads the home again: calls in flight finish on the hooks they started with, the
// next ones use the new set. Close stops the engine; it waits for calls in flight up to
// its context's deadline.
func ExampleEngine_Reload() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	guard := func(word string) string {
		return `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if (kw.args.command or ""):find("` + word + `", 1, true) then return { action = "block", message = "no ` + word + `" } end
  end)
end`
	}
	plugin(home, "guard", guard("curl"))
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Home: home})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	call := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "wget example.com"}}
	fmt.Println("before:", eng.DecideTool(ctx, call).Block != nil)

	plugin(home, "guard", guard("wget"))
	if err := eng.Reload(ctx); err != nil {
		fmt.Println("reload:", err)
	}
	fmt.Println("after:", eng.DecideTool(ctx, call).Block.Message)

	if err := eng.Close(ctx); err != nil {
		fmt.Println("close:", err)
	}
	// Output:
	// before: false
	// after: no wget
}
