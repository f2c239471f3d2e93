package engine

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/hookspec"
)

// A wrap chain is a span with one child per callback, each the parent of the one inside it,
// and the innermost the parent of what the tool does under its context: the onion, in the
// trace. Each callback's span says how many times it called next.
func TestWrapChainSpans(t *testing.T) {
	e, exp, tp := tracedEngine(t, files(
		pluginFiles("outer", "priority: 10\n", wrapHandler("wrap_tool_call", `local ok = pcall(next); return next()`)),
		pluginFiles("inner", "", wrapHandler("wrap_tool_call", `return next()`)),
	))
	tracer := tp.Tracer("host")
	run := e.RunTool(context.Background(), hookspec.ToolCall{Name: "terminal", SessionID: "s1", ToolCallID: "c1"},
		func(ctx context.Context, _ hookspec.ToolCall) (string, error) {
			_, span := tracer.Start(ctx, "tool")
			span.End()
			return "ok", nil
		})
	if run.Result != "ok" {
		t.Fatalf("result %q", run.Result)
	}
	byName := map[string][]tracetest.SpanStub{}
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range exp.GetSpans() {
		byName[s.Name] = append(byName[s.Name], s)
		byID[s.SpanContext.SpanID()] = s
	}
	fire, outer, inner, tool := byName["fire wrap_tool_call"], byName["hook outer"], byName["hook inner"], byName["tool"]
	if len(fire) != 1 || len(outer) != 1 || len(inner) != 2 || len(tool) != 2 {
		t.Fatalf("spans %v; want one firing, one outer hook, the inner hook and the tool twice", keys(byName))
	}
	if outer[0].Parent.SpanID() != fire[0].SpanContext.SpanID() {
		t.Errorf("the outer hook's parent is %v, want the firing", outer[0].Parent.SpanID())
	}
	for i := range 2 {
		if inner[i].Parent.SpanID() != outer[0].SpanContext.SpanID() {
			t.Errorf("inner hook %d: parent %q, want the outer hook", i, byID[inner[i].Parent.SpanID()].Name)
		}
		if p := byID[tool[i].Parent.SpanID()]; p.Name != "hook inner" {
			t.Errorf("tool run %d: parent %q, want the inner hook", i, p.Name)
		}
	}
	if n := spanAttr(outer[0], AttrNexts).AsInt64(); n != 2 {
		t.Errorf("outer hook's nexts = %d, want 2", n)
	}
	if spanAttr(fire[0], AttrToolCallID).AsString() != "c1" {
		t.Errorf("firing attributes %v", fire[0].Attributes)
	}
}

func keys(m map[string][]tracetest.SpanStub) []string {
	var out []string
	for k, v := range m {
		for range v {
			out = append(out, k)
		}
	}
	return out
}
