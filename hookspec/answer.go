package hookspec

import (
	"strings"

	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// Kind is what an answer asks for.
type Kind int

// Kinds of answers and decisions.
const (
	None     Kind = iota // nothing: the hook lets things be
	Block                // pre_tool_call: veto the tool call; pre_llm_call: the prompt is not sent (Message says why)
	Context              // pre_llm_call: add Text to this turn's user message; pre_tool_call: a context and no decision
	Replace              // a transform: use Text instead of the value
	Allow                // pre_gateway_dispatch: dispatch the message as it is (ends the scan); pre_approval_request: approved (with Args, if any)
	Skip                 // pre_gateway_dispatch: drop the message (Message is the reason)
	Rewrite              // pre_gateway_dispatch: dispatch Text instead
	Modify               // pre_tool_call: run the tool with Args instead
	Approve              // pre_tool_call: the call is explicitly allowed (with Args, if any)
	Ask                  // pre_tool_call: a person must decide (Message says why)
	Continue             // pre_verify: do not stop; Message (the reason) is the next user turn
	Deny                 // pre_approval_request: the approval is refused (Message says why); Allow grants it
	Respond              // pre_api_request: the model is not called; Response is its answer
)

// Answer is one hook's answer to one call, read from whichever accepted shape it came in.
type Answer struct {
	Kind    Kind
	Message string // Block: why ("" = the default message of its source); Skip: the reason; Ask: the question
	// Text is the text of a Context, Replace or Rewrite; for pre_tool_call, the context for
	// the model beside the tool's result, with any Kind ("" for none).
	Text string
	Args map[string]any // Modify (always), Approve, Ask and Allow (when they also change them): the tool's new arguments
	// Remember (pre_approval_request's Allow and Deny): the host should record the answer
	// as a rule, so the same request is not asked again.
	Remember bool
	// Request (pre_api_request's Modify): the fields of the model request to replace, a
	// key at a time (LLMRequest.WithTable).
	Request map[string]any
	// Response (pre_api_request's Respond): the synthetic answer of the model, a table in
	// LLMResponse.Table's shape (a string answer is {content=...}).
	Response map[string]any
	// Output (post_tool_call, from hooks written for Claude Code: updatedToolOutput) is the
	// tool result the model sees instead of the tool's; nil for none. It comes with any Kind.
	Output *string
}

// Normalise reads one hook's answer to event: a Lua callback's return value converted to
// Go, or a shell hook's stdout decoded from JSON. The accepted shapes are the same for both
// sources:
//
//   - pre_tool_call: {action="block", message=...} or {decision="block", reason=...} (the
//     Claude Code form); when both are present the canonical one decides (of Claude Code's
//     forms in one answer, a block in either blocks); the message is
//     message (canonical) or reason (Claude Code), falling back to the other field. A block
//     without a usable message still blocks, with its source's default message.
//     {action="modify", args={...}}, {action="approve", args=?}, {action="ask",
//     message="...", args=?}; Claude Code's {decision="approve"} and
//     {hookSpecificOutput={permissionDecision="allow"|"deny"|"ask",
//     permissionDecisionReason=..., updatedInput={...}}} (deny = block, its message
//     permissionDecisionReason, else reason, else message; allow = approve,
//     updatedInput alone = modify; decision "approve" approves updatedInput as allow does).
//     An approve (or allow) whose args (updatedInput) are not a table is None: the call is
//     not approved with arguments other than the ones it meant. Beside any of these, or
//     alone, a non-blank context (context=..., or Claude Code's
//     hookSpecificOutput.additionalContext) is Text: for the model, beside the tool's
//     result; alone (or beside an answer that decides nothing on purpose) it is a Context.
//   - pre_llm_call: a non-blank string, or {context=<non-blank string>}; {action="block",
//     message=...} (the prompt is not sent; the message is shown instead).
//   - pre_verify: {action="continue", reason=...}, or Claude Code's {decision="block",
//     reason=...}: the agent does not stop, the reason is its next user turn.
//   - pre_compact: a non-blank string, or {context=<non-blank string>}: instructions for the
//     summary.
//   - pre_approval_request: {action="allow", args=?, remember=?} or {action="deny",
//     message=?, remember=?}: the hook answers the approval itself. An allow whose args are
//     not a table is None.
//   - transform_tool_result: a string (even ""), or {result=<string>}.
//   - transform_terminal_output: a string (even ""), or {output=<string>}.
//   - transform_llm_output: a non-empty string, or {response_text=<non-empty string>}.
//   - pre_gateway_dispatch: {action="skip", reason=...}, {action="rewrite", text=<string>},
//     {action="allow"}; a rewrite without a string text dispatches as it is.
//   - pre_api_request: {action="modify", request={...}} (a table: the request's fields to
//     replace) or {action="respond", response={...}} (a table, or a string: the content);
//     a request or response that is not one is None (reported).
//
// Anything else, and every answer to an observer, is None.
func Normalise(event string, v any) Answer {
	if v == nil {
		return Answer{}
	}
	switch event {
	case hooknames.PreToolCall:
		return toolAnswer(v)
	case hooknames.PreLLMCall:
		if obj, ok := v.(map[string]any); ok && obj["action"] == "block" {
			return blockFrom(obj, "message", "reason")
		}
		if s, ok := stringOr(v, "context"); ok && strings.TrimSpace(s) != "" {
			return Answer{Kind: Context, Text: s}
		}
	case hooknames.PreCompact:
		if s, ok := stringOr(v, "context"); ok && strings.TrimSpace(s) != "" {
			return Answer{Kind: Context, Text: s}
		}
	case hooknames.PreVerify:
		return verifyAnswer(v)
	case hooknames.PreApprovalRequest:
		return approvalAnswer(v)
	case hooknames.TransformToolResult:
		if s, ok := stringOr(v, "result"); ok {
			return Answer{Kind: Replace, Text: s}
		}
	case hooknames.TransformTerminalOutput:
		if s, ok := stringOr(v, "output"); ok {
			return Answer{Kind: Replace, Text: s}
		}
	case hooknames.TransformLLMOutput:
		if s, ok := stringOr(v, "response_text"); ok && s != "" {
			return Answer{Kind: Replace, Text: s}
		}
	case hooknames.PreGatewayDispatch:
		return dispatchAnswer(v)
	case hooknames.PreAPIRequest:
		return apiAnswer(v)
	}
	return Answer{}
}

// apiAnswer reads a pre_api_request answer: {action="modify", request={...}} or
// {action="respond", response={...} or "..."}.
func apiAnswer(v any) Answer {
	obj, ok := v.(map[string]any)
	if !ok {
		return Answer{}
	}
	if apiProblem(obj) != "" {
		return Answer{}
	}
	switch obj["action"] {
	case "modify":
		if req, ok := obj["request"].(map[string]any); ok {
			return Answer{Kind: Modify, Request: req}
		}
	case "respond":
		switch r := obj["response"].(type) {
		case string:
			return Answer{Kind: Respond, Response: map[string]any{"content": r}}
		case map[string]any:
			return Answer{Kind: Respond, Response: r}
		}
	}
	return Answer{}
}

// apiProblem says what is wrong with the request of a modify or the response of a respond
// ("" when nothing is, when it is missing, or when the answer is neither): each must be a table of the keys, and of
// the types, of LLMRequest.Table and LLMResponse.Table (a response may be a string).
func apiProblem(obj map[string]any) string {
	switch obj["action"] {
	case "modify":
		req, ok := obj["request"].(map[string]any)
		if !ok && obj["request"] != nil {
			return "request must be a table of the request's fields"
		}
		if _, err := (LLMRequest{}).WithTable(req); err != nil {
			return err.Error()
		}
	case "respond":
		switch r := obj["response"].(type) {
		case nil, string:
		case map[string]any:
			if _, err := ResponseFrom(r); err != nil {
				return err.Error()
			}
		default:
			return "response must be a table or a string"
		}
	}
	return ""
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

// toolAnswer reads a pre_tool_call answer: its decision (toolDecision) and its context.
func toolAnswer(v any) Answer {
	obj, ok := v.(map[string]any)
	if !ok {
		return Answer{}
	}
	a := toolDecision(obj)
	c := toolContext(obj)
	if isBlank(c) {
		return a
	}
	if a.Kind == None {
		if !decidesNothing(obj) {
			return a // a mistake beside the context: reported, never read as a context alone
		}
		a.Kind = Context
	}
	a.Text = c
	return a
}

// toolContext is the context of a pre_tool_call answer: context, else Claude Code's
// hookSpecificOutput.additionalContext ("" for none).
func toolContext(obj map[string]any) string {
	if c, ok := obj["context"].(string); ok && !isBlank(c) {
		return c
	}
	h, _ := obj["hookSpecificOutput"].(map[string]any)
	c, _ := h["additionalContext"].(string)
	return c
}

// decidesNothing reports whether a pre_tool_call answer whose decision is None means no
// decision on purpose, once its context is set aside: nothing else, {action="allow"}, or
// the fields of Claude Code's answers that decide nothing (hookEventName, permissionDecision
// "defer", systemMessage, suppressOutput, continue true).
func decidesNothing(obj map[string]any) bool {
	for k, v := range obj {
		switch k {
		case "context", "systemMessage", "suppressOutput":
		case "continue":
			if v != true {
				return false
			}
		case "action", "decision":
			if v != "allow" {
				return false
			}
		case "hookSpecificOutput":
			h, _ := v.(map[string]any)
			for hk, hv := range h {
				if hk != "additionalContext" && hk != "hookEventName" && (hk != "permissionDecision" || hv != "defer") {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// toolDecision reads a pre_tool_call answer's decision: the canonical action decides when
// there is one, else Claude Code's forms.
func toolDecision(obj map[string]any) Answer {
	args, _ := obj["args"].(map[string]any)
	if action, canonical := obj["action"].(string); canonical {
		switch action {
		case "block":
			return blockFrom(obj, "message", "reason")
		case "modify":
			if args != nil {
				return Answer{Kind: Modify, Args: args}
			}
		case "approve":
			if args == nil && obj["args"] != nil {
				return Answer{}
			}
			return Answer{Kind: Approve, Args: args}
		case "ask":
			msg, _ := obj["message"].(string)
			return Answer{Kind: Ask, Message: msg, Args: args}
		}
		return Answer{}
	}
	return claudeAnswer(obj)
}

// claudeAnswer reads Claude Code's forms of a pre_tool_call answer: decision ("block" or
// "approve") and hookSpecificOutput (permissionDecision "deny", "allow" or "ask", with
// permissionDecisionReason and updatedInput). Forms that disagree are read on the safe
// side: a block in either blocks; then an ask; then an approval in either, of updatedInput
// when there is one; updatedInput alone modifies.
func claudeAnswer(obj map[string]any) Answer {
	h, _ := obj["hookSpecificOutput"].(map[string]any)
	reason, _ := h["permissionDecisionReason"].(string)
	input := h["updatedInput"]
	args, _ := input.(map[string]any)
	switch pd := h["permissionDecision"]; {
	case pd == "deny" && strings.TrimSpace(reason) != "":
		return Answer{Kind: Block, Message: reason}
	case pd == "deny" || obj["decision"] == "block": // the reason is reason, else message
		return blockFrom(obj, "reason", "message")
	case pd == "ask":
		return Answer{Kind: Ask, Message: reason, Args: args}
	case pd == "allow" || obj["decision"] == "approve":
		if args == nil && input != nil {
			return Answer{} // not the input it meant: approve nothing
		}
		return Answer{Kind: Approve, Args: args}
	case args != nil:
		return Answer{Kind: Modify, Args: args}
	}
	return Answer{}
}

// blockFrom is a block whose message is field primary, else secondary, else none (the
// source's default).
func blockFrom(obj map[string]any, primary, secondary string) Answer {
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

// DefaultContinueReason is the reason of a pre_verify continue that gave none.
const DefaultContinueReason = "A hook asked to keep going before stopping."

// verifyAnswer reads a pre_verify answer: {action="continue", reason=...}, or Claude Code's
// {decision="block", reason=...}; a continue without a usable reason gets the default one.
func verifyAnswer(v any) Answer {
	obj, ok := v.(map[string]any)
	if !ok || obj["action"] != "continue" && (obj["action"] != nil || obj["decision"] != "block") {
		return Answer{}
	}
	for _, k := range []string{"reason", "message"} {
		if s, ok := obj[k].(string); ok && strings.TrimSpace(s) != "" {
			return Answer{Kind: Continue, Message: s}
		}
	}
	return Answer{Kind: Continue, Message: DefaultContinueReason}
}

// approvalAnswer reads a pre_approval_request answer: {action="allow", args=?, remember=?}
// or {action="deny", message=?, remember=?}.
func approvalAnswer(v any) Answer {
	obj, ok := v.(map[string]any)
	if !ok {
		return Answer{}
	}
	remember := obj["remember"] == true
	switch obj["action"] {
	case "allow":
		args, isTable := obj["args"].(map[string]any)
		if !isTable && obj["args"] != nil {
			return Answer{} // not the arguments it meant: allow nothing
		}
		return Answer{Kind: Allow, Args: args, Remember: remember}
	case "deny":
		a := blockFrom(obj, "message", "reason")
		return Answer{Kind: Deny, Message: a.Message, Remember: remember}
	}
	return Answer{}
}
