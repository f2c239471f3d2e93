package gateway

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A host that drives a turn through Turn gets its spans without making any: the turn
// (invoke_agent, a child of the host's span), and inside it each model call (chat <model>)
// and tool call (execute_tool <tool>) with the firings of their hooks inside them; the
// turn says how it ended, a failed model call is an error.
func TestTurnMakesItsSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	home := testutil.Home(t, map[string]string{"plugins/g/plugin.yaml": "name: g\n", "plugins/g/handler.lua": `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) if kw.args.command == "rm" then return {action = "block", message = "no"} end end)
  ctx.register_hook("pre_api_request", function(kw) end)
end`})
	g, _ := newGateway(t, home, Options{Engine: engine.Options{TracerProvider: tp}})
	ctx, root := tp.Tracer("host").Start(context.Background(), "host message")
	turn, err := g.StartTurn(ctx, Message{Platform: "cli", UserID: "u", SessionID: "s1", Text: "hi", Model: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	run := turn.RunLLM(ctx, hookspec.LLMRequest{}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		return hookspec.LLMResponse{Model: "m1-2025", ToolCalls: []hookspec.ToolCall{{ToolCallID: "c1", Name: "terminal", Args: map[string]any{"command": "rm"}}}}, nil
	})
	tool := turn.RunTool(ctx, run.Response.ToolCalls[0], func(context.Context, hookspec.ToolCall) (string, error) { return "ran", nil })
	if tool.Block == nil {
		t.Fatalf("the tool call ran: %+v", tool)
	}
	turn.RunLLM(ctx, hookspec.LLMRequest{}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		return hookspec.LLMResponse{}, context.DeadlineExceeded
	})
	turn.Fail(ctx, false)
	root.End()

	byName := map[string]tracetest.SpanStub{}
	var chats []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.Name == "chat m1" || s.Name == "chat m1-2025" {
			chats = append(chats, s)
		}
		byName[s.Name] = s
	}
	invoke, tool1 := byName["invoke_agent"], byName["execute_tool terminal"]
	if invoke.Parent.SpanID() != root.SpanContext().SpanID() {
		t.Fatalf("the turn's span is not a child of the host's: spans %v", spanNames(exp.GetSpans()))
	}
	wantAttr(t, invoke, "gen_ai.conversation.id", "s1")
	wantAttr(t, invoke, "hermes.turn.outcome", "failed")
	if len(chats) != 2 || tool1.Name == "" {
		t.Fatalf("spans %v, want two chat spans and one execute_tool", spanNames(exp.GetSpans()))
	}
	for _, s := range append(chats, tool1) {
		if s.Parent.SpanID() != invoke.SpanContext.SpanID() {
			t.Errorf("%s is not a child of the turn's span", s.Name)
		}
	}
	wantAttr(t, chats[0], "gen_ai.request.model", "m1")
	wantAttr(t, chats[0], "gen_ai.response.model", "m1-2025")
	if chats[0].Status.Code == codes.Error || chats[1].Status.Code != codes.Error || chats[1].Name != "chat m1-2025" {
		t.Errorf("chat spans %s %v, %s %v: want the second (on the model the first answered with) failed", chats[0].Name, chats[0].Status, chats[1].Name, chats[1].Status)
	}
	wantAttr(t, tool1, "hermes.tool.blocked", true)
	wantAttr(t, tool1, "gen_ai.tool.call.id", "c1")
	fire, api := byName["fire pre_tool_call"], byName["fire pre_api_request"]
	if fire.Parent.SpanID() != tool1.SpanContext.SpanID() {
		t.Errorf("pre_tool_call's firing is not inside the tool call's span")
	}
	if api.Parent.SpanID() != chats[1].SpanContext.SpanID() && api.Parent.SpanID() != chats[0].SpanContext.SpanID() {
		t.Errorf("pre_api_request's firing is not inside a chat span")
	}
}

func spanNames(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func wantAttr(t *testing.T, s tracetest.SpanStub, key string, want any) {
	t.Helper()
	for _, a := range s.Attributes {
		if a.Key == attribute.Key(key) {
			if a.Value.AsInterface() != want {
				t.Errorf("%s: %s = %v, want %v", s.Name, key, a.Value.AsInterface(), want)
			}
			return
		}
	}
	t.Errorf("%s has no %s (want %v)", s.Name, key, want)
}
