package gateway_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

// A whole gateway: a Turn runs a turn's hooks in the documented order, a hook's ask goes to
// the user's chat and the user's reply, a later message, answers it; the home reloads
// while the gateway runs, and Close lets the turn in flight finish.
func ExampleGateway_StartTurn() {
	home, _ := os.MkdirTemp("", "hermes-turn")
	defer os.RemoveAll(home)
	write := func(rel, text string) {
		os.MkdirAll(filepath.Join(home, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(home, rel), []byte(text), 0o644)
	}
	write("plugins/guard/plugin.yaml", "name: guard\n")
	write("plugins/guard/handler.lua", `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command:find("deploy") then return {action = "ask", message = "deploy to prod?"} end
  end)
  ctx.register_hook("pre_llm_call", function(kw) return "The user is Ada." end)
end`)
	write("hooks/log/HOOK.yaml", "events: [\"session:*\", \"agent:*\"]\n")
	write("hooks/log/handler.lua", `function handle(event, ctx) require("hermes").seen(event) end`)

	var mu sync.Mutex
	var seen []string
	questions := make(chan engine.ApprovalRequest, 1)
	ctx := context.Background()
	gw, err := gateway.New(ctx, gateway.Options{
		Engine: engine.Options{Home: home, Approve: func(_ context.Context, req engine.ApprovalRequest) (bool, error) {
			questions <- req // send the question to req.Origin's chat, and return: the reply comes later
			return false, engine.ErrAnswerLater
		}},
		HostFuncs: map[string]hookspec.Func{"seen": func(_ context.Context, args []any) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, fmt.Sprint(args[0]))
			return nil, nil
		}},
	})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	go func() { // the chat's next message: Answer reads it before the host takes the chat's lock
		req := <-questions
		fmt.Printf("asked on %s/%s: %s (answer yes %s)\n", req.Origin.Platform, req.Origin.ChatID, req.Message, req.Code)
		gw.Engine().Delivered(req.ID) // the platform accepted the question: answers count from now on
		gw.Answer(gateway.Message{Platform: "telegram", ChatID: "c1", UserID: "ada", Text: "yes"})
	}()
	deploy := func(t *gateway.Turn) {
		run := t.RunTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "deploy prod"}},
			func(context.Context, hookspec.ToolCall) (string, error) { return "deployed", nil })
		fmt.Printf("tool: %s (approved by a person: %v)\n", run.Result, run.Approved)
		t.Step(ctx, "terminal")
		if _, goOn := t.Verify(ctx, "done"); !goOn {
			fmt.Println("reply:", t.Finish(ctx, "done"))
		}
	}

	msg := gateway.Message{Platform: "telegram", ChatID: "c1", UserID: "ada", Text: "ship it", SessionID: "s1", NewSession: true, Model: "m1"}
	t, _ := gw.StartTurn(ctx, msg)
	fmt.Printf("prompt: %q, context: %q\n", t.Text, t.Context)
	deploy(t)

	write("plugins/guard/handler.lua", `function register(ctx) end`) // the guard is edited away
	if err := gw.Reload(ctx); err != nil {
		fmt.Println("reload:", err)
	}
	msg.NewSession, msg.Text = false, "again"
	t, _ = gw.StartTurn(ctx, msg)
	fmt.Printf("prompt: %q, context: %q\n", t.Text, t.Context)
	deploy(t)

	if err := gw.Close(ctx); err != nil {
		fmt.Println("close:", err)
	}
	mu.Lock()
	fmt.Println("gateway events:", strings.Join(seen, " "))
	mu.Unlock()
	// Output:
	// prompt: "ship it", context: "The user is Ada."
	// asked on telegram/c1: deploy to prod? (answer yes 1)
	// tool: deployed (approved by a person: true)
	// reply: done
	// prompt: "again", context: ""
	// tool: deployed (approved by a person: false)
	// reply: done
	// gateway events: session:start agent:start agent:step agent:end agent:start agent:step agent:end
}
