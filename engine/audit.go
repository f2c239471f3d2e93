package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"

	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// audit logs one decision that changed something (a block, a skip, a rewrite, an injected
// context, a transform) as structured fields: the hook, the event, who decided, and
// digests of the value before and after, so nothing sensitive is logged in full.
func (e *Engine) audit(ctx context.Context, rep Report) {
	if rep.Decision.Kind == hookspec.None || !e.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	var decision, by string
	var before, after any
	m := e.masker()
	if !m.Empty() { // the digests are of the masked values, as the decision log sends them
		rep.Payload = m.Apply(rep.Payload)
		rep.Decision.Args = maskedAs(m, "args", rep.Decision.Args)
		rep.Decision.Request = maskedAs(m, "request", rep.Decision.Request)
	}
	switch rep.Event {
	case hookspec.PreToolCall:
		decision, by, before = toolDecisionNames[rep.Decision.Kind], rep.decider().Name, rep.Payload["args"]
		after = rep.Decision.Message
		if rep.Decision.Args != nil {
			after = rep.Decision.Args
		}
	case hookspec.PreLLMCall:
		decision, by, before, after = "inject_context", contributors(rep), rep.Payload["user_message"], rep.Context()
	case hookspec.OnSessionStart: // kept for the session's first turn
		decision, by, before, after = "inject_context", contributors(rep), rep.Payload["session_id"], rep.Context()
	case hookspec.PostToolCall: // appended to the result the model sees
		decision, by, before, after = "add_to_result", contributors(rep), rep.Payload["result"], rep.Context()
	case hookspec.TransformToolResult, hookspec.TransformTerminalOutput, hookspec.TransformLLMOutput:
		t, _ := rep.Text()
		decision, by, before, after = "transform", rep.decider().Name, rep.Payload[transformedKey[rep.Event.String()]], t
	case hookspec.PreAPIRequest: // the request rewritten, or answered without the model
		decision, by, before, after = "modify_request", rep.decider().Name, rep.Payload["request"], rep.Decision.Request
		if rep.Decision.Kind == hookspec.Respond {
			decision, after = "respond", rep.Decision.Response
		}
	case hookspec.PreGatewayDispatch:
		d := rep.Dispatch()
		ev, _ := rep.Payload["event"].(map[string]any)
		decision, by, before = d.Action.String(), d.Hook, ev["text"]
		if d.Action == DispatchRewrite {
			after = d.Text
		}
		if d.Action == DispatchAllow {
			return
		}
	default:
		return
	}
	e.logger.LogAttrs(ctx, slog.LevelInfo, "hook decision",
		slog.String("audit", decision), slog.String("event", rep.Event.String()), slog.String("by", by),
		slog.String("before_sha256", digest(before)), slog.String("after_sha256", digest(after)))
}

// toolDecisionNames name pre_tool_call's decisions in the audit log.
var toolDecisionNames = map[hookspec.Kind]string{
	hookspec.Block: "block", hookspec.Ask: "ask", hookspec.Approve: "approve", hookspec.Modify: "modify",
}

// transformedKey is the kwarg a transform replaces.
var transformedKey = map[string]string{
	hooknames.TransformToolResult: "result", hooknames.TransformTerminalOutput: "output", hooknames.TransformLLMOutput: "response_text",
}

// digest is a short SHA-256 of a value's JSON form ("" for nil).
func digest(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// contributors names every hook that added context, in order.
func contributors(rep Report) string {
	names := make([]string, len(rep.Decision.From))
	for i, j := range rep.Decision.From {
		names[i] = rep.Hooks[j].Name
	}
	return strings.Join(names, ",")
}

// maskedAs is v masked as the kwarg key it replaces; nil stays nil.
func maskedAs(m *decisionlog.Masker, key string, v map[string]any) map[string]any {
	if v == nil {
		return nil
	}
	out, _ := m.Apply(map[string]any{key: v})[key].(map[string]any)
	return out
}
