package gateway

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A turn's model request carries the turn's session, platform and model to the hooks, and
// a hook's rewrite reaches the model.
func TestTurnRunLLM(t *testing.T) {
	home := testutil.Home(t, hookFilesPlugin("narrow", `function register(ctx)
  ctx.register_hook("pre_api_request", function(kw)
    if kw.session_id == "s1" and kw.platform == "telegram" and kw.model == "m1" then
      return {action = "modify", request = {tools = {}}}
    end
  end)
end`))
	g, err := New(context.Background(), Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	turn, err := g.StartTurn(context.Background(), Message{Platform: "telegram", UserID: "u1", SessionID: "s1", Model: "m1", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	var sent hookspec.LLMRequest
	run := turn.RunLLM(context.Background(), hookspec.LLMRequest{Tools: []map[string]any{{"name": "terminal"}}},
		func(_ context.Context, req hookspec.LLMRequest) (hookspec.LLMResponse, error) {
			sent = req
			return hookspec.LLMResponse{Content: "hello"}, nil
		})
	if run.Response.Content != "hello" || !run.Modified || len(sent.Tools) != 0 || sent.Model != "m1" {
		t.Errorf("run %+v, sent %+v; want the turn's identity seen by the hook and its rewrite sent", run, sent)
	}
	turn.Finish(context.Background(), "hello")
}

func hookFilesPlugin(name, handler string) map[string]string {
	return map[string]string{"plugins/" + name + "/plugin.yaml": "name: " + name + "\n", "plugins/" + name + "/handler.lua": handler}
}

// alwaysToolCall answers every request to the model with a tool call, so that a loop that
// asks the model until it stops calling tools never ends by itself.
const alwaysToolCall = `function register(ctx)
  ctx.register_hook("pre_api_request", function(kw)
    return {action = "respond", response = {content = "", stop_reason = "tool_use",
      tool_calls = {{id = "c1", name = "terminal", args = {command = "true"}}}}}
  end)
end`

// A turn makes at most Options.MaxSteps requests to the model (DefaultMaxSteps when unset):
// the next one runs no hook and no call, fails with ErrStepLimit, and a warning says so.
func TestTurnStepLimit(t *testing.T) {
	for _, max := range []int{0, 3} {
		logs := &testutil.Buffer{}
		home := testutil.Home(t, hookFilesPlugin("loop", alwaysToolCall))
		g, err := New(context.Background(), Options{MaxSteps: max, Engine: engine.Options{Home: home, Logger: slog.New(slog.NewTextHandler(logs, nil))}})
		if err != nil {
			t.Fatal(err)
		}
		turn, err := g.StartTurn(context.Background(), Message{Platform: "cli", UserID: "u1", SessionID: "s1", Text: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		want := max
		if want == 0 {
			want = DefaultMaxSteps
		}
		calls, runs := 0, 0
		var run engine.LLMRun
		for runs = 1; runs <= 1000; runs++ { // a host's loop: ask until the model stops calling tools
			run = turn.RunLLM(context.Background(), hookspec.LLMRequest{}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
				calls++
				return hookspec.LLMResponse{Content: "done"}, nil
			})
			if run.Err != nil || len(run.Response.ToolCalls) == 0 {
				break
			}
			turn.Step(context.Background(), "terminal")
		}
		if !errors.Is(run.Err, ErrStepLimit) || runs != want+1 || calls != 0 {
			t.Errorf("MaxSteps %d: the loop ended after %d requests with %v (model called %d times); want ErrStepLimit on request %d",
				max, runs, run.Err, calls, want+1)
		}
		if !strings.Contains(logs.String(), "step limit") {
			t.Errorf("MaxSteps %d: no warning logged:\n%s", max, logs)
		}
		turn.Fail(context.Background(), false)
		g.Close(context.Background())
	}
}

// A turn's gateway events go to Message.Emit when it is set, and a response that names its
// model makes it the model the turn's later hooks are told.
func TestTurnEmitAndResponseModel(t *testing.T) {
	home := testutil.Home(t, hookFilesPlugin("models", `function register(ctx)
  ctx.register_hook("post_llm_call", function(kw) print("post_llm_call model " .. kw.model) end)
end`))
	logs := &testutil.Buffer{}
	g, err := New(context.Background(), Options{Engine: engine.Options{Home: home, Logger: slog.New(slog.NewTextHandler(logs, nil))}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	var events []string
	turn, err := g.StartTurn(context.Background(), Message{Platform: "cli", UserID: "u1", SessionID: "s1", NewSession: true,
		Model: "m1", Text: "hi", Emit: func(_ context.Context, ev hookspec.Event) { events = append(events, ev.EventName()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Fail(context.Background(), false)
	turn.RunLLM(context.Background(), hookspec.LLMRequest{}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		return hookspec.LLMResponse{Model: "m2", Content: "hello"}, nil
	})
	turn.Step(context.Background())
	turn.Finish(context.Background(), "hello")
	if got := strings.Join(events, " "); got != "session:start agent:start agent:step agent:end" {
		t.Errorf("events through Message.Emit: %s", got)
	}
	if !strings.Contains(logs.String(), "post_llm_call model m2") {
		t.Errorf("post_llm_call was not told the response's model m2:\n%s", logs)
	}
}
