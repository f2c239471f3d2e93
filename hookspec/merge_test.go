package hookspec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// The answers of the precedence table, each from the source that would give it.
var (
	mergeAnswers = map[string]struct {
		source string
		v      any
	}{
		"block":    {SourcePlugin, tbl{"action": "block", "message": "no"}},
		"block2":   {SourceShell, tbl{"decision": "block"}}, // no message: the shell default
		"ask":      {SourcePlugin, tbl{"action": "ask", "message": "sure?"}},
		"ask2":     {SourceShell, tbl{"hookSpecificOutput": tbl{"permissionDecision": "ask"}}}, // no question
		"approve":  {SourcePlugin, tbl{"action": "approve"}},
		"approve2": {SourceShell, tbl{"hookSpecificOutput": tbl{"permissionDecision": "allow", "updatedInput": tbl{"n": "3"}}}},
		"modify":   {SourcePlugin, tbl{"action": "modify", "args": tbl{"n": "1"}}},
		"modify2":  {SourceShell, tbl{"hookSpecificOutput": tbl{"updatedInput": tbl{"n": "2"}}}},
		"none":     {SourcePlugin, nil},
		"mistake":  {SourceShell, tbl{"action": "deny", "message": "x"}},
	}
	n1, n2, n3 = tbl{"n": "1"}, tbl{"n": "2"}, tbl{"n": "3"}
)

// TestMergePrecedence is pre_tool_call's precedence table, block > ask > approve > modify,
// for every pair of kinds in both orders and a few longer chains: which answer decides
// (the first of the strongest kind; of modifications the last), the message (the source's
// default for a block without one), and the arguments the chain of modifications left.
func TestMergePrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		answers []string
		want    Decision
	}{
		{[]string{"block", "block2"}, Decision{Kind: Block, By: 0, Message: "no"}},
		{[]string{"block2", "block"}, Decision{Kind: Block, By: 0, Message: "Blocked by shell hook."}},
		{[]string{"block", "ask"}, Decision{Kind: Block, By: 0, Message: "no"}},
		{[]string{"ask", "block"}, Decision{Kind: Block, By: 1, Message: "no"}},
		{[]string{"block", "approve"}, Decision{Kind: Block, By: 0, Message: "no"}},
		{[]string{"approve", "block2"}, Decision{Kind: Block, By: 1, Message: "Blocked by shell hook."}},
		{[]string{"block", "modify"}, Decision{Kind: Block, By: 0, Message: "no"}},
		{[]string{"modify", "block"}, Decision{Kind: Block, By: 1, Message: "no"}}, // a blocked call runs with no arguments
		{[]string{"block", "none"}, Decision{Kind: Block, By: 0, Message: "no"}},
		{[]string{"none", "block"}, Decision{Kind: Block, By: 1, Message: "no"}},
		{[]string{"mistake", "block2"}, Decision{Kind: Block, By: 1, Message: "Blocked by shell hook."}},

		{[]string{"ask", "ask2"}, Decision{Kind: Ask, By: 0, Message: "sure?"}},
		{[]string{"ask2", "ask"}, Decision{Kind: Ask, By: 0, Message: "approval needed"}},
		{[]string{"ask", "approve"}, Decision{Kind: Ask, By: 0, Message: "sure?"}},
		{[]string{"approve", "ask"}, Decision{Kind: Ask, By: 1, Message: "sure?"}},
		{[]string{"ask", "modify"}, Decision{Kind: Ask, By: 0, Message: "sure?", Args: n1}},
		{[]string{"modify", "ask"}, Decision{Kind: Ask, By: 1, Message: "sure?", Args: n1}},
		{[]string{"ask", "none"}, Decision{Kind: Ask, By: 0, Message: "sure?"}},
		{[]string{"none", "ask2"}, Decision{Kind: Ask, By: 1, Message: "approval needed"}},

		{[]string{"approve", "approve2"}, Decision{Kind: Approve, By: 0, Args: n3}},
		{[]string{"approve2", "approve"}, Decision{Kind: Approve, By: 0, Args: n3}},
		{[]string{"approve", "modify"}, Decision{Kind: Approve, By: 0, Args: n1}},
		{[]string{"modify", "approve"}, Decision{Kind: Approve, By: 1, Args: n1}},
		{[]string{"approve", "none"}, Decision{Kind: Approve, By: 0}},
		{[]string{"none", "approve"}, Decision{Kind: Approve, By: 1}},

		{[]string{"modify", "modify2"}, Decision{Kind: Modify, By: 1, Args: n2}},
		{[]string{"modify2", "modify"}, Decision{Kind: Modify, By: 1, Args: n1}},
		{[]string{"modify", "none"}, Decision{Kind: Modify, By: 0, Args: n1}},
		{[]string{"none", "modify2"}, Decision{Kind: Modify, By: 1, Args: n2}},
		{[]string{"none", "none"}, Decision{By: -1}},
		{[]string{"mistake", "none"}, Decision{By: -1}},
		{nil, Decision{By: -1}},

		// Chains: the last modification's arguments stand, whoever decides.
		{[]string{"modify", "approve2", "modify2"}, Decision{Kind: Approve, By: 1, Args: n2}},
		{[]string{"modify2", "modify", "approve2"}, Decision{Kind: Approve, By: 2, Args: n3}},
		{[]string{"modify", "ask2", "approve"}, Decision{Kind: Ask, By: 1, Message: "approval needed", Args: n1}},
		{[]string{"approve2", "ask", "modify"}, Decision{Kind: Ask, By: 1, Message: "sure?", Args: n1}},
		{[]string{"modify", "ask", "block2"}, Decision{Kind: Block, By: 2, Message: "Blocked by shell hook."}},
		{[]string{"approve", "ask2", "block2", "block"}, Decision{Kind: Block, By: 2, Message: "Blocked by shell hook."}},
		{[]string{"none", "modify", "none", "modify2", "none"}, Decision{Kind: Modify, By: 3, Args: n2}},
		{[]string{"ask2", "ask", "approve", "approve2"}, Decision{Kind: Ask, By: 0, Message: "approval needed", Args: n3}},
	}
	for _, tt := range tests {
		rs := make([]Result, len(tt.answers))
		for i, name := range tt.answers {
			a := mergeAnswers[name]
			rs[i] = Answered(a.source, name, hooknames.PreToolCall, a.v, 0)
		}
		if diff := cmp.Diff(tt.want, Merge(hooknames.PreToolCall, rs)); diff != "" {
			t.Errorf("Merge(%v) (-want +got):\n%s", tt.answers, diff)
		}
	}
}

