package runner

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// tracedHome has a guard that counts calls in the store and blocks rm -rf /, a hook that
// rewrites ls (so the guard is asked again), a hook that always fails, and a gateway hook
// on agent events.
func tracedHome(t *testing.T) string {
	return testutil.Home(t, testutil.Merge(map[string]string{
		"plugins/guard/plugin.yaml": "name: guard\npriority: 10\n",
		"plugins/guard/handler.lua": `
local store = require("store")
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    store.incr("calls")
    if kw.args.command == "rm -rf /" then return {action = "block", message = "not allowed"} end
  end)
end`,
		"plugins/rewriter/plugin.yaml": "name: rewriter\npriority: 5\n",
		"plugins/rewriter/handler.lua": `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "ls" then return {action = "modify", args = {command = "ls -la"}} end
  end)
end`,
		"plugins/broken/plugin.yaml": "name: broken\npriority: 1\n",
		"plugins/broken/handler.lua": `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) error("boom") end)
end`,
	}, hookFiles("events", `events: ["agent:*"]`, `function handle(ev, ctx) return nil end`)))
}

const tracedTranscript = `
{"type":"message","platform":"telegram","user_id":"u1","chat_id":"c1","chat_type":"dm","text":"hi"}
{"type":"llm","model":"m1","tool_calls":[{"id":"call-1","name":"terminal","args":{"command":"ls"},"result":"ok"},{"id":"call-2","name":"terminal","args":{"command":"rm -rf /"},"result":"gone"}]}
{"type":"llm","model":"m1","response":"done"}
`

// spanTree indexes the spans one test recorded.
type spanTree struct {
	t     *testing.T
	spans tracetest.SpanStubs
}

func (s spanTree) byID(id trace.SpanID) *tracetest.SpanStub {
	for i := range s.spans {
		if s.spans[i].SpanContext.SpanID() == id {
			return &s.spans[i]
		}
	}
	return nil
}

