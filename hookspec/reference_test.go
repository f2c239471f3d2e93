package hookspec

import (
	"strings"

	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// A plain re-statement of the answer and merge rules of docs/events.md ("Merge rules", the
// pre_tool_call and pre_gateway_dispatch sections) and docs/claude-code.md ("Answers"),
// written from the docs and kept deliberately simple, for FuzzNormaliseMerge to hold the
// package's Normalise and Merge to. Where the docs leave a case open, the reading chosen is
// said next to it; every one of them keeps the guard when in doubt.

// refBlank: "non-blank" in the docs: nothing but white space.
func refBlank(s string) bool { return strings.TrimSpace(s) == "" }

// refUsable returns the first argument that is a non-blank string ("a usable message").
func refUsable(vs ...any) string {
	for _, v := range vs {
		if s, ok := v.(string); ok && !refBlank(s) {
			return s
		}
	}
	return ""
}

// refTable is v when it is a table with string keys (a Lua table that is not a list, a JSON
// object).
func refTable(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

func refNormalise(event string, v any) Answer {
	obj, isTable := refTable(v)
	str, isString := v.(string)
	field := func(key string) (string, bool) {
		if isString {
			return str, true
		}
		s, ok := obj[key].(string)
		return s, ok && isTable
	}
	switch event {
	case hooknames.PreToolCall:
		if isTable {
			return refToolWithContext(obj)
		}
	case hooknames.PreLLMCall: // {action="block", message=...}; a non-blank string, or {context=<non-blank string>}
		if isTable && obj["action"] == "block" { // the message is message, else reason, else the source's default
			return Answer{Kind: Block, Message: refUsable(obj["message"], obj["reason"])}
		}
		if s, ok := field("context"); ok && !refBlank(s) {
			return Answer{Kind: Context, Text: s}
		}
	case hooknames.PreCompact: // a non-blank string, or {context=<non-blank string>}
		if s, ok := field("context"); ok && !refBlank(s) {
			return Answer{Kind: Context, Text: s}
		}
	case hooknames.PreVerify: // {action="continue", reason=...} or Claude Code's {decision="block", reason=...}
		if isTable && (obj["action"] == "continue" || obj["action"] == nil && obj["decision"] == "block") {
			if r := refUsable(obj["reason"], obj["message"]); r != "" {
				return Answer{Kind: Continue, Message: r}
			}
			return Answer{Kind: Continue, Message: DefaultContinueReason}
		}
	case hooknames.PreApprovalRequest: // {action="allow", args=?, remember=?}, {action="deny", message=?, remember=?}
		if isTable {
			remember := obj["remember"] == true
			switch obj["action"] {
			case "allow": // args that are not a table allow nothing
				args, ok := refTable(obj["args"])
				if obj["args"] == nil || ok {
					return Answer{Kind: Allow, Args: args, Remember: remember}
				}
			case "deny":
				return Answer{Kind: Deny, Message: refUsable(obj["message"], obj["reason"]), Remember: remember}
			}
		}
	case hooknames.TransformToolResult: // a string (including ""), or {result="..."}
		if s, ok := field("result"); ok {
			return Answer{Kind: Replace, Text: s}
		}
	case hooknames.TransformTerminalOutput: // a string (including ""), or {output="..."}
		if s, ok := field("output"); ok {
			return Answer{Kind: Replace, Text: s}
		}
	case hooknames.TransformLLMOutput: // a non-empty string, or {response_text="..."} non-empty
		if s, ok := field("response_text"); ok && s != "" {
			return Answer{Kind: Replace, Text: s}
		}
	case hooknames.PreAPIRequest: // {action="modify", request={...}}, {action="respond", response={...} or "..."}
		if isTable && obj["action"] == "modify" {
			if req, ok := refTable(obj["request"]); ok && refFields(req, refRequestFields) {
				return Answer{Kind: Modify, Request: req}
			}
		}
		if isTable && obj["action"] == "respond" {
			if resp, ok := refTable(obj["response"]); ok && refFields(resp, refResponseFields) {
				return Answer{Kind: Respond, Response: resp}
			}
			if text, ok := obj["response"].(string); ok { // a string is the content alone
				return Answer{Kind: Respond, Response: map[string]any{"content": text}}
			}
		}
	case hooknames.PreGatewayDispatch:
		if isTable {
			switch obj["action"] {
			case "skip":
				reason, _ := obj["reason"].(string)
				return Answer{Kind: Skip, Message: reason}
			case "rewrite": // without a string text: dispatch normally (and the scan ends)
				if text, ok := obj["text"].(string); ok {
					return Answer{Kind: Rewrite, Text: text}
				}
				return Answer{Kind: Allow}
			case "allow":
				return Answer{Kind: Allow}
			}
		}
	}
	return Answer{} // anything else, and every answer to an observer
}

// refTool reads a pre_tool_call table.
func refTool(obj map[string]any) Answer {
	// "When both forms are present the canonical action decides." Reading: the canonical form
	// is present when action is a string (an action that is not even a string is no
	// decision, so a Claude Code block beside it still blocks).
	if action, ok := obj["action"].(string); ok {
		args, argsTable := refTable(obj["args"])
		switch action {
		case "block": // the message is message, else reason, else the source's default
			return Answer{Kind: Block, Message: refUsable(obj["message"], obj["reason"])}
		case "modify": // args={...}: a table
			if argsTable {
				return Answer{Kind: Modify, Args: args}
			}
		case "approve": // args optional; args that are not a table approve nothing
			if obj["args"] == nil {
				return Answer{Kind: Approve}
			}
			if argsTable {
				return Answer{Kind: Approve, Args: args}
			}
		case "ask": // args that are not a table: the person is asked about the call's own
			msg, _ := obj["message"].(string)
			return Answer{Kind: Ask, Message: msg, Args: args}
		}
		return Answer{} // allow, deny, anything else: nothing
	}

	// Claude Code's forms: decision block/approve, and hookSpecificOutput's
	// permissionDecision deny/allow/ask with permissionDecisionReason and updatedInput
	// (deny = block, allow = approve, updatedInput alone = modify). The docs give no order
	// between the forms of one answer. Reading: a block in either form blocks (the hook
	// meant to block: fail safe); then ask; then an approval in either form, with
	// updatedInput as its arguments; then updatedInput alone modifies.
	spec, _ := refTable(obj["hookSpecificOutput"])
	pd := spec["permissionDecision"]
	input := spec["updatedInput"]
	inputTable, isInputTable := refTable(input)
	switch {
	case obj["decision"] == "block" || pd == "deny":
		// The block's reason: permissionDecisionReason of a deny, else reason (Claude Code),
		// else message.
		var pdr any
		if pd == "deny" {
			pdr = spec["permissionDecisionReason"]
		}
		return Answer{Kind: Block, Message: refUsable(pdr, obj["reason"], obj["message"])}
	case pd == "ask":
		msg, _ := spec["permissionDecisionReason"].(string)
		return Answer{Kind: Ask, Message: msg, Args: inputTable}
	case pd == "allow" || obj["decision"] == "approve":
		if input == nil {
			return Answer{Kind: Approve}
		}
		if isInputTable {
			return Answer{Kind: Approve, Args: inputTable}
		}
		return Answer{} // not the input it meant: approve nothing
	case isInputTable:
		return Answer{Kind: Modify, Args: inputTable}
	}
	return Answer{}
}

// refToolWithContext reads a pre_tool_call answer: its decision (refTool) and its context
// for the model (context, else Claude Code's additionalContext). A context rides beside any
// decision; alone, or beside what decides nothing on purpose ({action="allow"}, Claude
// Code's fields that decide nothing), it is the answer: a Context. Beside a mistake it is
// not read, so the mistake is reported.
func refToolWithContext(obj map[string]any) Answer {
	a := refTool(obj)
	c, ok := obj["context"].(string)
	if !ok || refBlank(c) {
		spec, _ := refTable(obj["hookSpecificOutput"])
		c, _ = spec["additionalContext"].(string)
	}
	if refBlank(c) {
		return a
	}
	if a.Kind == None {
		for k, v := range obj {
			spec, _ := refTable(v)
			switch {
			case k == "context", k == "systemMessage", k == "suppressOutput",
				k == "continue" && v == true, (k == "action" || k == "decision") && v == "allow":
			case k == "hookSpecificOutput" && refDecidesNothing(spec):
			default:
				return a
			}
		}
		a.Kind = Context
	}
	a.Text = c
	return a
}

// refDecidesNothing: Claude Code's hookSpecificOutput with only fields that decide
// nothing (the event's name, the context, permissionDecision "defer").
func refDecidesNothing(spec map[string]any) bool {
	for k, v := range spec {
		if k != "additionalContext" && k != "hookEventName" && (k != "permissionDecision" || v != "defer") {
			return false
		}
	}
	return true
}

// refMerge combines the answers of one call, in invocation order.
func refMerge(event string, rs []Result) Decision {
	d := Decision{By: -1}
	firstOf := func(kinds ...Kind) int {
		for i, r := range rs {
			for _, k := range kinds {
				if r.Answer.Kind == k {
					return i
				}
			}
		}
		return -1
	}
	switch event {
	case hooknames.PreToolCall:
		// block > ask > approve > modify: the first of the strongest kind decides; of
		// modifications, the last stands.
		for _, k := range []Kind{Block, Ask, Approve} {
			if i := firstOf(k); i >= 0 {
				d.Kind, d.By = k, i
				break
			}
		}
		if d.Kind == None {
			for i, r := range rs {
				if r.Answer.Kind == Modify {
					d.Kind, d.By = Modify, i
				}
			}
		}
		// Every answer's context reaches the model, in order, a blank line between two;
		// with no decision, the first hook that gave one is the Context's.
		var texts []string
		for i, r := range rs {
			if r.Answer.Text != "" {
				d.From, texts = append(d.From, i), append(texts, r.Answer.Text)
			}
		}
		if len(texts) > 0 {
			d.Text = strings.Join(texts, "\n\n")
			if d.Kind == None {
				d.Kind, d.By = Context, d.From[0]
			}
		}
		switch d.Kind {
		case None, Context:
			return d
		case Block: // "Blocked by plugin hook." / "Blocked by shell hook."
			d.Message = rs[d.By].Answer.Message
			if refBlank(d.Message) {
				src := rs[d.By].Source
				if src == "" {
					src = SourcePlugin
				}
				d.Message = "Blocked by " + src + " hook."
			}
			return d // a blocked call runs with no arguments at all
		case Ask: // the default question is the code's: the docs name none
			d.Message = rs[d.By].Answer.Message
			if refBlank(d.Message) {
				d.Message = "approval needed"
			}
		}
		// Modifications chain: the arguments are the last ones a modify, approve or ask gave.
		for _, r := range rs {
			switch r.Answer.Kind {
			case Modify, Approve, Ask:
				if r.Answer.Args != nil {
					d.Args = r.Answer.Args
				}
			}
		}
	case hooknames.PreLLMCall, hooknames.OnSessionStart, hooknames.PostToolCall, hooknames.PostToolFailure, hooknames.PreCompact:
		// a prompt block decides over every contribution
		if i := firstOf(Block); i >= 0 && event == hooknames.PreLLMCall {
			d.Kind, d.By, d.Message = Block, i, rs[i].Answer.Message
			if refBlank(d.Message) {
				d.Message = DefaultBlockMessage(rs[i].Source)
			}
			return d
		}
		// every contribution, joined with a blank line, in order (on_session_start and
		// post_tool_call: the context of hooks written for Claude Code)
		var parts []string
		for i, r := range rs {
			if r.Answer.Kind == Context {
				d.From = append(d.From, i)
				parts = append(parts, r.Answer.Text)
			}
		}
		if len(parts) > 0 {
			d.Kind, d.By, d.Text = Context, d.From[0], strings.Join(parts, "\n\n")
		}
	case hooknames.TransformToolResult, hooknames.TransformTerminalOutput, hooknames.TransformLLMOutput:
		if i := firstOf(Replace); i >= 0 {
			d.Kind, d.By, d.Text = Replace, i, rs[i].Answer.Text
		}
	case hooknames.PreGatewayDispatch:
		if i := firstOf(Skip, Rewrite, Allow); i >= 0 {
			a := rs[i].Answer
			d.Kind, d.By, d.Message, d.Text = a.Kind, i, a.Message, a.Text
		}
	case hooknames.PreAPIRequest: // the first respond decides; else every modify's fields, in order
		if i := firstOf(Respond); i >= 0 {
			return Decision{Kind: Respond, By: i, Response: rs[i].Answer.Response}
		}
		for i, r := range rs {
			if r.Answer.Kind == Modify {
				if d.Request == nil {
					d.Request = map[string]any{}
				}
				for k, v := range r.Answer.Request { // a later one's key over an earlier one's
					d.Request[k] = v
				}
				d.Kind, d.By = Modify, i
			}
		}
	case hooknames.PreVerify: // the first continue
		if i := firstOf(Continue); i >= 0 {
			d.Kind, d.By, d.Message = Continue, i, rs[i].Answer.Message
		}
	case hooknames.PreApprovalRequest: // a deny decides over every allow: the safe side
		if i := firstOf(Deny); i >= 0 {
			d.Kind, d.By, d.Message, d.Remember = Deny, i, rs[i].Answer.Message, rs[i].Answer.Remember
			if refBlank(d.Message) {
				d.Message = DefaultBlockMessage(rs[i].Source)
			}
		} else if i := firstOf(Allow); i >= 0 {
			d.Kind, d.By, d.Args, d.Remember = Allow, i, rs[i].Answer.Args, rs[i].Answer.Remember
		}
	}
	return d
}

// refMeansNothing: "Nothing (nil), an empty table, false, a blank context and
// {action="allow"} change nothing, on purpose"; transform_llm_output's "" "is ignored".
// Besides the docs' list, the code lets {decision="allow"} and an empty list pass quietly
// too (an empty Lua table may come as either).
func refMeansNothing(event string, v any) bool {
	// pre_api_request was an observer: what is not a table still means nothing.
	if _, ok := refTable(v); event == hooknames.PreAPIRequest && !ok {
		return true
	}
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case string:
		return (event == hooknames.PreLLMCall || event == hooknames.PreCompact) && refBlank(x) || event == hooknames.TransformLLMOutput && x == ""
	case map[string]any:
		if len(x) == 0 {
			return true
		}
		switch event {
		case hooknames.PreToolCall:
			c, ok := x["context"].(string)
			return x["action"] == "allow" || x["decision"] == "allow" || ok && refBlank(c) && x["action"] == nil // as pre_llm_call's
		case hooknames.PreLLMCall, hooknames.PreCompact:
			c, ok := x["context"].(string)
			return ok && refBlank(c) && x["action"] == nil
		case hooknames.TransformLLMOutput:
			return x["response_text"] == ""
		}
	}
	return false
}

// refReadsAnswers: the hooks whose answers are used; every other hook is an observer.
func refReadsAnswers(event string) bool {
	switch event {
	case hooknames.PreToolCall, hooknames.PreLLMCall, hooknames.TransformToolResult, hooknames.TransformTerminalOutput, hooknames.TransformLLMOutput, hooknames.PreGatewayDispatch,
		hooknames.PreVerify, hooknames.PreCompact, hooknames.PreApprovalRequest, hooknames.PreAPIRequest:
		return true
	}
	return false
}

// The fields of a request and of a response (docs/events.md, "The model request"), by the
// kind of value each takes: "s" a string, "l" a list of tables, "t" a table.
var (
	refRequestFields  = map[string]string{"model": "s", "system": "s", "messages": "l", "tools": "l", "params": "t"}
	refResponseFields = map[string]string{"model": "s", "content": "s", "stop_reason": "s", "tool_calls": "l", "usage": "t"}
)

// refFields: every key of t is one of fields, with a value of its kind. Lua cannot tell an
// empty list from an empty table, so either stands for both.
func refFields(t map[string]any, fields map[string]string) bool {
	for k, v := range t {
		empty := false
		switch x := v.(type) {
		case []any:
			empty = len(x) == 0
		case map[string]any:
			empty = len(x) == 0
		}
		switch fields[k] {
		case "s":
			if _, ok := v.(string); !ok {
				return false
			}
		case "t":
			if _, ok := v.(map[string]any); !ok && !empty {
				return false
			}
		case "l":
			l, ok := v.([]any)
			if !ok && !empty {
				return false
			}
			for _, e := range l {
				if _, ok := e.(map[string]any); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}
