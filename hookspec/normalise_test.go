package hookspec

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/suggest"
)

// tbl is shorthand for a table in the cases below.
type tbl = map[string]any

// normaliseCase is one answer and what Normalise reads it as. The answer is the Go value a
// Lua callback's return converts to (nil, bool, string, int64, float64, []any, tbl); each
// case is also read as a shell hook's stdout: the value printed as JSON and decoded as the
// shell package does (integral numbers as int64), which must read the same.
type normaliseCase struct {
	name string
	v    any
	want Answer
}

// TestNormalise is every accepted and ignored answer shape of every hook.
func TestNormalise(t *testing.T) {
	t.Parallel()
	ls := tbl{"command": "ls -la"}
	// Answers no hook takes: every observer must read each as nothing.
	junk := []normaliseCase{
		{"nil", nil, Answer{}},
		{"a string", "block", Answer{}},
		{"an empty string", "", Answer{}},
		{"an integer", int64(1), Answer{}},
		{"a float", 1.5, Answer{}},
		{"true", true, Answer{}},
		{"false", false, Answer{}},
		{"a list", []any{"block", "x"}, Answer{}},
		{"an empty table", tbl{}, Answer{}},
		{"a block", tbl{"action": "block", "message": "no"}, Answer{}},
		{"a context", tbl{"context": "c"}, Answer{}},
		{"a result", tbl{"result": "r"}, Answer{}},
		{"a skip", tbl{"action": "skip", "reason": "r"}, Answer{}},
	}
	cases := map[string][]normaliseCase{
		hooknames.PreToolCall: {
			{"nil", nil, Answer{}},
			{"a string", "block", Answer{}},
			{"a number", int64(2), Answer{}},
			{"a float", 2.5, Answer{}},
			{"true", true, Answer{}},
			{"false", false, Answer{}},
			{"a list", []any{"block", "why"}, Answer{}},
			{"an empty table", tbl{}, Answer{}},
			{"message alone", tbl{"message": "no"}, Answer{}},
			{"reason alone", tbl{"reason": "no"}, Answer{}},
			{"action deny", tbl{"action": "deny", "message": "no"}, Answer{}},
			{"action in capitals", tbl{"action": "BLOCK", "message": "no"}, Answer{}},
			{"action allow", tbl{"action": "allow"}, Answer{}},
			{"decision allow", tbl{"decision": "allow"}, Answer{}},
			{"decision deny", tbl{"decision": "deny", "reason": "no"}, Answer{}},

			{"block", tbl{"action": "block", "message": "no"}, Answer{Kind: Block, Message: "no"}},
			{"block without message", tbl{"action": "block"}, Answer{Kind: Block}},
			{"block with an empty message", tbl{"action": "block", "message": ""}, Answer{Kind: Block}},
			{"block with a blank message", tbl{"action": "block", "message": " \t\n"}, Answer{Kind: Block}},
			{"block with a number as message", tbl{"action": "block", "message": int64(3)}, Answer{Kind: Block}},
			{"block with a table as message", tbl{"action": "block", "message": tbl{"a": "b"}}, Answer{Kind: Block}},
			{"block falls back to reason", tbl{"action": "block", "reason": "r"}, Answer{Kind: Block, Message: "r"}},
			{"block's blank message falls back to reason", tbl{"action": "block", "message": "  ", "reason": "r"}, Answer{Kind: Block, Message: "r"}},
			{"block's message before reason", tbl{"action": "block", "message": "m", "reason": "r"}, Answer{Kind: Block, Message: "m"}},
			{"block keeps its args out", tbl{"action": "block", "message": "m", "args": ls}, Answer{Kind: Block, Message: "m"}},
			{"the canonical action decides: allow", tbl{"action": "allow", "decision": "block", "reason": "r"}, Answer{}},
			{"the canonical action decides: deny", tbl{"action": "deny", "decision": "block"}, Answer{}},
			{"the canonical action decides: block", tbl{"action": "block", "decision": "approve"}, Answer{Kind: Block}},
			{"the canonical action decides over hookSpecificOutput", tbl{"action": "approve", "hookSpecificOutput": tbl{"permissionDecision": "deny"}}, Answer{Kind: Approve}},
			{"an action that is not a string is no canonical form", tbl{"action": int64(1), "decision": "block"}, Answer{Kind: Block}},

			{"modify", tbl{"action": "modify", "args": ls}, Answer{Kind: Modify, Args: ls}},
			{"modify to no arguments", tbl{"action": "modify", "args": tbl{}}, Answer{Kind: Modify, Args: tbl{}}},
			{"modify without args", tbl{"action": "modify"}, Answer{}},
			{"modify with a string", tbl{"action": "modify", "args": "rm -rf /"}, Answer{}},
			{"modify with a list", tbl{"action": "modify", "args": []any{"ls"}}, Answer{}},
			{"modify with a number", tbl{"action": "modify", "args": int64(5)}, Answer{}},

			{"approve", tbl{"action": "approve"}, Answer{Kind: Approve}},
			{"approve with args", tbl{"action": "approve", "args": ls}, Answer{Kind: Approve, Args: ls}},
			{"approve with a string", tbl{"action": "approve", "args": "ls"}, Answer{}},
			{"approve with a number", tbl{"action": "approve", "args": int64(5)}, Answer{}},
			{"approve with false", tbl{"action": "approve", "args": false}, Answer{}},

			{"ask", tbl{"action": "ask", "message": "sure?"}, Answer{Kind: Ask, Message: "sure?"}},
			{"ask without message", tbl{"action": "ask"}, Answer{Kind: Ask}},
			{"ask with a number as message", tbl{"action": "ask", "message": 1.5}, Answer{Kind: Ask}},
			{"ask with args", tbl{"action": "ask", "message": "ok?", "args": ls}, Answer{Kind: Ask, Message: "ok?", Args: ls}},
			{"ask with a string as args asks about the call's own", tbl{"action": "ask", "message": "ok?", "args": "ls"}, Answer{Kind: Ask, Message: "ok?"}},

			{"Claude Code's block", tbl{"decision": "block", "reason": "r"}, Answer{Kind: Block, Message: "r"}},
			{"Claude Code's block without reason", tbl{"decision": "block"}, Answer{Kind: Block}},
			{"Claude Code's block falls back to message", tbl{"decision": "block", "message": "m"}, Answer{Kind: Block, Message: "m"}},
			{"Claude Code's reason before message", tbl{"decision": "block", "reason": "r", "message": "m"}, Answer{Kind: Block, Message: "r"}},
			{"Claude Code's approve", tbl{"decision": "approve", "reason": "fine"}, Answer{Kind: Approve}},
			{"deny", tbl{"hookSpecificOutput": tbl{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": ".env is private"}}, Answer{Kind: Block, Message: ".env is private"}},
			{"deny without reason", tbl{"hookSpecificOutput": tbl{"permissionDecision": "deny"}}, Answer{Kind: Block}},
			{"deny without reason falls back to reason", tbl{"reason": "top", "hookSpecificOutput": tbl{"permissionDecision": "deny"}}, Answer{Kind: Block, Message: "top"}},
			{"deny with a blank reason falls back to message", tbl{"message": "m", "hookSpecificOutput": tbl{"permissionDecision": "deny", "permissionDecisionReason": " "}}, Answer{Kind: Block, Message: "m"}},
			{"deny's reason first", tbl{"decision": "block", "reason": "top", "hookSpecificOutput": tbl{"permissionDecision": "deny", "permissionDecisionReason": "pdr"}}, Answer{Kind: Block, Message: "pdr"}},
			{"deny beats decision approve", tbl{"decision": "approve", "hookSpecificOutput": tbl{"permissionDecision": "deny"}}, Answer{Kind: Block}},
			{"allow", tbl{"hookSpecificOutput": tbl{"permissionDecision": "allow"}}, Answer{Kind: Approve}},
			{"allow with updatedInput", tbl{"hookSpecificOutput": tbl{"permissionDecision": "allow", "updatedInput": ls}}, Answer{Kind: Approve, Args: ls}},
			{"allow with a string as updatedInput", tbl{"hookSpecificOutput": tbl{"permissionDecision": "allow", "updatedInput": "ls"}}, Answer{}},
			{"ask the person", tbl{"hookSpecificOutput": tbl{"permissionDecision": "ask", "permissionDecisionReason": "deploy?"}}, Answer{Kind: Ask, Message: "deploy?"}},
			{"ask with updatedInput", tbl{"hookSpecificOutput": tbl{"permissionDecision": "ask", "updatedInput": ls}}, Answer{Kind: Ask, Args: ls}},
			{"ask with a string as updatedInput", tbl{"hookSpecificOutput": tbl{"permissionDecision": "ask", "updatedInput": "ls"}}, Answer{Kind: Ask}},
			{"updatedInput alone modifies", tbl{"hookSpecificOutput": tbl{"updatedInput": ls}}, Answer{Kind: Modify, Args: ls}},
			{"updatedInput alone, not a table", tbl{"hookSpecificOutput": tbl{"updatedInput": "ls"}}, Answer{}},
			{"defer decides nothing", tbl{"hookSpecificOutput": tbl{"permissionDecision": "defer"}}, Answer{}},
			{"hookSpecificOutput that is not a table", tbl{"hookSpecificOutput": "deny"}, Answer{}},
			// Forms of one answer that disagree are read on the safe side: a block in either
			// form blocks.
			{"decision block beats updatedInput alone", tbl{"decision": "block", "reason": "r", "hookSpecificOutput": tbl{"updatedInput": ls}}, Answer{Kind: Block, Message: "r"}},
			{"decision block beats allow", tbl{"decision": "block", "hookSpecificOutput": tbl{"permissionDecision": "allow"}}, Answer{Kind: Block}},
			{"decision block beats ask", tbl{"decision": "block", "reason": "r", "hookSpecificOutput": tbl{"permissionDecision": "ask", "permissionDecisionReason": "q"}}, Answer{Kind: Block, Message: "r"}},
			{"decision block beats defer", tbl{"decision": "block", "hookSpecificOutput": tbl{"permissionDecision": "defer"}}, Answer{Kind: Block}},
			// decision "approve" is allow's older form: updatedInput is what it approves.
			{"decision approve with updatedInput approves it", tbl{"decision": "approve", "hookSpecificOutput": tbl{"updatedInput": ls}}, Answer{Kind: Approve, Args: ls}},
			{"decision approve with a string as updatedInput approves nothing", tbl{"decision": "approve", "hookSpecificOutput": tbl{"updatedInput": "ls"}}, Answer{}},
			{"decision approve does not rescue allow's bad updatedInput", tbl{"decision": "approve", "hookSpecificOutput": tbl{"permissionDecision": "allow", "updatedInput": int64(1)}}, Answer{}},
			{"ask beats decision approve", tbl{"decision": "approve", "hookSpecificOutput": tbl{"permissionDecision": "ask", "updatedInput": ls}}, Answer{Kind: Ask, Args: ls}},
			{"hookSpecificOutput with only its event name", tbl{"hookSpecificOutput": tbl{"hookEventName": "PreToolUse"}}, Answer{}},
			// A context for the model, alone or beside a decision, in either form.
			{"a context alone", tbl{"context": "use rg"}, Answer{Kind: Context, Text: "use rg"}},
			{"a blank context", tbl{"context": " \n"}, Answer{}},
			{"a context that is not a string", tbl{"context": int64(1)}, Answer{}},
			{"a context beside allow", tbl{"action": "allow", "context": "c"}, Answer{Kind: Context, Text: "c"}},
			{"a context beside modify", tbl{"action": "modify", "args": ls, "context": "c"}, Answer{Kind: Modify, Args: ls, Text: "c"}},
			{"a context beside approve", tbl{"action": "approve", "context": "c"}, Answer{Kind: Approve, Text: "c"}},
			{"a context beside ask", tbl{"action": "ask", "message": "q", "context": "c"}, Answer{Kind: Ask, Message: "q", Text: "c"}},
			{"a context beside block", tbl{"action": "block", "message": "no", "context": "c"}, Answer{Kind: Block, Message: "no", Text: "c"}},
			{"a context beside a mistake", tbl{"action": "deny", "context": "c"}, Answer{}},
			{"a context beside message alone", tbl{"message": "m", "context": "c"}, Answer{}},
			{"additionalContext alone", tbl{"hookSpecificOutput": tbl{"hookEventName": "PreToolUse", "additionalContext": "c"}}, Answer{Kind: Context, Text: "c"}},
			{"additionalContext beside defer", tbl{"hookSpecificOutput": tbl{"permissionDecision": "defer", "additionalContext": "c"}}, Answer{Kind: Context, Text: "c"}},
			{"additionalContext beside allow", tbl{"hookSpecificOutput": tbl{"permissionDecision": "allow", "updatedInput": ls, "additionalContext": "c"}}, Answer{Kind: Approve, Args: ls, Text: "c"}},
			{"additionalContext beside deny", tbl{"hookSpecificOutput": tbl{"permissionDecision": "deny", "permissionDecisionReason": "r", "additionalContext": "c"}}, Answer{Kind: Block, Message: "r", Text: "c"}},
			{"additionalContext beside a bad updatedInput", tbl{"hookSpecificOutput": tbl{"permissionDecision": "allow", "updatedInput": "ls", "additionalContext": "c"}}, Answer{}},
			{"additionalContext beside Claude Code's fields that decide nothing", tbl{"systemMessage": "m", "suppressOutput": true, "continue": true, "hookSpecificOutput": tbl{"additionalContext": "c"}}, Answer{Kind: Context, Text: "c"}},
			{"context first, then additionalContext", tbl{"context": "a", "hookSpecificOutput": tbl{"additionalContext": "b"}}, Answer{Kind: Context, Text: "a"}},
		},
		hooknames.PreLLMCall: {
			{"a string", "remember this", Answer{Kind: Context, Text: "remember this"}},
			{"a string with spaces around", "  x  ", Answer{Kind: Context, Text: "  x  "}},
			{"a context", tbl{"context": "c"}, Answer{Kind: Context, Text: "c"}},
			{"a context and other keys", tbl{"context": "c", "other": int64(1)}, Answer{Kind: Context, Text: "c"}},
			{"an empty string", "", Answer{}},
			{"a blank string", " \t\r\n", Answer{}},
			{"a blank context", tbl{"context": "   "}, Answer{}},
			{"a number as context", tbl{"context": int64(42)}, Answer{}},
			{"a table as context", tbl{"context": tbl{"a": "b"}}, Answer{}},
			{"a misspelled key", tbl{"contxt": "c"}, Answer{}},
			{"a number", int64(42), Answer{}},
			{"true", true, Answer{}},
			{"a list", []any{"c"}, Answer{}},
			{"an empty table", tbl{}, Answer{}},
			{"nil", nil, Answer{}},
		},
		hooknames.TransformToolResult: {
			{"a string", "new", Answer{Kind: Replace, Text: "new"}},
			{"the empty string", "", Answer{Kind: Replace, Text: ""}},
			{"a result", tbl{"result": "r"}, Answer{Kind: Replace, Text: "r"}},
			{"an empty result", tbl{"result": ""}, Answer{Kind: Replace, Text: ""}},
			{"a number as result", tbl{"result": int64(1)}, Answer{}},
			{"another transform's key", tbl{"output": "o"}, Answer{}},
			{"text", tbl{"text": "t"}, Answer{}},
			{"a number", 1.5, Answer{}},
			{"false", false, Answer{}},
			{"a list", []any{"r"}, Answer{}},
			{"nil", nil, Answer{}},
		},
		hooknames.TransformTerminalOutput: {
			{"a string", "new", Answer{Kind: Replace, Text: "new"}},
			{"the empty string", "", Answer{Kind: Replace, Text: ""}},
			{"an output", tbl{"output": "o"}, Answer{Kind: Replace, Text: "o"}},
			{"an empty output", tbl{"output": ""}, Answer{Kind: Replace, Text: ""}},
			{"a number as output", tbl{"output": true}, Answer{}},
			{"another transform's key", tbl{"result": "r"}, Answer{}},
			{"a number", int64(0), Answer{}},
			{"nil", nil, Answer{}},
		},
		hooknames.TransformLLMOutput: {
			{"a string", "new", Answer{Kind: Replace, Text: "new"}},
			{"a blank string counts", " ", Answer{Kind: Replace, Text: " "}},
			{"the empty string does not", "", Answer{}},
			{"a response_text", tbl{"response_text": "r"}, Answer{Kind: Replace, Text: "r"}},
			{"an empty response_text", tbl{"response_text": ""}, Answer{}},
			{"a number as response_text", tbl{"response_text": int64(1)}, Answer{}},
			{"another transform's key", tbl{"result": "r"}, Answer{}},
			{"a number", int64(1), Answer{}},
			{"nil", nil, Answer{}},
		},
		hooknames.PreVerify: {
			{"continue with a reason", tbl{"action": "continue", "reason": "run the tests"}, Answer{Kind: Continue, Message: "run the tests"}},
			{"continue without a reason keeps going all the same", tbl{"action": "continue"}, Answer{Kind: Continue, Message: DefaultContinueReason}},
			{"continue with a blank reason", tbl{"action": "continue", "reason": " "}, Answer{Kind: Continue, Message: DefaultContinueReason}},
			{"Claude Code's block", tbl{"decision": "block", "reason": "tests fail"}, Answer{Kind: Continue, Message: "tests fail"}},
			{"a canonical action decides over decision", tbl{"action": "stop", "decision": "block"}, Answer{}},
			{"an unknown action", tbl{"action": "go"}, Answer{}},
			{"a string", "continue", Answer{}},
			{"nil", nil, Answer{}},
		},
		hooknames.PreCompact: {
			{"a string", "keep the test names", Answer{Kind: Context, Text: "keep the test names"}},
			{"a context", tbl{"context": "c"}, Answer{Kind: Context, Text: "c"}},
			{"a blank string", " ", Answer{}},
			{"a number", int64(1), Answer{}},
			{"nil", nil, Answer{}},
		},
		hooknames.PreApprovalRequest: {
			{"allow", tbl{"action": "allow"}, Answer{Kind: Allow}},
			{"allow and remember", tbl{"action": "allow", "remember": true}, Answer{Kind: Allow, Remember: true}},
			{"allow with args", tbl{"action": "allow", "args": tbl{"command": "ls"}}, Answer{Kind: Allow, Args: tbl{"command": "ls"}}},
			{"allow with args that are not a table allows nothing", tbl{"action": "allow", "args": "ls"}, Answer{}},
			{"deny", tbl{"action": "deny", "message": "no"}, Answer{Kind: Deny, Message: "no"}},
			{"deny without a message", tbl{"action": "deny", "remember": true}, Answer{Kind: Deny, Remember: true}},
			{"remember must be true", tbl{"action": "deny", "remember": "yes"}, Answer{Kind: Deny}},
			{"approve is pre_tool_call's", tbl{"action": "approve"}, Answer{}},
			{"a string", "allow", Answer{}},
			{"nil", nil, Answer{}},
		},
		hooknames.PreAPIRequest: {
			{"modify", tbl{"action": "modify", "request": tbl{"model": "m2"}}, Answer{Kind: Modify, Request: tbl{"model": "m2"}}},
			{"modify with an empty request", tbl{"action": "modify", "request": tbl{}}, Answer{Kind: Modify, Request: tbl{}}},
			{"modify with a request that is not a table", tbl{"action": "modify", "request": "trim"}, Answer{}},
			{"modify without a request", tbl{"action": "modify", "args": tbl{"model": "m"}}, Answer{}},
			{"respond with a table", tbl{"action": "respond", "response": tbl{"content": "hi"}}, Answer{Kind: Respond, Response: tbl{"content": "hi"}}},
			{"respond with a string is its content", tbl{"action": "respond", "response": "offline"}, Answer{Kind: Respond, Response: tbl{"content": "offline"}}},
			{"respond with a number", tbl{"action": "respond", "response": int64(1)}, Answer{}},
			{"respond without a response", tbl{"action": "respond"}, Answer{}},
			{"block is not an api action", tbl{"action": "block", "message": "m"}, Answer{}},
			{"an observer's true", true, Answer{}},
			{"an observer's string", "respond", Answer{}},
			{"nil", nil, Answer{}},
		},
		hooknames.PreGatewayDispatch: {
			{"skip", tbl{"action": "skip", "reason": "spam"}, Answer{Kind: Skip, Message: "spam"}},
			{"skip without reason", tbl{"action": "skip"}, Answer{Kind: Skip}},
			{"skip with a number as reason", tbl{"action": "skip", "reason": int64(1)}, Answer{Kind: Skip}},
			{"rewrite", tbl{"action": "rewrite", "text": "hi"}, Answer{Kind: Rewrite, Text: "hi"}},
			{"rewrite to the empty string", tbl{"action": "rewrite", "text": ""}, Answer{Kind: Rewrite, Text: ""}},
			{"rewrite without text dispatches as it is", tbl{"action": "rewrite"}, Answer{Kind: Allow}},
			{"rewrite with a number as text dispatches as it is", tbl{"action": "rewrite", "text": int64(1)}, Answer{Kind: Allow}},
			{"allow", tbl{"action": "allow"}, Answer{Kind: Allow}},
			{"an unknown action", tbl{"action": "drop"}, Answer{}},
			{"block is not a dispatch action", tbl{"action": "block", "message": "m"}, Answer{}},
			{"decision is not action", tbl{"decision": "skip"}, Answer{}},
			{"a string", "skip", Answer{}},
			{"a number", int64(1), Answer{}},
			{"a list", []any{"skip"}, Answer{}},
			{"an empty table", tbl{}, Answer{}},
			{"nil", nil, Answer{}},
		},
	}
	for _, h := range append(Names(), "my_host_hook") {
		if !refReadsAnswers(h) {
			cases[h] = junk
		}
	}
	for h, cs := range cases {
		for _, c := range cs {
			t.Run(h+"/"+c.name, func(t *testing.T) {
				if diff := cmp.Diff(c.want, Normalise(h, c.v)); diff != "" {
					t.Errorf("from Lua (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(jsonAnswer(t, c.want), Normalise(h, shellValue(t, c.v))); diff != "" {
					t.Errorf("from a shell hook's stdout (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// shellValue is v printed as JSON by a shell hook and decoded as the shell package decodes
// stdout: integral numbers as int64, others as float64.
func shellValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	var fix func(any) any
	fix = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i
			}
			f, _ := x.Float64()
			return f
		case []any:
			for i := range x {
				x[i] = fix(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = fix(x[k])
			}
		}
		return v
	}
	return fix(out)
}

// jsonAnswer is want with its args as a shell hook's would decode.
func jsonAnswer(t *testing.T, want Answer) Answer {
	if want.Args != nil {
		want.Args = shellValue(t, want.Args).(map[string]any)
	}
	return want
}

// TestNormaliseEveryHookHasCases keeps TestNormalise complete: a hook added to Names that
// reads answers needs its cases.
func TestNormaliseEveryHookHasCases(t *testing.T) {
	t.Parallel()
	reads := 0
	for _, h := range Names() {
		if _, ok := expected[h]; ok != refReadsAnswers(h) {
			t.Errorf("%s: reads answers %v in the code, %v in the docs", h, ok, refReadsAnswers(h))
		}
		if refReadsAnswers(h) {
			reads++
		}
	}
	if reads != 10 {
		t.Errorf("%d hooks read answers, the docs name 10", reads)
	}
}

// TestProblemMessages holds the one-line reports of answers that do nothing, as a user sees
// them (with the did-you-mean the engine computes), and the quiet answers that change
// nothing on purpose.
func TestProblemMessages(t *testing.T) {
	t.Parallel()
	const tool = `expected {action="block", message="..."}, {action="modify", args={...}}, {action="approve"}, {action="ask", message="..."}, or Claude Code's {decision="block", reason="..."} / {hookSpecificOutput={permissionDecision=...}}; beside any of them or alone, {context="..."}`
	tests := []struct {
		event string
		v     any
		want  string // the whole message; "" = no problem
	}{
		{hooknames.PreToolCall, tbl{"action": "deny"}, `answer {"action":"deny"} does nothing for pre_tool_call: ` + tool},
		{hooknames.PreToolCall, tbl{"action": "blocked"}, `answer {"action":"blocked"} does nothing for pre_tool_call: ` + tool + ` (did you mean action="block"?)`},
		{hooknames.PreToolCall, tbl{"action": "aprove"}, `answer {"action":"aprove"} does nothing for pre_tool_call: ` + tool + ` (did you mean action="approve"?)`},
		{hooknames.PreToolCall, tbl{"decision": "blck", "reason": "r"}, `answer {"decision":"blck","reason":"r"} does nothing for pre_tool_call: ` + tool + ` (did you mean decision="block"?)`},
		{hooknames.PreToolCall, tbl{"actoin": "block"}, `answer {"actoin":"block"} does nothing for pre_tool_call: ` + tool + ` (did you mean "action" instead of "actoin"?)`},
		{hooknames.PreToolCall, tbl{"message": "no"}, `answer {"message":"no"} does nothing for pre_tool_call: ` + tool},
		{hooknames.PreToolCall, "block", `answer "block" does nothing for pre_tool_call: ` + tool},
		{hooknames.PreToolCall, int64(1), `answer 1 does nothing for pre_tool_call: ` + tool},
		{hooknames.PreToolCall, true, `answer true does nothing for pre_tool_call: ` + tool},
		{hooknames.PreToolCall, tbl{"action": "modify", "args": "rm -rf /"}, `answer {"action":"modify","args":"rm -rf /"} does nothing for pre_tool_call: ` + tool},
		{hooknames.PreToolCall, tbl{"hookSpecificOutput": tbl{"permissionDecision": "allow", "updatedInput": "ls"}}, `answer {"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":"ls"}} does nothing for pre_tool_call: ` + tool},
		{hooknames.PreToolCall, tbl{"action": "block", "message": strings.Repeat("x", 100)}, ""},
		{hooknames.PreToolCall, tbl{"action": "deny", "message": strings.Repeat("x", 100)}, `answer {"action":"deny","message":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... does nothing for pre_tool_call: ` + tool},
		// A context beside a mistake does not hide it.
		{hooknames.PreToolCall, tbl{"action": "deny", "context": "c"}, `answer {"action":"deny","context":"c"} does nothing for pre_tool_call: ` + tool},
		{hooknames.PreToolCall, tbl{"contxt": "c"}, `answer {"contxt":"c"} does nothing for pre_tool_call: ` + tool + ` (did you mean "context" instead of "contxt"?)`},
		{hooknames.PreLLMCall, int64(42), `answer 42 does nothing for pre_llm_call: expected a string, {context="..."}, or {action="block", message="..."}`},
		{hooknames.PreLLMCall, tbl{"contxt": "x"}, `answer {"contxt":"x"} does nothing for pre_llm_call: expected a string, {context="..."}, or {action="block", message="..."} (did you mean "context" instead of "contxt"?)`},
		{hooknames.PreLLMCall, tbl{"action": "blok", "message": "m"}, `answer {"action":"blok","message":"m"} does nothing for pre_llm_call: expected a string, {context="..."}, or {action="block", message="..."} (did you mean action="block"?)`},
		{hooknames.PreVerify, tbl{"action": "continu", "reason": "r"}, `answer {"action":"continu","reason":"r"} does nothing for pre_verify: expected {action="continue", reason="..."} (did you mean action="continue"?)`},
		{hooknames.PreApprovalRequest, tbl{"action": "approve"}, `answer {"action":"approve"} does nothing for pre_approval_request: expected {action="allow", args={...}?, remember=true?} or {action="deny", message="...", remember=true?}`},
		{hooknames.PreCompact, tbl{"contxt": "x"}, `answer {"contxt":"x"} does nothing for pre_compact: expected a string, or {context="..."} (did you mean "context" instead of "contxt"?)`},
		{hooknames.TransformToolResult, tbl{"reslt": "x"}, `answer {"reslt":"x"} does nothing for transform_tool_result: expected a string, or {result="..."} (did you mean "result" instead of "reslt"?)`},
		{hooknames.TransformTerminalOutput, int64(3), `answer 3 does nothing for transform_terminal_output: expected a string, or {output="..."}`},
		{hooknames.TransformLLMOutput, tbl{"respons_text": "x"}, `answer {"respons_text":"x"} does nothing for transform_llm_output: expected a non-empty string, or {response_text="..."} (did you mean "response_text" instead of "respons_text"?)`},
		{hooknames.PreGatewayDispatch, tbl{"action": "skp"}, `answer {"action":"skp"} does nothing for pre_gateway_dispatch: expected {action="skip", reason=...}, {action="rewrite", text="..."} or {action="allow"} (did you mean action="skip"?)`},
		{hooknames.PreGatewayDispatch, "skip", `answer "skip" does nothing for pre_gateway_dispatch: expected {action="skip", reason=...}, {action="rewrite", text="..."} or {action="allow"}`},
		{hooknames.PreAPIRequest, tbl{"action": "modfy", "request": tbl{}}, `answer {"action":"modfy","request":{}} does nothing for pre_api_request: expected {action="modify", request={...}} or {action="respond", response={...}}, or nothing (an observer) (did you mean action="modify"?)`},
		{hooknames.PreAPIRequest, tbl{"action": "modify", "requst": tbl{}}, `answer {"action":"modify","requst":{}} does nothing for pre_api_request: expected {action="modify", request={...}} or {action="respond", response={...}}, or nothing (an observer) (did you mean "request" instead of "requst"?)`},

		// Nothing on purpose: nil, an empty table, false, a blank context, {action="allow"}.
		{hooknames.PreToolCall, nil, ""},
		{hooknames.PreToolCall, tbl{}, ""},
		{hooknames.PreToolCall, false, ""},
		{hooknames.PreToolCall, tbl{"action": "allow"}, ""},
		{hooknames.PreToolCall, tbl{"action": "allow", "decision": "block"}, ""},
		{hooknames.PreToolCall, tbl{"decision": "allow"}, ""},
		{hooknames.PreToolCall, []any{}, ""},
		{hooknames.PreToolCall, tbl{"context": " "}, ""},
		{hooknames.PreToolCall, tbl{"context": "c"}, ""},
		{hooknames.PreToolCall, tbl{"action": "allow", "context": "c"}, ""},
		{hooknames.PreLLMCall, "  ", ""},
		{hooknames.PreLLMCall, tbl{"context": ""}, ""},
		{hooknames.PreLLMCall, "\v", ""},                       // blank to Normalise too: no mistake
		{hooknames.PreLLMCall, tbl{"context": "\u00a0\f"}, ""}, // a no-break space is white space
		{hooknames.PreLLMCall, false, ""},
		{hooknames.TransformLLMOutput, "", ""},
		{hooknames.TransformLLMOutput, tbl{"response_text": ""}, ""},
		{hooknames.PreGatewayDispatch, tbl{}, ""},
		// Answers that do something, and observers, are never reported.
		{hooknames.PreToolCall, tbl{"action": "ask"}, ""},
		{hooknames.PreGatewayDispatch, tbl{"action": "rewrite"}, ""},
		{hooknames.PostToolCall, "anything", ""},
		{hooknames.PreAPIRequest, "anything", ""}, // what it returned as an observer
		{hooknames.PreAPIRequest, true, ""},
		{hooknames.OnSessionEnd, tbl{"action": "block"}, ""},
		{"my_host_hook", int64(1), ""},
	}
	for _, tt := range tests {
		if got := Problem(tt.event, tt.v, suggest.Closest); got != tt.want {
			t.Errorf("Problem(%s, %s)\n got %q\nwant %q", tt.event, show(tt.v), got, tt.want)
		}
	}
}

// TestProblemIsStable: an answer with two mistakes gets the same did-you-mean every time
// (the first key in sorted order), not whichever key a map happens to give first.
func TestProblemIsStable(t *testing.T) {
	t.Parallel()
	v := tbl{"mesage": "x", "actoin": "block", "reasn": "r"}
	want := Problem(hooknames.PreToolCall, v, suggest.Closest)
	if !strings.HasSuffix(want, `(did you mean "action" instead of "actoin"?)`) {
		t.Fatalf("Problem = %q", want)
	}
	for range 50 {
		if got := Problem(hooknames.PreToolCall, v, suggest.Closest); got != want {
			t.Fatalf("Problem says %q, then %q", want, got)
		}
	}
}

// TestAskProblem: an ask whose arguments are not a table still asks (about the call's own
// arguments: the safe side), and says what is wrong.
func TestAskProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event string
		v     any
		want  string
	}{
		{hooknames.PreToolCall, tbl{"action": "ask", "message": "ok?", "args": "ls"}, `the ask's args is "ls", not a table: the person is asked about the call's own arguments`},
		{hooknames.PreToolCall, tbl{"action": "ask", "args": int64(5)}, `the ask's args is 5, not a table: the person is asked about the call's own arguments`},
		{hooknames.PreToolCall, tbl{"hookSpecificOutput": tbl{"permissionDecision": "ask", "updatedInput": []any{"ls"}}}, `the ask's updatedInput is ["ls"], not a table: the person is asked about the call's own arguments`},
		{hooknames.PreToolCall, tbl{"action": "ask", "args": tbl{"command": "ls"}}, ""},
		{hooknames.PreToolCall, tbl{"action": "ask"}, ""},
		{hooknames.PreToolCall, tbl{"hookSpecificOutput": tbl{"permissionDecision": "ask"}}, ""},
		{hooknames.PreToolCall, tbl{"action": "approve", "args": "ls"}, ""}, // not an ask: Problem reports it
		{hooknames.PreToolCall, tbl{"action": "block", "args": "ls"}, ""},
		{hooknames.PostToolCall, tbl{"action": "ask", "args": "ls"}, ""},
	}
	for _, tt := range tests {
		if got := AskProblem(tt.event, tt.v); got != tt.want {
			t.Errorf("AskProblem(%s, %s)\n got %q\nwant %q", tt.event, show(tt.v), got, tt.want)
		}
	}
}