// children are the spans whose parent is p, in the order they started.
func (s spanTree) children(p *tracetest.SpanStub) []*tracetest.SpanStub {
	var out []*tracetest.SpanStub
	for i := range s.spans {
		if s.spans[i].Parent.SpanID() == p.SpanContext.SpanID() && s.spans[i].Parent.IsValid() {
			out = append(out, &s.spans[i])
		}
	}
	for i := 1; i < len(out); i++ { // the exporter has them in the order they ended
		for j := i; j > 0 && out[j].StartTime.Before(out[j-1].StartTime); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// find is the one span named name with attribute key = value ("" key: any).
func (s spanTree) find(name string, key attribute.Key, value string) *tracetest.SpanStub {
	s.t.Helper()
	var found []*tracetest.SpanStub
	for i := range s.spans {
		if s.spans[i].Name == name && (key == "" || attr(&s.spans[i], key).Emit() == value) {
			found = append(found, &s.spans[i])
		}
	}
	if len(found) != 1 {
		s.t.Fatalf("got %d spans %q with %s=%q, want 1; spans: %s", len(found), name, key, value, s.names())
	}
	return found[0]
}

func (s spanTree) names() string {
	var names []string
	for _, sp := range s.spans {
		names = append(names, sp.Name)
	}
	return strings.Join(names, ", ")
}

func attr(s *tracetest.SpanStub, key attribute.Key) attribute.Value {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// wantAttrs checks attributes of s.
func wantAttrs(t *testing.T, s *tracetest.SpanStub, want map[attribute.Key]any) {
	t.Helper()
	for k, v := range want {
		if got := attr(s, k).AsInterface(); got != v {
			t.Errorf("span %q: %s = %v, want %v", s.Name, k, got, v)
		}
	}
}

func (s spanTree) wantParent(child, parent *tracetest.SpanStub) {
	s.t.Helper()
	if child.Parent.SpanID() != parent.SpanContext.SpanID() || child.SpanContext.TraceID() != parent.SpanContext.TraceID() {
		p := s.byID(child.Parent.SpanID())
		got := "none"
		if p != nil {
			got = p.Name
		}
		s.t.Errorf("span %q: parent %s, want %q", child.Name, got, parent.Name)
	}
}

func recorder() (*tracetest.InMemoryExporter, *sdktrace.TracerProvider) {
	exp := tracetest.NewInMemoryExporter()
	return exp, sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
}

// TestSpansOfAReplayedTurn replays a turn with a traced engine and checks the tree a
// tracing backend would show: the host's spans, each firing inside them, each hook inside
// its firing, store calls inside the hook; the blocked call says who blocked it and why;
// the failing hook is an error and the block is not; the hook asked again says so.
func TestSpansOfAReplayedTurn(t *testing.T) {
	exp, tp := recorder()
	ctx, root := tp.Tracer("test").Start(context.Background(), "replay")
	_, err := Replay(ctx, "t.jsonl", strings.NewReader(tracedTranscript), gateway.Options{Engine: engine.Options{Home: tracedHome(t), TracerProvider: tp}})
	root.End()
	if err != nil {
		t.Fatal(err)
	}
	s := spanTree{t, exp.GetSpans()}
	replaySpan := s.find("replay", "", "")
	msg := s.find("message telegram", "", "")
	s.wantParent(msg, replaySpan)
	turn := s.find("invoke_agent", "", "")
	s.wantParent(turn, msg)
	wantAttrs(t, turn, map[attribute.Key]any{engine.AttrConversationID: "sess-1", "gen_ai.operation.name": "invoke_agent"})

	// The modified call: guard, rewriter (modify), broken (error), guard again (rechecked).
	tool1 := s.find("execute_tool terminal", engine.AttrToolCallID, "call-1")
	s.wantParent(tool1, turn)
	fire1 := s.children(tool1)
	if len(fire1) != 1 || fire1[0].Name != "fire pre_tool_call" {
		t.Fatalf("children of call-1's span: %v, want its pre_tool_call firing (nothing else is registered)", names(fire1))
	}
	wantAttrs(t, fire1[0], map[attribute.Key]any{engine.AttrDecision: "modify", engine.AttrDecisionHook: "rewriter",
		engine.AttrHooks: int64(3), engine.AttrHooksFailed: int64(1), engine.AttrToolCallID: "call-1"})
	hooks := s.children(fire1[0])
	if got := names(hooks); got != "hook guard, hook rewriter, hook broken, hook guard" {
		t.Fatalf("hooks of call-1: %s", got)
	}
	wantAttrs(t, hooks[0], map[attribute.Key]any{engine.AttrRechecked: false, engine.AttrHookDecision: "none",
		engine.AttrHookSource: "plugin", engine.AttrHookDialect: "hermes", engine.AttrHookStatus: "ok",
		engine.AttrToolCallID: "call-1", engine.AttrToolName: "terminal", engine.AttrConversationID: "sess-1"})
	wantAttrs(t, hooks[1], map[attribute.Key]any{engine.AttrHookDecision: "modify"})
	wantAttrs(t, hooks[3], map[attribute.Key]any{engine.AttrRechecked: true, engine.AttrHookName: "guard"})
	for _, h := range []*tracetest.SpanStub{hooks[0], hooks[3]} {
		st := s.children(h)
		if len(st) != 1 || st[0].Name != "store.incr" || attr(st[0], engine.AttrStoreKey).AsString() != "calls" {
			t.Errorf("store spans of %q (rechecked=%v): %v, want one store.incr of calls", h.Name, attr(h, engine.AttrRechecked).AsBool(), names(st))
		}
	}

	// The failing hook: an error span, with its status and message.
	broken := hooks[2]
	if broken.Status.Code != codes.Error || !strings.Contains(broken.Status.Description, "boom") {
		t.Errorf("failing hook's span status: %+v, want Error with the message", broken.Status)
	}
	wantAttrs(t, broken, map[attribute.Key]any{engine.AttrHookStatus: "error", engine.AttrErrorType: "error"})

	// The blocked call: the firing says which hook blocked and why; a denial is no error.
	tool2 := s.find("execute_tool terminal", engine.AttrToolCallID, "call-2")
	wantAttrs(t, tool2, map[attribute.Key]any{"hermes.tool.blocked": true})
	fire2 := s.children(tool2)
	if len(fire2) != 1 {
		t.Fatalf("children of the blocked call's span: %v, want only its pre_tool_call firing", names(fire2))
	}
	wantAttrs(t, fire2[0], map[attribute.Key]any{engine.AttrDecision: "block", engine.AttrDecisionHook: "guard",
		engine.AttrDecisionSource: "plugin", engine.AttrDecisionReason: "not allowed"})
	if fire2[0].Status.Code != codes.Unset {
		t.Errorf("blocked firing's status %v, want unset: a denial is not a failure", fire2[0].Status.Code)
	}
	if ev := fire2[0].Events; len(ev) != 1 || ev[0].Name != engine.EventBlocked {
		t.Errorf("blocked firing's events: %+v, want one %s", ev, engine.EventBlocked)
	}
	guard := s.children(fire2[0])[0]
	wantAttrs(t, guard, map[attribute.Key]any{engine.AttrHookDecision: "block", engine.AttrHookReason: "not allowed"})
	if guard.Status.Code != codes.Unset {
		t.Errorf("blocking hook's status %v, want unset", guard.Status.Code)
	}

	// The gateway hook ran synchronously in the replay: a child of the turn.
	ev := s.find("hook events", engine.AttrEvent, "agent:start")
	s.wantParent(ev, turn)
	wantAttrs(t, ev, map[attribute.Key]any{engine.AttrHookSource: "gateway", engine.AttrHookStatus: "ok"})
}

func names(spans []*tracetest.SpanStub) string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

// TestQueuedEventLinksToEmit: a gateway hook that handles a queued event later runs in a
// trace of its own, linked to the span of the Emit that queued it.
func TestQueuedEventLinksToEmit(t *testing.T) {
	exp, tp := recorder()
	home := testutil.Home(t, hookFiles("events", `events: ["agent:*"]`, `function handle(ev, ctx) return nil end`))
	g, err := gateway.New(context.Background(), gateway.Options{Engine: engine.Options{Home: home, TracerProvider: tp}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, turn := tp.Tracer("test").Start(context.Background(), "turn")
	g.Emit(ctx, hookspec.AgentStartEvent{Platform: "cli", SessionID: "s1", Message: "hi"})
	g.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: map[string]any{}}) // no span to link to
	turn.End()
	if err := g.Close(context.Background()); err != nil { // waits for the queued events
		t.Fatal(err)
	}
	s := spanTree{t, exp.GetSpans()}
	start := s.find("hook events", engine.AttrEvent, "agent:start")
	if start.Parent.IsValid() || start.SpanContext.TraceID() == turn.SpanContext().TraceID() {
		t.Errorf("queued event's span: parent %v in the emitter's trace; want the root of a trace of its own", start.Parent.SpanID())
	}
	if len(start.Links) != 1 || start.Links[0].SpanContext.SpanID() != turn.SpanContext().SpanID() {
		t.Fatalf("queued event's links: %+v, want one to the Emit's span", start.Links)
	}
	wantAttrs(t, start, map[attribute.Key]any{engine.AttrConversationID: "s1"})
	if end := s.find("hook events", engine.AttrEvent, "agent:end"); len(end.Links) != 0 {
		t.Errorf("event emitted without a span: links %+v, want none", end.Links)
	}
}

// TestDroppedEventOnEmitSpan: an event a hook does not get (here: emitted after Close) is an
// event on the emitter's span, naming the hook and why.
func TestDroppedEventOnEmitSpan(t *testing.T) {
	exp, tp := recorder()
	home := testutil.Home(t, hookFiles("events", `events: ["agent:*"]`, `function handle(ev, ctx) return nil end`))
	g, err := gateway.New(context.Background(), gateway.Options{Engine: engine.Options{Home: home, TracerProvider: tp}})
	if err != nil {
		t.Fatal(err)
	}
	g.Close(context.Background())
	ctx, span := tp.Tracer("test").Start(context.Background(), "turn")
	g.Emit(ctx, hookspec.NamedEvent{Name: "agent:end", Data: map[string]any{}})
	span.End()
	turn := spanTree{t, exp.GetSpans()}.find("turn", "", "")
	if len(turn.Events) != 1 || turn.Events[0].Name != gateway.EventDropped {
		t.Fatalf("events on the emitter's span: %+v, want one %s", turn.Events, gateway.EventDropped)
	}
	got := map[string]string{}
	for _, kv := range turn.Events[0].Attributes {
		got[string(kv.Key)] = kv.Value.Emit()
	}
	if got["hermes.hook.name"] != "events" || got["hermes.drop.reason"] != hookspec.DropClosed.String() || got["hermes.event"] != "agent:end" {
		t.Errorf("dropped event's attributes: %v", got)
	}
}

// TestNoProviderNoSpans: without a provider nothing is traced, even when the caller's
// context carries a span (the global provider is never used).
func TestNoProviderNoSpans(t *testing.T) {
	exp, tp := recorder()
	ctx, root := tp.Tracer("test").Start(context.Background(), "replay")
	if _, err := Replay(ctx, "t.jsonl", strings.NewReader(tracedTranscript), gateway.Options{Engine: engine.Options{Home: tracedHome(t)}}); err != nil {
		t.Fatal(err)
	}
	root.End()
	if got := exp.GetSpans(); len(got) != 1 {
		t.Errorf("got %d spans (%s), want only the test's own", len(got), spanTree{t, got}.names())
	}
}
