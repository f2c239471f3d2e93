package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

func tracedEngine(t *testing.T, files map[string]string) (*Engine, *tracetest.InMemoryExporter, *sdktrace.TracerProvider) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	return engineWith(t, testutil.Home(t, files), Options{TracerProvider: tp}), exp, tp
}

func spanAttr(s tracetest.SpanStub, key attribute.Key) attribute.Value {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// TestFailClosedSpan: a fail_closed guard that fails blocks the call; its span is both an
// error and the block, and the firing names it as the decider.
func TestFailClosedSpan(t *testing.T) {
	e, exp, _ := tracedEngine(t, pluginFiles("strict", "fail_closed: true\n", one(hooknames.PreToolCall, `error("policy store down")`)))
	if blk := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", SessionID: "s1", ToolCallID: "c1"}).Block; blk == nil {
		t.Fatal("fail_closed guard failed and the call was let through")
	}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("got %d spans, want the firing and the hook", len(spans))
	}
	hook, fire := spans[0], spans[1] // ended in that order
	if hook.Name != "hook strict" || fire.Name != "fire pre_tool_call" {
		t.Fatalf("spans %q, %q", hook.Name, fire.Name)
	}
	if hook.Status.Code != codes.Error || !spanAttr(hook, AttrHookFailClosed).AsBool() || spanAttr(hook, AttrHookDecision).AsString() != "block" {
		t.Errorf("failed closed hook: status %v, attributes %v", hook.Status, hook.Attributes)
	}
	if spanAttr(fire, AttrDecision).AsString() != "block" || spanAttr(fire, AttrDecisionHook).AsString() != "strict" {
		t.Errorf("firing: %v", fire.Attributes)
	}
	if fire.Parent.IsValid() {
		t.Errorf("a call without a span in its context: the firing should be a root, got parent %v", fire.Parent.SpanID())
	}
}

// TestInvokeSpanIDs: the ids of any hook's kwargs are attributes, and the firing is a child
// of the caller's span.
func TestInvokeSpanIDs(t *testing.T) {
	e, exp, tp := tracedEngine(t, pluginFiles("obs", "", one("on_compact", `return nil`)))
	ctx, caller := tp.Tracer("test").Start(context.Background(), "host")
	e.Fire(ctx, hookspec.HookNamed("on_compact"), map[string]any{"parent_session_id": "p1", "task_id": "t1", "turn_id": "turn-3"})
	caller.End()
	spans := exp.GetSpans()
	var fire tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "fire on_compact" {
			fire = s
		}
	}
	if fire.Parent.SpanID() != caller.SpanContext().SpanID() {
		t.Fatalf("firing's parent %v, want the caller's span", fire.Parent.SpanID())
	}
	for k, want := range map[attribute.Key]string{AttrConversationID: "p1", AttrTaskID: "t1", AttrTurnID: "turn-3", AttrEvent: "on_compact"} {
		if got := spanAttr(fire, k).AsString(); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// TestSpansConcurrent: calls from many goroutines each get their own tree, under their own
// caller's span.
func TestSpansConcurrent(t *testing.T) {
	e, exp, tp := tracedEngine(t, pluginFiles("guard", "states: 2\n", one(hooknames.PreToolCall, `if kw.args.command == "rm" then return {action="block", message="no"} end`)))
	const workers, calls = 8, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				id := fmt.Sprintf("w%d-%d", w, i)
				ctx, span := tp.Tracer("test").Start(context.Background(), id)
				cmd := "ls"
				if i%2 == 0 {
					cmd = "rm"
				}
				blocked := e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": cmd}, ToolCallID: id}).Block != nil
				span.End()
				if blocked != (cmd == "rm") {
					t.Errorf("%s: blocked=%v", id, blocked)
				}
			}
		})
	}
	wg.Wait()
	spans := exp.GetSpans()
	byID := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s
	}
	fires := 0
	for _, s := range spans {
		if s.Name != "fire pre_tool_call" {
			continue
		}
		fires++
		parent := byID[s.Parent.SpanID().String()]
		if parent.Name != spanAttr(s, AttrToolCallID).AsString() {
			t.Errorf("firing of %s under the span %q", spanAttr(s, AttrToolCallID).AsString(), parent.Name)
		}
	}
	if want := workers * calls; fires != want || len(spans) != 3*want {
		t.Errorf("%d firings and %d spans, want %d and %d", fires, len(spans), want, 3*want)
	}
}

// TestAskSpan: the question a hook puts to a person is a span of its own with the answer.
func TestAskSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	for _, yes := range []bool{true, false} {
		exp.Reset()
		e := engineWith(t, testutil.Home(t, pluginFiles("asker", "", one(hooknames.PreToolCall, `return {action="ask", message="sure?"}`))),
			Options{TracerProvider: tp, Approve: func(context.Context, ApprovalRequest) (bool, error) { return yes, nil }})
		d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal"})
		if (d.Block == nil) != yes {
			t.Fatalf("approver said %v, block %v", yes, d.Block)
		}
		var ask *tracetest.SpanStub
		for i, s := range exp.GetSpans() {
			if s.Name == "ask" {
				ask = &exp.GetSpans()[i]
			}
		}
		if ask == nil || spanAttr(*ask, AttrApproved).AsBool() != yes || spanAttr(*ask, AttrDecisionHook).AsString() != "asker" {
			t.Errorf("approver said %v: ask span %+v", yes, ask)
		}
	}
}

// spanLogHandler records the span of the context of each record it handles.
type spanLogHandler struct {
	mu    sync.Mutex
	spans map[string]string // message -> span id
}

func (h *spanLogHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *spanLogHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *spanLogHandler) WithGroup(string) slog.Handler            { return h }
func (h *spanLogHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.spans[r.Message] = trace.SpanContextFromContext(ctx).SpanID().String()
	return nil
}

// TestAuditLineInFiringSpan: the audit log's line of a decision is logged under the
// firing's span, so a log handler that reads spans stamps it with the trace.
func TestAuditLineInFiringSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	h := &spanLogHandler{spans: map[string]string{}}
	e := engineWith(t, testutil.Home(t, pluginFiles("guard", "", one(hooknames.PreToolCall, `return {action="block", message="no"}`))),
		Options{TracerProvider: tp, Logger: slog.New(h)})
	e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal"})
	var fire string
	for _, s := range exp.GetSpans() {
		if s.Name == "fire pre_tool_call" {
			fire = s.SpanContext.SpanID().String()
		}
	}
	if got := h.spans["hook decision"]; fire == "" || got != fire {
		t.Errorf("audit line logged under span %q, want the firing's %q", got, fire)
	}
}

// Every kind of decision has its name in spans and the decision log, none a placeholder.
func TestEveryKindHasAName(t *testing.T) {
	seen := map[string]hookspec.Kind{}
	for k := hookspec.None; k <= hookspec.Respond; k++ {
		n := kindName(k)
		if strings.HasPrefix(n, "kind") {
			t.Errorf("kind %d has no name: %q", k, n)
		}
		if prev, dup := seen[n]; dup {
			t.Errorf("kinds %d and %d are both %q", prev, k, n)
		}
		seen[n] = k
	}
}
