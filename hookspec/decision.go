package hookspec

import (
	"maps"
	"strings"

	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// Decision is what the hooks of one call decided together, computed once by Merge.
type Decision struct {
	Kind    Kind   // None when nothing changes
	Message string // Block: the message shown to the model; Skip: the reason
	Text    string // Context (every contribution joined), Replace, Rewrite; pre_tool_call: every context joined, with any Kind
	By      int    // index of the answer that decided (Context: the first contribution; Modify: the last); -1 for None
	From    []int  // Context only: the indexes of every contribution, in order (read only: may be shared)
	// Args, for pre_tool_call, are the tool's arguments as the hooks changed them (modify,
	// and approve or ask with args, chained in order: the last one wins); nil when unchanged.
	Args map[string]any
	// Remember, for pre_approval_request: the hook that answered asked the host to record
	// its answer as a rule.
	Remember bool
	// Request, for pre_api_request's Modify: the fields of the model request the hooks
	// replaced, every modification's in order (a later one's key over an earlier one's).
	Request map[string]any
	// Response, for pre_api_request's Respond: the first respond's synthetic answer.
	Response map[string]any
	// Output, for post_tool_call: the result the model sees instead of the tool's (the
	// first hook's that gave one); nil when unchanged.
	Output *string
}

// Merge combines the answers of every hook of one call, in invocation order, by the rules
// of event.
//
//   - pre_tool_call: block > ask > approve > modify; the first of the strongest kind decides
//     (every hook still ran), and Args are the arguments the chain of modifications left.
//     Every answer's context, whatever it decided, is joined into Text as pre_llm_call's
//     (From: their indexes); with no decision, the decision is a Context.
//   - pre_llm_call, on_session_start and post_tool_call: every Context, joined with a
//     blank line, in order.
//   - the transforms: the first Replace wins.
//   - pre_gateway_dispatch: the first Skip, Rewrite or Allow decides.
//   - pre_llm_call: the first Block decides over every Context (the prompt is not sent).
//   - pre_verify: the first Continue decides.
//   - pre_approval_request: the first Deny decides, else the first Allow (with its Args and
//     Remember).
//   - pre_compact and post_tool_failure: every Context, joined, as pre_llm_call's.
//   - pre_api_request: the first Respond decides (the model is not called); else every
//     Modify's request fields, in order, a later one's key over an earlier one's (By: the
//     last).
//   - observers: None.
func Merge(event string, rs []Result) Decision {
	if noneAnswered(rs) { // the common call: every hook let it be
		return Decision{By: -1}
	}
	switch event {
	case hooknames.PreToolCall:
		return mergeTool(rs)
	case hooknames.PreAPIRequest:
		return mergeAPI(rs)
	}
	if d, ok := mergeStrongest(event, rs); ok {
		return d
	}
	d := Decision{By: -1}
	for i := range rs {
		a := &rs[i].Answer
		if a.Output != nil && d.Output == nil && event == hooknames.PostToolCall {
			d.Output = a.Output
		}
		switch {
		case a.Kind == None:
		case a.Kind == Context && takesContext(event):
			if d.Kind == None {
				d.Kind, d.By, d.From = Context, i, oneIndex(i)
			} else {
				d.From = append(d.From, i) // oneIndex's slice is full: this copies it out
			}
		case d.Kind == None && accepts(event, a.Kind):
			d.Kind, d.Message, d.Text, d.By = a.Kind, a.Message, a.Text, i
			d.Args, d.Remember = a.Args, a.Remember
			if a.Kind == Block && strings.TrimSpace(a.Message) == "" {
				d.Message = DefaultBlockMessage(rs[i].Source)
			}
		}
	}
	if d.Kind == Context && len(d.From) == 1 {
		d.Text = rs[d.By].Answer.Text
	} else if d.Kind == Context {
		parts := make([]string, len(d.From))
		for j, i := range d.From {
			parts[j] = rs[i].Answer.Text
		}
		d.Text = strings.Join(parts, "\n\n")
	}
	return d
}

// indexes backs the From of a decision of one contribution, the common one, so that it
// costs no allocation; a second contribution copies it out.
var indexes = func() (a [64]int) {
	for i := range a {
		a[i] = i
	}
	return a
}()

// oneIndex is the slice of the one index i, of capacity 1.
func oneIndex(i int) []int {
	if i < len(indexes) {
		return indexes[i : i+1 : i+1]
	}
	return []int{i}
}

// mergeAPI merges pre_api_request's answers.
func mergeAPI(rs []Result) Decision {
	d := Decision{By: -1}
	for i := range rs {
		a := &rs[i].Answer
		switch a.Kind {
		case Respond:
			return Decision{Kind: Respond, By: i, Response: a.Response}
		case Modify:
			if d.Request == nil {
				d.Request = map[string]any{}
			}
			maps.Copy(d.Request, a.Request)
			d.Kind, d.By = Modify, i
		}
	}
	return d
}

// noneAnswered reports whether no answer of rs changes anything: each is None, with no
// replaced tool output, which every rule below passes over.
func noneAnswered(rs []Result) bool {
	for i := range rs {
		if a := &rs[i].Answer; a.Kind != None || a.Output != nil {
			return false
		}
	}
	return true
}

// toolRank orders pre_tool_call's decisions: block > ask > approve > modify.
func toolRank(k Kind) int {
	switch k {
	case Block:
		return 4
	case Ask:
		return 3
	case Approve:
		return 2
	case Modify:
		return 1
	}
	return 0
}

// mergeTool merges pre_tool_call's answers.
func mergeTool(rs []Result) Decision {
	d := Decision{By: -1}
	for i := range rs {
		a := &rs[i].Answer
		if a.Args != nil && toolRank(a.Kind) > 0 && a.Kind != Block {
			d.Args = a.Args
		}
		if r := toolRank(a.Kind); r > toolRank(d.Kind) || r > 0 && a.Kind == Modify && d.Kind == Modify {
			d.Kind, d.Message, d.By = a.Kind, a.Message, i
		}
		if a.Text != "" {
			d.From = append(d.From, i)
		}
	}
	if len(d.From) > 0 {
		parts := make([]string, len(d.From))
		for j, i := range d.From {
			parts[j] = rs[i].Answer.Text
		}
		d.Text = strings.Join(parts, "\n\n")
		if d.Kind == None {
			d.Kind, d.By = Context, d.From[0]
		}
	}
	switch d.Kind {
	case Block:
		d.Args = nil
		if strings.TrimSpace(d.Message) == "" {
			d.Message = DefaultBlockMessage(rs[d.By].Source)
		}
	case Ask:
		if strings.TrimSpace(d.Message) == "" {
			d.Message = "approval needed"
		}
	}
	return d
}

// takesContext reports whether event joins the Context of every hook: pre_llm_call (this
// turn), on_session_start (the session's first turn) and post_tool_call (after the tool's
// result). Only pre_llm_call's Normalise reads context; the other two get it from hooks
// written for Claude Code.
func takesContext(event string) bool {
	switch event {
	case hooknames.PreLLMCall, hooknames.OnSessionStart, hooknames.PostToolCall, hooknames.PostToolFailure, hooknames.PreCompact:
		return true
	}
	return false
}

// strongest is, per event, the kind that decides over every other answer of the call.
var strongest = map[string]Kind{hooknames.PreLLMCall: Block, hooknames.PreApprovalRequest: Deny}

// mergeStrongest is the decision of the first answer of the strongest kind of event, if
// there is one: a blocked prompt, a denied approval.
func mergeStrongest(event string, rs []Result) (Decision, bool) {
	k, ok := strongest[event]
	if !ok {
		return Decision{}, false
	}
	for i := range rs {
		if a := rs[i].Answer; a.Kind == k {
			d := Decision{Kind: k, Message: a.Message, By: i, Remember: a.Remember}
			if strings.TrimSpace(d.Message) == "" {
				d.Message = DefaultBlockMessage(rs[i].Source)
			}
			return d, true
		}
	}
	return Decision{}, false
}

// accepts reports whether an answer of kind decides event.
func accepts(event string, kind Kind) bool {
	switch event {
	case hooknames.PreToolCall:
		return kind == Block
	case hooknames.TransformToolResult, hooknames.TransformTerminalOutput, hooknames.TransformLLMOutput:
		return kind == Replace
	case hooknames.PreGatewayDispatch:
		return kind == Allow || kind == Skip || kind == Rewrite
	case hooknames.PreVerify:
		return kind == Continue
	case hooknames.PreApprovalRequest:
		return kind == Allow
	}
	return false
}

// DefaultBlockMessage is the message of a block that gave none: "Blocked by shell hook."
// for a shell hook, "Blocked by plugin hook." for a plugin.
func DefaultBlockMessage(source string) string {
	if source == "" {
		source = SourcePlugin
	}
	return "Blocked by " + source + " hook."
}

// Outcome is the decision in its wire shape: {"action":"block","message":…},
// {"action":"ask","message":…,"args":…?}, {"action":"approve","args":…?},
// {"action":"modify","args":…}, {"action":"continue","reason":…} (pre_verify),
// {"action":"modify","request":…} / {"action":"respond","response":…} (pre_api_request),
// {"action":"allow","args":…?,"remember":true?} / {"action":"deny","message":…,"remember":true?}
// (pre_approval_request),
// (pre_tool_call's with "context" when hooks gave one), {"context":…}, {"text":…}, the dispatch action object, {"result":…,"context":…?}
// (post_tool_call's replaced result), or nil when nothing changes.
func (d Decision) Outcome() any {
	if d.Output != nil { // post_tool_call: {"result": ..., "context": ...?}
		o := map[string]any{"result": *d.Output}
		if d.Kind == Context {
			o["context"] = d.Text
		}
		return o
	}
	switch d.Kind {
	case Block:
		return withContext(map[string]any{"action": "block", "message": d.Message}, d.Text)
	case Ask:
		return withContext(withArgs(map[string]any{"action": "ask", "message": d.Message}, d.Args), d.Text)
	case Approve:
		return withContext(withArgs(map[string]any{"action": "approve"}, d.Args), d.Text)
	case Modify:
		if d.Request != nil {
			return map[string]any{"action": "modify", "request": d.Request}
		}
		return withContext(map[string]any{"action": "modify", "args": d.Args}, d.Text)
	case Respond:
		return map[string]any{"action": "respond", "response": d.Response}
	case Context:
		return map[string]any{"context": d.Text}
	case Replace:
		return map[string]any{"text": d.Text}
	case Skip:
		return map[string]any{"action": "skip", "reason": d.Message}
	case Rewrite:
		return map[string]any{"action": "rewrite", "text": d.Text}
	case Allow:
		return remembered(withArgs(map[string]any{"action": "allow"}, d.Args), d.Remember)
	case Deny:
		return remembered(map[string]any{"action": "deny", "message": d.Message}, d.Remember)
	case Continue:
		return map[string]any{"action": "continue", "reason": d.Message}
	}
	return nil
}

// withContext adds a pre_tool_call decision's context, when there is one.
func withContext(m map[string]any, context string) map[string]any {
	if context != "" {
		m["context"] = context
	}
	return m
}

func remembered(m map[string]any, remember bool) map[string]any {
	if remember {
		m["remember"] = true
	}
	return m
}

func withArgs(m map[string]any, args map[string]any) map[string]any {
	if args != nil {
		m["args"] = args
	}
	return m
}
