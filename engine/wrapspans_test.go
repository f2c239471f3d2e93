package engine

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A wrap chain is a span with one child per callback, each the parent of the one inside it,
// and the innermost the parent of what the call does under its context: the onion, in the
// trace, for both wrap hooks. Each callback's span says how many times it called next.
func TestWrapChainSpans(t *testing.T) {
	for _, k := range chainKinds {
		t.Run(k.hook, func(t *testing.T) {
			e, exp, tp := tracedEngine(t, files(
				k.plugin("outer", "priority: 10\n", `local ok = pcall(next); return next()`),
				k.plugin("inner", "", `return next()`),
			))
			tracer := tp.Tracer("host")
			host := &hostCall{onRun: func(ctx context.Context) {
				_, span := tracer.Start(ctx, "call")
				span.End()
			}}
			if run := k.run(context.Background(), e, host); run.text != "ran ls" {
				t.Fatalf("got %q, failed %q", run.text, run.failed)
			}
			checkChainSpans(t, k.hook, exp.GetSpans())
		})
	}
}

// checkChainSpans checks the spans of a chain of two callbacks, outer calling next twice
// and inner once each time.
func checkChainSpans(t *testing.T, hook string, spans tracetest.SpanStubs) {
	t.Helper()
	byName := map[string][]tracetest.SpanStub{}
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
		byID[s.SpanContext.SpanID()] = s
	}
	fire, outer, inner, call := byName["fire "+hook], byName["hook outer"], byName["hook inner"], byName["call"]
	if len(fire) != 1 || len(outer) != 1 || len(inner) != 2 || len(call) != 2 {
		t.Fatalf("spans %v; want one firing, one outer hook, the inner hook and the call twice", keys(byName))
	}
	if outer[0].Parent.SpanID() != fire[0].SpanContext.SpanID() {
		t.Errorf("the outer hook's parent is %v, want the firing", outer[0].Parent.SpanID())
	}
	for i := range 2 {
		if inner[i].Parent.SpanID() != outer[0].SpanContext.SpanID() {
			t.Errorf("inner hook %d: parent %q, want the outer hook", i, byID[inner[i].Parent.SpanID()].Name)
		}
		if p := byID[call[i].Parent.SpanID()]; p.Name != "hook inner" {
			t.Errorf("call %d: parent %q, want the inner hook", i, p.Name)
		}
	}
	if n := spanAttr(outer[0], AttrNexts).AsInt64(); n != 2 {
		t.Errorf("outer hook's nexts = %d, want 2", n)
	}
	for _, s := range []tracetest.SpanStub{fire[0], outer[0]} {
		if spanAttr(s, AttrConversationID).AsString() != "s1" || spanAttr(s, AttrEvent).AsString() != hook {
			t.Errorf("%s attributes %v", s.Name, s.Attributes)
		}
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
