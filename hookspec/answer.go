package hookspec

import "strings"

// Kind is what an answer asks for.
type Kind int

// Kinds of answers and decisions.
const (
	None    Kind = iota // nothing: the hook lets things be
	Block               // pre_tool_call: veto the tool call (Message says why)
	Context             // pre_llm_call: add Text to this turn's user message
	Replace             // a transform: use Text instead of the value
	Allow               // pre_gateway_dispatch: dispatch the message as it is (ends the scan)
	Skip                // pre_gateway_dispatch: drop the message (Message is the reason)
	Rewrite             // pre_gateway_dispatch: dispatch Text instead
)

// Answer is one hook's answer to one call, read from whichever accepted shape it came in.
type Answer struct {
	Kind    Kind
	Message string // Block: why ("" = the default message of its source); Skip: the reason
	Text    string // Context, Replace, Rewrite
}

// Normalise reads one hook's answer to event: a Lua callback's return value converted to
// Go, or a shell hook's stdout decoded from JSON. The accepted shapes are the same for both
// sources:
//
//   - pre_tool_call: {action="block", message=...} or {decision="block", reason=...} (the
//     Claude Code form); when both are present the canonical one decides; the message is
//     message (canonical) or reason (Claude Code), falling back to the other field. A block
//     without a usable message still blocks, with its source's default message.
//   - pre_llm_call: a non-blank string, or {context=<non-blank string>}.
//   - transform_tool_result: a string (even ""), or {result=<string>}.
//   - transform_terminal_output: a string (even ""), or {output=<string>}.
//   - transform_llm_output: a non-empty string, or {response_text=<non-empty string>}.
//   - pre_gateway_dispatch: {action="skip", reason=...}, {action="rewrite", text=<string>},
//     {action="allow"}; a rewrite without a string text dispatches as it is.
//
// Anything else, and every answer to an observer, is None.
func Normalise(event string, v any) Answer {
	if v == nil {
		return Answer{}
	}
	switch event {
	case PreToolCall:
		return blockAnswer(v)
	case PreLLMCall:
		if s, ok := stringOr(v, "context"); ok && strings.TrimSpace(s) != "" {
			return Answer{Kind: Context, Text: s}
		}
	case TransformToolResult:
		if s, ok := stringOr(v, "result"); ok {
			return Answer{Kind: Replace, Text: s}
		}
	case TransformTerminalOutput:
		if s, ok := stringOr(v, "output"); ok {
			return Answer{Kind: Replace, Text: s}
		}
	case TransformLLMOutput:
		if s, ok := stringOr(v, "response_text"); ok && s != "" {
			return Answer{Kind: Replace, Text: s}
		}
	case PreGatewayDispatch:
		return dispatchAnswer(v)
	}
	return Answer{}
}

// stringOr returns v when it is a string, else the string at key of v when v is a table.
func stringOr(v any, key string) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case map[string]any:
		s, ok := x[key].(string)
		return s, ok
	}
	return "", false
}

// blockAnswer reads a pre_tool_call answer.
func blockAnswer(v any) Answer {
	obj, ok := v.(map[string]any)
	if !ok {
		return Answer{}
	}
	primary, secondary := "", ""
	if action, canonical := obj["action"].(string); canonical {
		if action != "block" {
			return Answer{}
		}
		primary, secondary = "message", "reason"
	} else if obj["decision"] == "block" {
		primary, secondary = "reason", "message"
	} else {
		return Answer{}
	}
	for _, k := range []string{primary, secondary} {
		if s, ok := obj[k].(string); ok && strings.TrimSpace(s) != "" {
			return Answer{Kind: Block, Message: s}
		}
	}
	return Answer{Kind: Block}
}

// dispatchAnswer reads a pre_gateway_dispatch answer.
func dispatchAnswer(v any) Answer {
	obj, ok := v.(map[string]any)
	if !ok {
		return Answer{}
	}
	switch obj["action"] {
	case "skip":
		reason, _ := obj["reason"].(string)
		return Answer{Kind: Skip, Message: reason}
	case "rewrite":
		if text, ok := obj["text"].(string); ok {
			return Answer{Kind: Rewrite, Text: text}
		}
		return Answer{Kind: Allow}
	case "allow":
		return Answer{Kind: Allow}
	}
	return Answer{}
}