// TestMergeToolContext: pre_tool_call's contexts are joined like pre_llm_call's, in hook
// order, whatever each hook decided; they stand beside every decision, a block included
// (the model sees them after the block's message), and alone they are a Context.
func TestMergeToolContext(t *testing.T) {
	t.Parallel()
	ans := func(v tbl) Result { return Answered(SourcePlugin, "h", hooknames.PreToolCall, v, 0) }
	c1 := ans(tbl{"context": "one"})
	c2 := ans(tbl{"hookSpecificOutput": tbl{"hookEventName": "PreToolUse", "additionalContext": "two"}})
	mod := ans(tbl{"action": "modify", "args": n1, "context": "three"})
	block := ans(tbl{"action": "block", "message": "no", "context": "four"})
	ask := ans(tbl{"action": "ask", "message": "q"})
	none := ans(nil)
	tests := []struct {
		name string
		rs   []Result
		want Decision
	}{
		{"one", []Result{none, c1}, Decision{Kind: Context, By: 1, From: []int{1}, Text: "one"}},
		{"two joined", []Result{c1, none, c2}, Decision{Kind: Context, By: 0, From: []int{0, 2}, Text: "one\n\ntwo"}},
		{"beside a modify", []Result{c2, mod}, Decision{Kind: Modify, By: 1, From: []int{0, 1}, Text: "two\n\nthree", Args: n1}},
		{"beside an ask", []Result{ask, c1}, Decision{Kind: Ask, By: 0, Message: "q", From: []int{1}, Text: "one"}},
		{"beside a block", []Result{c1, block, c2}, Decision{Kind: Block, By: 1, Message: "no", From: []int{0, 1, 2}, Text: "one\n\nfour\n\ntwo"}},
	}
	for _, tt := range tests {
		d := Merge(hooknames.PreToolCall, tt.rs)
		if diff := cmp.Diff(tt.want, d); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := Merge(hooknames.PreToolCall, []Result{c1, mod}).Outcome(); !cmp.Equal(got, tbl{"action": "modify", "args": n1, "context": "one\n\nthree"}) {
		t.Errorf("outcome of a modify with contexts: %v", got)
	}
	if got := Merge(hooknames.PreToolCall, []Result{c1, c2}).Outcome(); !cmp.Equal(got, tbl{"context": "one\n\ntwo"}) {
		t.Errorf("outcome of contexts alone: %v", got)
	}
}

// TestMergeFailClosed: a failed fail_closed hook's block takes its place in the order, so an
// earlier block still wins, and it keeps its own message.
func TestMergeFailClosed(t *testing.T) {
	t.Parallel()
	failed := Failed(SourcePlugin, "guard", StatusTimeout, "slow", 0)
	failed.FailClosed(`blocked: plugin "guard" failed closed (timeout: slow)`)
	block := Answered(SourceShell, "b", hooknames.PreToolCall, tbl{"decision": "block", "reason": "r"}, 0)
	modify := Answered(SourcePlugin, "m", hooknames.PreToolCall, tbl{"action": "modify", "args": n1}, 0)
	plain := Failed(SourcePlugin, "open", StatusError, "boom", 0) // not fail_closed: nothing

	tests := []struct {
		rs   []Result
		want Decision
	}{
		{[]Result{modify, failed, block}, Decision{Kind: Block, By: 1, Message: `blocked: plugin "guard" failed closed (timeout: slow)`}},
		{[]Result{block, failed}, Decision{Kind: Block, By: 0, Message: "r"}},
		{[]Result{plain, modify}, Decision{Kind: Modify, By: 1, Args: n1}},
	}
	for i, tt := range tests {
		if diff := cmp.Diff(tt.want, Merge(hooknames.PreToolCall, tt.rs)); diff != "" {
			t.Errorf("case %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestMergeDefaultBlockMessage: a block without a usable message gets its source's default.
func TestMergeDefaultBlockMessage(t *testing.T) {
	t.Parallel()
	for source, want := range map[string]string{
		SourcePlugin: "Blocked by plugin hook.",
		SourceShell:  "Blocked by shell hook.",
		"":           "Blocked by plugin hook.",
	} {
		for _, v := range []any{tbl{"action": "block"}, tbl{"action": "block", "message": "  "}, tbl{"decision": "block", "reason": int64(1)},
			tbl{"hookSpecificOutput": tbl{"permissionDecision": "deny", "permissionDecisionReason": ""}}} {
			d := Merge(hooknames.PreToolCall, []Result{Answered(source, "h", hooknames.PreToolCall, v, 0)})
			if d.Kind != Block || d.Message != want {
				t.Errorf("%q source, %s: %v %q, want a block with %q", source, show(v), d.Kind, d.Message, want)
			}
		}
	}
}

// TestMergeOtherHooks: contexts join, transforms take the first, dispatch takes the first
// decision, observers decide nothing; an answer of a kind a hook does not take is passed over.
func TestMergeOtherHooks(t *testing.T) {
	t.Parallel()
	ctx := func(s string) Answer { return Answer{Kind: Context, Text: s} }
	rep := func(s string) Answer { return Answer{Kind: Replace, Text: s} }
	tests := []struct {
		event   string
		answers []Answer
		want    Decision
	}{
		{hooknames.PreLLMCall, []Answer{{}, ctx("a"), {}, ctx("b"), ctx("c")}, Decision{Kind: Context, By: 1, From: []int{1, 3, 4}, Text: "a\n\nb\n\nc"}},
		{hooknames.PreLLMCall, []Answer{ctx(" a ")}, Decision{Kind: Context, By: 0, From: []int{0}, Text: " a "}},
		{hooknames.PreLLMCall, []Answer{{}, rep("x")}, Decision{By: -1}},
		// A prompt block decides over every context, wherever it comes.
		{hooknames.PreLLMCall, []Answer{ctx("a"), {Kind: Block, Message: "m"}, {Kind: Block, Message: "n"}}, Decision{Kind: Block, By: 1, Message: "m"}},
		{hooknames.PreLLMCall, []Answer{{Kind: Block}}, Decision{Kind: Block, By: 0, Message: "Blocked by plugin hook."}},
		{hooknames.PreVerify, []Answer{{}, {Kind: Continue, Message: "tests fail"}, {Kind: Continue, Message: "lint"}}, Decision{Kind: Continue, By: 1, Message: "tests fail"}},
		{hooknames.PreVerify, []Answer{ctx("c"), {Kind: Block}}, Decision{By: -1}},
		{hooknames.PreCompact, []Answer{ctx("keep names"), ctx("keep paths")}, Decision{Kind: Context, By: 0, From: []int{0, 1}, Text: "keep names\n\nkeep paths"}},
		{hooknames.PostToolFailure, []Answer{ctx("retry with -v")}, Decision{Kind: Context, By: 0, From: []int{0}, Text: "retry with -v"}},
		// A deny decides over every allow; the first allow gives its args and remember.
		{hooknames.PreApprovalRequest, []Answer{{Kind: Allow, Remember: true}, {Kind: Deny, Message: "no"}}, Decision{Kind: Deny, By: 1, Message: "no"}},
		{hooknames.PreApprovalRequest, []Answer{{}, {Kind: Allow, Args: map[string]any{"command": "ls"}, Remember: true}, {Kind: Allow}}, Decision{Kind: Allow, By: 1, Args: map[string]any{"command": "ls"}, Remember: true}},
		{hooknames.PreApprovalRequest, []Answer{{Kind: Deny, Remember: true}}, Decision{Kind: Deny, By: 0, Message: "Blocked by plugin hook.", Remember: true}},
		{hooknames.OnNotification, []Answer{ctx("x"), {Kind: Continue}}, Decision{By: -1}},
		// Hooks written for Claude Code add context to these two.
		{hooknames.OnSessionStart, []Answer{ctx("s1"), ctx("s2")}, Decision{Kind: Context, By: 0, From: []int{0, 1}, Text: "s1\n\ns2"}},
		{hooknames.PostToolCall, []Answer{{}, ctx("feedback")}, Decision{Kind: Context, By: 1, From: []int{1}, Text: "feedback"}},
		{hooknames.PostLLMCall, []Answer{ctx("ignored")}, Decision{By: -1}},
		{hooknames.PreToolCall, []Answer{{}, {Kind: Block, Message: "m"}}, Decision{Kind: Block, By: 1, Message: "m"}},

		{hooknames.TransformToolResult, []Answer{{}, rep(""), rep("second")}, Decision{Kind: Replace, By: 1, Text: ""}},
		{hooknames.TransformTerminalOutput, []Answer{rep("a"), rep("b")}, Decision{Kind: Replace, By: 0, Text: "a"}},
		{hooknames.TransformLLMOutput, []Answer{ctx("c"), rep("r")}, Decision{Kind: Replace, By: 1, Text: "r"}},

		{hooknames.PreGatewayDispatch, []Answer{{}, {Kind: Skip, Message: "spam"}, {Kind: Allow}}, Decision{Kind: Skip, By: 1, Message: "spam"}},
		{hooknames.PreGatewayDispatch, []Answer{{Kind: Allow}, {Kind: Skip}}, Decision{Kind: Allow, By: 0}},
		{hooknames.PreGatewayDispatch, []Answer{{Kind: Rewrite, Text: "hi"}, {Kind: Skip}}, Decision{Kind: Rewrite, By: 0, Text: "hi"}},
		{hooknames.PreGatewayDispatch, []Answer{{Kind: Skip}}, Decision{Kind: Skip, By: 0}},
		{hooknames.PreGatewayDispatch, []Answer{rep("x"), {Kind: Block}, ctx("c")}, Decision{By: -1}},

		{hooknames.SubagentStop, []Answer{{Kind: Block, Message: "m"}, rep("r")}, Decision{By: -1}},
		{"my_host_hook", []Answer{{Kind: Block}}, Decision{By: -1}},
	}
	for _, tt := range tests {
		rs := make([]Result, len(tt.answers))
		for i, a := range tt.answers {
			rs[i] = Result{Source: SourcePlugin, Answer: a}
		}
		if diff := cmp.Diff(tt.want, Merge(tt.event, rs)); diff != "" {
			t.Errorf("Merge(%s, %v) (-want +got):\n%s", tt.event, tt.answers, diff)
		}
	}
}

// TestOutcome is the wire shape of every kind of decision.
func TestOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    Decision
		want any
	}{
		{Decision{By: -1}, nil},
		{Decision{Kind: Block, Message: "no", Args: n1}, tbl{"action": "block", "message": "no"}},
		{Decision{Kind: Block, Message: "no", Text: "c"}, tbl{"action": "block", "message": "no", "context": "c"}},
		{Decision{Kind: Approve, Text: "c"}, tbl{"action": "approve", "context": "c"}},
		{Decision{Kind: Ask, Message: "q"}, tbl{"action": "ask", "message": "q"}},
		{Decision{Kind: Ask, Message: "q", Args: n1}, tbl{"action": "ask", "message": "q", "args": n1}},
		{Decision{Kind: Approve}, tbl{"action": "approve"}},
		{Decision{Kind: Approve, Args: n1}, tbl{"action": "approve", "args": n1}},
		{Decision{Kind: Modify, Args: n1}, tbl{"action": "modify", "args": n1}},
		{Decision{Kind: Context, Text: "c"}, tbl{"context": "c"}},
		{Decision{Kind: Replace, Text: ""}, tbl{"text": ""}},
		{Decision{Kind: Skip, Message: "r"}, tbl{"action": "skip", "reason": "r"}},
		{Decision{Kind: Rewrite, Text: "t"}, tbl{"action": "rewrite", "text": "t"}},
		{Decision{Kind: Allow}, tbl{"action": "allow"}},
		{Decision{Kind: Allow, Args: n1, Remember: true}, tbl{"action": "allow", "args": n1, "remember": true}},
		{Decision{Kind: Deny, Message: "no"}, tbl{"action": "deny", "message": "no"}},
		{Decision{Kind: Deny, Message: "no", Remember: true}, tbl{"action": "deny", "message": "no", "remember": true}},
		{Decision{Kind: Continue, Message: "run the tests"}, tbl{"action": "continue", "reason": "run the tests"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.d.Outcome()); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.d, diff)
		}
	}
}

// A context of one hook, the common one, costs no allocation; growing the From of one
// decision never changes another's.
func TestMergeContextFrom(t *testing.T) {
	one := []Result{{}, {Answer: Answer{Kind: Context, Text: "a"}}}
	if n := testing.AllocsPerRun(100, func() { Merge(hooknames.PreLLMCall, one) }); n != 0 {
		t.Errorf("a context of one hook: %v allocations, want 0", n)
	}
	d1, d2 := Merge(hooknames.PreLLMCall, one), Merge(hooknames.PreLLMCall, one)
	d1.From = append(d1.From, 7)
	if !cmp.Equal(d2.From, []int{1}) || !cmp.Equal(Merge(hooknames.PreLLMCall, one).From, []int{1}) {
		t.Errorf("appending to one decision's From changed another's: %v", d2.From)
	}
	many := make([]Result, 70)
	for i := range many {
		many[i].Answer = Answer{Kind: Context, Text: "x"}
	}
	if d := Merge(hooknames.PreLLMCall, many[65:]); !cmp.Equal(d.From, []int{0, 1, 2, 3, 4}) {
		t.Errorf("five contexts: From %v", d.From)
	}
	if d := Merge(hooknames.PreLLMCall, append(make([]Result, 66), many[0])); !cmp.Equal(d.From, []int{66}) {
		t.Errorf("a context at index 66: From %v", d.From)
	}
}
