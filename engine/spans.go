package engine

import (
	"context"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/hookspec"
)

// TracerName is the instrumentation scope of the engine's spans (and the gateway's).
const TracerName = "github.com/hermes-hooks/hermes"

// Attribute keys of the spans (docs/observability.md): the OpenTelemetry GenAI semantic
// conventions' names where they name the thing, hermes.* for the rest.
const (
	AttrConversationID = attribute.Key("gen_ai.conversation.id") // the session_id (else parent_session_id) of the call
	AttrToolName       = attribute.Key("gen_ai.tool.name")       // the tool of a tool hook
	AttrToolCallID     = attribute.Key("gen_ai.tool.call.id")    // the tool_call_id of a tool hook
	AttrErrorType      = attribute.Key("error.type")             // a failed hook's status: error, timeout, cancelled, busy

	AttrEvent          = attribute.Key("hermes.event")            // the hook point (pre_tool_call, agent:step, ...)
	AttrTaskID         = attribute.Key("hermes.task.id")          // the task_id of the call (the agent's turn)
	AttrTurnID         = attribute.Key("hermes.turn.id")          // the turn_id of the call, when the host gives one
	AttrHooks          = attribute.Key("hermes.hooks")            // how many hooks a firing ran
	AttrHooksFailed    = attribute.Key("hermes.hooks.failed")     // how many of them failed
	AttrDecision       = attribute.Key("hermes.decision")         // what the hooks decided together: none, block, ask, approve, modify, context, replace, allow, skip, rewrite, continue, deny, respond
	AttrDecisionHook   = attribute.Key("hermes.decision.hook")    // the hook whose answer decided
	AttrDecisionSource = attribute.Key("hermes.decision.source")  // its source
	AttrDecisionReason = attribute.Key("hermes.decision.reason")  // why: a block's message, a question, a skip's reason
	AttrHookName       = attribute.Key("hermes.hook.name")        // plugin name, shell command or gateway hook name
	AttrHookSource     = attribute.Key("hermes.hook.source")      // plugin, shell, gateway or engine
	AttrHookDialect    = attribute.Key("hermes.hook.dialect")     // the answer shapes the hook speaks: hermes, or claude for a hook written for Claude Code
	AttrHookStatus     = attribute.Key("hermes.hook.status")      // ok, error, timeout, skipped, cancelled, busy
	AttrHookDecision   = attribute.Key("hermes.hook.decision")    // what this hook's answer asks for (the same values as hermes.decision)
	AttrHookReason     = attribute.Key("hermes.hook.reason")      // its block message, question or skip reason
	AttrHookError      = attribute.Key("hermes.hook.error")       // why it failed
	AttrHookFailClosed = attribute.Key("hermes.hook.fail_closed") // it failed and, fail_closed, blocked the call
	AttrRechecked      = attribute.Key("hermes.hook.rechecked")   // a later hook modified the arguments: this is the hook asked again
	AttrDurationMS     = attribute.Key("hermes.hook.duration_ms") // how long the hook ran (the wait for a Lua state not included)
	AttrWaitMS         = attribute.Key("hermes.hook.wait_ms")     // how long it waited for a free Lua state or process
	AttrStoreOp        = attribute.Key("db.operation.name")       // a store call: get, set, incr, delete, keys, update
	AttrStoreKey       = attribute.Key("hermes.store.key")        // its key (or prefix)
	AttrApproved       = attribute.Key("hermes.approved")         // on an ask span: the person (Options.Approve) allowed the call
	AttrLinkedEmit     = attribute.Key("hermes.link")             // on a gateway event's link: "emit", the call that queued it
)

// EventBlocked is the span event a blocked tool call's firing records: which hook blocked
// it and why. A block is a decision, not a failure: the span's status stays unset.
const EventBlocked = "hermes.blocked"

// newTracer is the tracer of p, or nil for none.
func newTracer(p trace.TracerProvider) trace.Tracer {
	if p == nil {
		return nil
	}
	return p.Tracer(TracerName)
}

// Tracer is the engine's tracer, of Options.TracerProvider under TracerName; nil when
// nothing is traced. Package gateway and its runner make their spans with it.
func (e *Engine) Tracer() trace.Tracer { return e.tracer }

// firing is what one traced firing knows for its spans; a nil *firing traces nothing.
type firing struct {
	tracer trace.Tracer
	span   trace.Span
	event  string
	ids    []attribute.KeyValue
}

