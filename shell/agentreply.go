package shell

import (
	"fmt"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// Reply is what a command hook gives its agent back: an exit code, stdout (JSON or
// nothing) and stderr.
type Reply struct {
	Exit   int
	Stdout string
	Stderr string
}

// Reply is the agent's answer for our answers to the call's firings (one each, in order):
// each is read the way the agent reads a command hook's answer to its event. Block is a
// deny; ask the agent's own ask (its user answers), or where the agent has none (Codex,
// Gemini CLI) a deny that says what needs approval; modify updatedInput; context
// additionalContext; pre_verify's continue the agent's Stop block.
func (c *AgentCall) Reply(answers []hookspec.Answer) Reply {
	if len(c.Firings) == 0 || len(answers) == 0 {
		return Reply{}
	}
	a := c.decisive(answers)
	var obj map[string]any
	if c.Dialect == DialectGemini {
		obj = c.geminiReply(c.Firings[0].Hook, a)
	} else {
		obj = c.claudeReply(c.Firings[0].Hook, a)
	}
	if len(obj) == 0 {
		return Reply{}
	}
	b, err := encodePayload(obj)
	if err != nil { // every value here came from JSON
		return c.Failed(err.Error(), false)
	}
	return Reply{Stdout: string(b)}
}

// decisive is the answer that decides: the first firing's, or for the several tool calls
// of one Codex patch the strongest (block > ask > approve > modify), contexts joined. A
// patch cannot be rewritten: a modification of one is refused.
func (c *AgentCall) decisive(answers []hookspec.Answer) hookspec.Answer {
	if len(answers) == 1 || c.Firings[0].Hook != hooknames.PreToolCall {
		return answers[0]
	}
	var out hookspec.Answer
	var texts []string
	rank := map[hookspec.Kind]int{hookspec.Block: 4, hookspec.Ask: 3, hookspec.Approve: 2, hookspec.Modify: 1}
	for _, a := range answers {
		if a.Text != "" {
			texts = append(texts, a.Text)
		}
		if a.Kind == hookspec.Modify {
			a = hookspec.Answer{Kind: hookspec.Block, Message: "a hook rewrote this patch, and a patch cannot be rewritten from a hook: " +
				"it was refused; have the model write the change the hook asks for"}
		}
		if rank[a.Kind] > rank[out.Kind] {
			out = a
		}
	}
	out.Args, out.Text = nil, strings.Join(texts, "\n\n")
	return out
}

// claudeReply is the JSON answer Claude Code (and Codex, which reads the same shape more
// strictly) reads from a command hook; nil for none.
func (c *AgentCall) claudeReply(hook string, a hookspec.Answer) map[string]any {
	obj := map[string]any{}
	spec := map[string]any{"hookEventName": c.Event}
	switch hook {
	case hooknames.PreToolCall:
		c.claudeToolDecision(a, spec)
	case hooknames.PostToolCall:
		if a.Output != nil {
			spec["updatedToolOutput"] = *a.Output
		}
		contextOf(a, spec)
	case hooknames.PostToolFailure, hooknames.OnSessionStart:
		contextOf(a, spec)
	case hooknames.PreLLMCall:
		if a.Kind == hookspec.Block {
			obj["decision"], obj["reason"] = "block", firstNonBlank(a.Message, DefaultBlockMessage)
		}
		contextOf(a, spec)
	case hooknames.PreVerify:
		if a.Kind == hookspec.Continue {
			obj["decision"], obj["reason"] = "block", firstNonBlank(a.Message, hookspec.DefaultContinueReason)
		}
	case hooknames.PreApprovalRequest:
		switch a.Kind {
		case hookspec.Allow:
			d := map[string]any{"behavior": "allow"}
			if a.Args != nil && c.Dialect == DialectClaude { // Codex refuses updatedInput here
				_, d["updatedInput"] = c.tools.ToClaude("terminal", a.Args)
			}
			spec["decision"] = d
		case hookspec.Deny:
			spec["decision"] = map[string]any{"behavior": "deny", "message": firstNonBlank(a.Message, DefaultBlockMessage)}
		}
	}
	if len(spec) > 1 {
		obj["hookSpecificOutput"] = spec
	}
	return obj
}

// claudeToolDecision writes PreToolUse's permission decision into spec. Claude Code
// applies updatedInput only beside a decision: a modification asks the user (allow would
// skip the prompt a modification keeps). Codex has no ask, and takes allow only with
// updatedInput.
func (c *AgentCall) claudeToolDecision(a hookspec.Answer, spec map[string]any) {
	decide := func(pd, reason string, args map[string]any) {
		spec["permissionDecision"] = pd
		if reason != "" {
			spec["permissionDecisionReason"] = reason
		}
		if args != nil {
			name, _ := c.ours(c.tool, nil)
			_, spec["updatedInput"] = c.tools.ToClaude(name, args)
		}
	}
	codex := c.Dialect == DialectCodex
	switch {
	case a.Kind == hookspec.Block:
		decide("deny", firstNonBlank(a.Message, DefaultBlockMessage), nil)
	case a.Kind == hookspec.Ask && codex:
		decide("deny", c.cannotAsk(a.Message), nil)
	case a.Kind == hookspec.Ask:
		decide("ask", a.Message, a.Args)
	case a.Kind == hookspec.Approve && a.Args == nil && !codex:
		decide("allow", "", nil)
	case a.Kind == hookspec.Approve || (a.Kind == hookspec.Modify && codex):
		if a.Args != nil {
			decide("allow", "", a.Args)
		}
	case a.Kind == hookspec.Modify:
		decide("ask", "a hook changed this call's input; confirm the changed call", a.Args)
	}
	if a.Text != "" {
		spec["additionalContext"] = a.Text
	}
}

// geminiReply is the JSON answer Gemini CLI reads from a command hook; nil for none.
func (c *AgentCall) geminiReply(hook string, a hookspec.Answer) map[string]any {
	obj := map[string]any{}
	spec := map[string]any{"hookEventName": c.Event}
	deny := func(reason string) { obj["decision"], obj["reason"] = "deny", reason }
	switch hook {
	case hooknames.PreToolCall:
		switch a.Kind {
		case hookspec.Block:
			deny(firstNonBlank(a.Message, DefaultBlockMessage))
		case hookspec.Ask:
			deny(c.cannotAsk(a.Message))
		case hookspec.Modify, hookspec.Approve:
			if a.Args != nil {
				name, _ := c.ours(c.tool, nil)
				_, spec["tool_input"] = c.tools.ToClaude(name, a.Args)
			}
		}
	case hooknames.PostToolCall: // a deny's reason is the result the model sees instead
		if a.Output != nil {
			deny(strings.TrimSpace(*a.Output + "\n\n" + contextText(a)))
		} else {
			contextOf(a, spec)
		}
	case hooknames.PreLLMCall:
		if a.Kind == hookspec.Block {
			deny(firstNonBlank(a.Message, DefaultBlockMessage))
		}
		contextOf(a, spec)
	case hooknames.OnSessionStart:
		contextOf(a, spec)
	case hooknames.PreVerify:
		if a.Kind == hookspec.Continue {
			deny(firstNonBlank(a.Message, hookspec.DefaultContinueReason))
		}
	}
	if len(spec) > 1 {
		obj["hookSpecificOutput"] = spec
	}
	return obj
}

// contextOf puts a's context into spec as additionalContext.
func contextOf(a hookspec.Answer, spec map[string]any) {
	if t := contextText(a); t != "" {
		spec["additionalContext"] = t
	}
}

// contextText is the context an answer gives the model ("" for none).
func contextText(a hookspec.Answer) string {
	if a.Kind == hookspec.Context || a.Kind == hookspec.None {
		return a.Text
	}
	return ""
}

// cannotAsk is the reason of the deny that stands for an ask where the agent has none.
func (c *AgentCall) cannotAsk(question string) string {
	return fmt.Sprintf("this call needs the user's approval (%s), and %s cannot ask from a hook, so it was refused; "+
		"tell the user what you wanted to do and why, and let them run it", firstNonBlank(question, "a hook asked"), agentName(c.Dialect))
}

// CanBlock reports whether the agent's event can stop what it is about: a tool call, a
// prompt, a permission.
func (c *AgentCall) CanBlock() bool {
	ev := dialectEvents(c.Dialect)
	return c.Event == ev[hooknames.PreToolCall] || c.Event == ev[hooknames.PreLLMCall] ||
		(c.Event == ev[hooknames.PreApprovalRequest] && c.Event != "")
}

// Failed is the answer when no decision could be made (the home did not load, the server
// could not be reached): where the event can block, a block whose reason is why (nobody can
// know which guard was lost), unless failOpen; elsewhere a warning that blocks nothing.
func (c *AgentCall) Failed(why string, failOpen bool) Reply {
	if c.CanBlock() && !failOpen {
		return Reply{Exit: exitBlock, Stderr: "blocked: the hooks could not run: " + why + "\n"}
	}
	return Reply{Exit: 1, Stderr: "hermesctl hook: the hooks could not run: " + why + "\n"}
}

// AsHTTP is r as the body of an answer to Claude Code's http hooks, which read no exit code
// and no stderr (any status but 2xx is a non-blocking error to them): a block of exit code 2
// becomes the same block in JSON, a warning a systemMessage. "" when there is nothing to say.
func (c *AgentCall) AsHTTP(r Reply) string {
	why := strings.TrimSpace(r.Stderr)
	switch {
	case r.Exit == exitBlock && len(c.Firings) > 0:
		kind := hookspec.Block
		if c.Firings[0].Hook == hooknames.PreApprovalRequest {
			kind = hookspec.Deny
		}
		answers := make([]hookspec.Answer, len(c.Firings))
		answers[0] = hookspec.Answer{Kind: kind, Message: why}
		return c.Reply(answers).Stdout
	case r.Exit != 0 && why != "":
		b, _ := encodePayload(map[string]any{"systemMessage": why})
		return string(b)
	}
	return r.Stdout
}
