package gateway

import (
	"context"
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