// startFiring starts the span of a firing of hook with kw, a child of ctx's span, and
// returns the context its hooks run under. Attributes are built only for a span that
// records, and set when it ends.
func (e *Engine) startFiring(ctx context.Context, hook string, kw args) (context.Context, *firing) {
	f := &firing{tracer: e.tracer, event: hook}
	ctx, f.span = e.tracer.Start(ctx, "fire "+hook)
	if f.span.IsRecording() {
		f.ids = idAttrs(kw)
	}
	return ctx, f
}

// end records on the firing's span what the hooks of rep decided together, and ends it. A
// hook failure shows on that hook's span (status Error); a block is the decision attributes
// and an EventBlocked event, never an error.
func (f *firing) end(rep Report) {
	span := f.span
	if !span.IsRecording() {
		span.End()
		return
	}
	failed := 0
	for _, r := range rep.Hooks {
		if failedStatus(r.Status) {
			failed++
		}
	}
	attrs := make([]attribute.KeyValue, 0, 7+len(f.ids)) // one SetAttributes: the SDK copies them once
	attrs = append(attrs, AttrEvent.String(f.event), AttrHooks.Int(len(rep.Hooks)), AttrHooksFailed.Int(failed),
		AttrDecision.String(kindName(rep.Decision.Kind)))
	attrs = append(attrs, f.ids...)
	if h := rep.decider(); h != nil {
		attrs = append(attrs, AttrDecisionHook.String(h.Name), AttrDecisionSource.String(h.Source))
		if m := rep.Decision.Message; m != "" {
			attrs = append(attrs, AttrDecisionReason.String(m))
		}
		if rep.Decision.Kind == hookspec.Block {
			span.AddEvent(EventBlocked, trace.WithAttributes(AttrHookName.String(h.Name), AttrHookSource.String(h.Source),
				AttrDecisionReason.String(rep.Decision.Message)))
		}
	}
	span.SetAttributes(attrs...)
	span.End()
}

// fireHook runs cb into r (its answer converted into answer, when not nil: see callback),
// in a span of its own when f is not nil.
func fireHook(ctx context.Context, f *firing, hook string, cb callback, kw args, timed, rechecked bool, answer map[string]any, r *hookspec.Result) {
	if f == nil {
		cb.fire(ctx, hook, kw, timed, answer, r)
		return
	}
	ctx, span := f.tracer.Start(ctx, "hook")
	if !span.IsRecording() {
		cb.fire(ctx, hook, kw, timed, answer, r)
		span.End()
		return
	}
	cb.fire(ctx, hook, kw, true, answer, r)
	span.SetName("hook " + r.Name)
	attrs := make([]attribute.KeyValue, 0, 12+len(f.ids))
	attrs = append(attrs, AttrEvent.String(f.event), AttrHookName.String(r.Name), AttrHookSource.String(r.Source),
		AttrHookDialect.String(dialectOf(cb)), AttrHookStatus.String(r.Status.String()),
		AttrHookDecision.String(kindName(r.Answer.Kind)), AttrRechecked.Bool(rechecked),
		AttrDurationMS.Float64(hookspec.DurationMS(r.Duration)))
	if r.Wait > 0 {
		attrs = append(attrs, AttrWaitMS.Float64(hookspec.DurationMS(r.Wait)))
	}
	if m := r.Answer.Message; m != "" {
		attrs = append(attrs, AttrHookReason.String(m))
	}
	if failedStatus(r.Status) {
		attrs = append(attrs, AttrErrorType.String(r.Status.String()), AttrHookError.String(r.Err))
		if r.Answer.Kind == hookspec.Block {
			attrs = append(attrs, AttrHookFailClosed.Bool(true))
		}
		span.SetStatus(codes.Error, r.Err)
	}
	span.SetAttributes(append(attrs, f.ids...)...)
	span.End()
}

// startAsk starts the span of the question hook asked a person (Options.Approve), when the
// engine traces; end records the answer.
func (e *Engine) startAsk(ctx context.Context, hook string) (context.Context, func(*Block)) {
	if e.tracer == nil {
		return ctx, func(*Block) {}
	}
	ctx, span := e.tracer.Start(ctx, "ask", trace.WithAttributes(AttrDecisionHook.String(hook)))
	return ctx, func(blk *Block) {
		if blk != nil {
			span.SetAttributes(AttrApproved.Bool(false), AttrDecisionReason.String(blk.Message))
		} else {
			span.SetAttributes(AttrApproved.Bool(true))
		}
		span.End()
	}
}

