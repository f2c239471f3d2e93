package hookspec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// expected is, per event that reads answers, the shapes it accepts, for messages.
var expected = map[string]string{
	hooknames.PreToolCall:             `{action="block", message="..."}, {action="modify", args={...}}, {action="approve"}, {action="ask", message="..."}, or Claude Code's {decision="block", reason="..."} / {hookSpecificOutput={permissionDecision=...}}; beside any of them or alone, {context="..."}`,
	hooknames.PreLLMCall:              `a string, {context="..."}, or {action="block", message="..."}`,
	hooknames.PreVerify:               `{action="continue", reason="..."}`,
	hooknames.PreCompact:              `a string, or {context="..."}`,
	hooknames.PreApprovalRequest:      `{action="allow", args={...}?, remember=true?} or {action="deny", message="...", remember=true?}`,
	hooknames.TransformToolResult:     `a string, or {result="..."}`,
	hooknames.TransformTerminalOutput: `a string, or {output="..."}`,
	hooknames.TransformLLMOutput:      `a non-empty string, or {response_text="..."}`,
	hooknames.PreGatewayDispatch:      `{action="skip", reason=...}, {action="rewrite", text="..."} or {action="allow"}`,
	hooknames.PreAPIRequest:           `{action="modify", request={...}} or {action="respond", response={...}}, or nothing (an observer)`,
}

// answerKeys are the keys an answer to event may hold, for did-you-mean.
var answerKeys = map[string][]string{
	hooknames.PreToolCall:             {"action", "message", "decision", "reason", "args", "hookSpecificOutput", "context"},
	hooknames.PreLLMCall:              {"context", "action", "message"},
	hooknames.PreVerify:               {"action", "reason"},
	hooknames.PreCompact:              {"context"},
	hooknames.PreApprovalRequest:      {"action", "message", "args", "remember"},
	hooknames.TransformToolResult:     {"result"},
	hooknames.TransformTerminalOutput: {"output"},
	hooknames.TransformLLMOutput:      {"response_text"},
	hooknames.PreGatewayDispatch:      {"action", "reason", "text"},
	hooknames.PreAPIRequest:           {"action", "request", "response"},
}

// actions are the values of action (and decision) an answer to event may hold.
var actions = map[string][]string{
	hooknames.PreToolCall:        {"block", "allow", "approve", "modify", "ask"},
	hooknames.PreGatewayDispatch: {"skip", "rewrite", "allow"},
	hooknames.PreLLMCall:         {"block"},
	hooknames.PreVerify:          {"continue"},
	hooknames.PreApprovalRequest: {"allow", "deny"},
	hooknames.PreAPIRequest:      {"modify", "respond"},
}

// Problem says what is wrong with an answer to event that Normalise reads as nothing, or ""
// when it is fine to mean nothing: nil, an empty table, an answer to an observer, a block
// table that lets the call run ({action="allow"}), or a blank context. closest finds the
// nearest of candidates to a misspelled key or action ("" for none).
func Problem(event string, v any, closest func(name string, candidates []string) string) string {
	want, reads := expected[event]
	if !reads || v == nil || Normalise(event, v).Kind != None || meansNothing(event, v) {
		return ""
	}
	msg := fmt.Sprintf("answer %s does nothing for %s: expected %s", show(v), event, want)
	if obj, ok := v.(map[string]any); ok && event == hooknames.PreAPIRequest {
		if p := apiProblem(obj); p != "" {
			return msg + " (" + p + ")"
		}
	}
	if obj, ok := v.(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(obj)) { // sorted: the same hint every time
			val := obj[k]
			if slices.Contains(answerKeys[event], k) {
				if s, isStr := val.(string); isStr && (k == "action" || k == "decision") {
					if c := closest(s, actions[event]); c != "" && c != s {
						return msg + fmt.Sprintf(" (did you mean %s=%q?)", k, c)
					}
				}
				continue
			}
			if c := closest(k, answerKeys[event]); c != "" {
				return msg + fmt.Sprintf(" (did you mean %q instead of %q?)", c, k)
			}
		}
	}
	return msg
}

// meansNothing reports whether v is an answer that deliberately changes nothing.
func meansNothing(event string, v any) bool {
	if _, isTable := v.(map[string]any); event == hooknames.PreAPIRequest && !isTable {
		return true // what an observer returned before pre_api_request read answers
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return true
		}
		for _, k := range []string{"action", "decision"} {
			if a, ok := x[k].(string); ok && a == "allow" && event == hooknames.PreToolCall {
				return true
			}
		}
		if c, ok := x["context"].(string); ok && (event == hooknames.PreLLMCall || event == hooknames.PreCompact || event == hooknames.PreToolCall) && isBlank(c) && x["action"] == nil {
			return true
		}
		if r, ok := x["response_text"].(string); ok && event == hooknames.TransformLLMOutput && r == "" {
			return true
		}
	case []any:
		return len(x) == 0
	case string:
		return (event == hooknames.PreLLMCall || event == hooknames.PreCompact) && isBlank(x) || event == hooknames.TransformLLMOutput && x == ""
	case bool:
		return !x
	}
	return false
}

// isBlank is Normalise's "blank": nothing but white space (any Unicode space), so that a
// context Normalise passes over for being blank is never reported as a mistake.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// show renders v in JSON, shortened.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// AskProblem says what is wrong with a pre_tool_call answer that asks a person with
// arguments that are not a table (args, or Claude Code's updatedInput): the person is asked
// about the call's own arguments (asking is the safe side), and the hook is told. "" when
// the answer is not such an ask.
func AskProblem(event string, v any) string {
	obj, ok := v.(map[string]any)
	if event != hooknames.PreToolCall || !ok || Normalise(event, v).Kind != Ask {
		return ""
	}
	bad := func(key string, a any) string {
		if _, isTable := a.(map[string]any); a == nil || isTable {
			return ""
		}
		return fmt.Sprintf("the ask's %s is %s, not a table: the person is asked about the call's own arguments", key, show(a))
	}
	if _, canonical := obj["action"].(string); canonical {
		return bad("args", obj["args"])
	}
	if h, ok := obj["hookSpecificOutput"].(map[string]any); ok {
		return bad("updatedInput", h["updatedInput"])
	}
	return ""
}