// failedStatus reports whether a hook with status s failed (skipped is not a failure).
func failedStatus(s hookspec.Status) bool {
	return s != hookspec.StatusOK && s != hookspec.StatusSkipped
}

// dialectOf is the answer shapes cb speaks.
func dialectOf(cb callback) string {
	if c, ok := cb.(*shellCallback); ok && c.hook.Dialect != "" {
		return c.hook.Dialect
	}
	return "hermes"
}

// idAttrs are the ids of the call kw describes: session, task (turn) and tool call.
func idAttrs(kw args) []attribute.KeyValue {
	var session, task, turn, call, tool string
	switch a := kw.(type) {
	case *toolArgs:
		session, task, call, tool = a.call.SessionID, a.call.TaskID, a.call.ToolCallID, a.call.Name
	case *turnArgs:
		session = a.turn.SessionID
	default:
		m := kw.Map()
		str := func(k string) string { s, _ := m[k].(string); return s }
		session, task, turn, call, tool = str("session_id"), str("task_id"), str("turn_id"), str("tool_call_id"), str("tool_name")
		if session == "" {
			session = str("parent_session_id")
		}
	}
	var out []attribute.KeyValue
	for _, kv := range []struct {
		k attribute.Key
		v string
	}{{AttrConversationID, session}, {AttrTaskID, task}, {AttrTurnID, turn}, {AttrToolCallID, call}, {AttrToolName, tool}} {
		if kv.v != "" {
			out = append(out, kv.k.String(kv.v))
		}
	}
	return out
}

// kindName names a decision kind as the spans show it.
func kindName(k hookspec.Kind) string {
	switch k {
	case hookspec.None:
		return "none"
	case hookspec.Block:
		return "block"
	case hookspec.Context:
		return "context"
	case hookspec.Replace:
		return "replace"
	case hookspec.Allow:
		return "allow"
	case hookspec.Skip:
		return "skip"
	case hookspec.Rewrite:
		return "rewrite"
	case hookspec.Modify:
		return "modify"
	case hookspec.Approve:
		return "approve"
	case hookspec.Ask:
		return "ask"
	case hookspec.Continue:
		return "continue"
	case hookspec.Deny:
		return "deny"
	case hookspec.Respond:
		return "respond"
	}
	return "kind" + strconv.Itoa(int(k))
}

// tracedStore makes every call of a hook's store a span, a child of the hook's span (the
// call's context carries it).
type tracedStore struct {
	s      hookspec.Store
	tracer trace.Tracer
}

var _ hookspec.Store = (*tracedStore)(nil)

// traceStore is s with spans when the engine traces, else s.
func (e *Engine) traceStore(s hookspec.Store) hookspec.Store {
	if e.tracer == nil {
		return s
	}
	return &tracedStore{s: s, tracer: e.tracer}
}

func (s *tracedStore) start(ctx context.Context, op, key string) (context.Context, trace.Span) {
	return s.tracer.Start(ctx, "store."+op, trace.WithAttributes(AttrStoreOp.String(op), AttrStoreKey.String(key)))
}

// end ends span, marking it failed when err is not nil.
func end(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

func (s *tracedStore) Get(ctx context.Context, key string) (any, bool, error) {
	ctx, span := s.start(ctx, "get", key)
	v, ok, err := s.s.Get(ctx, key)
	end(span, err)
	return v, ok, err
}

func (s *tracedStore) Set(ctx context.Context, key string, value any, ttl time.Duration) error {
	ctx, span := s.start(ctx, "set", key)
	err := s.s.Set(ctx, key, value, ttl)
	end(span, err)
	return err
}

func (s *tracedStore) Incr(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error) {
	ctx, span := s.start(ctx, "incr", key)
	v, err := s.s.Incr(ctx, key, n, ttl)
	end(span, err)
	return v, err
}

func (s *tracedStore) Delete(ctx context.Context, key string) (bool, error) {
	ctx, span := s.start(ctx, "delete", key)
	ok, err := s.s.Delete(ctx, key)
	end(span, err)
	return ok, err
}

func (s *tracedStore) Keys(ctx context.Context, prefix string) ([]string, error) {
	ctx, span := s.start(ctx, "keys", prefix)
	keys, err := s.s.Keys(ctx, prefix)
	end(span, err)
	return keys, err
}

func (s *tracedStore) Update(ctx context.Context, key string, fn func(any, bool) (any, error)) (any, error) {
	ctx, span := s.start(ctx, "update", key)
	v, err := s.s.Update(ctx, key, fn)
	end(span, err)
	return v, err
}
