package hookspec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

func TestMerge(t *testing.T) {
	t.Parallel()
	block := func(msg string) map[string]any { return map[string]any{"action": "block", "message": msg} }
	tests := []struct {
		name    string
		event   string
		source  string
		answers []any
		want    any
		by      int
	}{
		{"first block wins", hooknames.PreToolCall, SourcePlugin, []any{nil, map[string]any{"action": "deny"}, block("b"), block("c")}, block("b"), 2},
		{"a block without message gets its source's default", hooknames.PreToolCall, SourceShell, []any{map[string]any{"decision": "block"}}, block("Blocked by shell hook."), 0},
		{"the canonical form decides", hooknames.PreToolCall, SourcePlugin, []any{map[string]any{"action": "allow", "decision": "block"}}, nil, -1},
		{"a string does not block", hooknames.PreToolCall, SourcePlugin, []any{"block"}, nil, -1},
		{"contexts join in order", hooknames.PreLLMCall, SourcePlugin, []any{"one", map[string]any{"context": "   "}, map[string]any{"context": "two"}}, map[string]any{"context": "one\n\ntwo"}, 0},
		{"an empty transform counts", hooknames.TransformToolResult, SourcePlugin, []any{"", "second"}, map[string]any{"text": ""}, 0},
		{"the result key counts", hooknames.TransformToolResult, SourcePlugin, []any{map[string]any{"result": "r"}}, map[string]any{"text": "r"}, 0},
		{"an empty llm output does not", hooknames.TransformLLMOutput, SourcePlugin, []any{"", "x"}, map[string]any{"text": "x"}, 1},
		{"skip", hooknames.PreGatewayDispatch, SourcePlugin, []any{map[string]any{"action": "drop"}, map[string]any{"action": "skip", "reason": "r"}}, map[string]any{"action": "skip", "reason": "r"}, 1},
		{"rewrite without text allows and ends the scan", hooknames.PreGatewayDispatch, SourcePlugin, []any{map[string]any{"action": "rewrite"}, map[string]any{"action": "skip"}}, map[string]any{"action": "allow"}, 0},
		{"nothing", hooknames.PreGatewayDispatch, SourcePlugin, nil, nil, -1},
		{"observers decide nothing", hooknames.PostToolCall, SourcePlugin, []any{block("x")}, nil, -1},
		{"block beats ask, approve and modify", hooknames.PreToolCall, SourcePlugin, []any{
			map[string]any{"action": "modify", "args": map[string]any{"c": "1"}}, map[string]any{"action": "approve"},
			map[string]any{"action": "ask", "message": "sure?"}, block("no")}, block("no"), 3},
		{"ask beats approve", hooknames.PreToolCall, SourcePlugin, []any{map[string]any{"action": "approve"}, map[string]any{"action": "ask", "message": "sure?"}},
			map[string]any{"action": "ask", "message": "sure?"}, 1},
		{"ask carries the modified args", hooknames.PreToolCall, SourcePlugin, []any{
			map[string]any{"action": "modify", "args": map[string]any{"c": "1"}}, map[string]any{"action": "ask", "message": "ok?"}},
			map[string]any{"action": "ask", "message": "ok?", "args": map[string]any{"c": "1"}}, 1},
		{"approve beats modify", hooknames.PreToolCall, SourcePlugin, []any{map[string]any{"action": "modify", "args": map[string]any{"c": "1"}}, map[string]any{"decision": "approve"}},
			map[string]any{"action": "approve", "args": map[string]any{"c": "1"}}, 1},
		{"modifications chain: the last one stands", hooknames.PreToolCall, SourcePlugin, []any{
			map[string]any{"action": "modify", "args": map[string]any{"c": "1"}}, map[string]any{"action": "modify", "args": map[string]any{"c": "2"}}},
			map[string]any{"action": "modify", "args": map[string]any{"c": "2"}}, 1},
		{"Claude Code's permission decisions", hooknames.PreToolCall, SourceShell, []any{
			map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": ".env is private"}}},
			block(".env is private"), 0},
		{"Claude Code's updatedInput alone modifies", hooknames.PreToolCall, SourceShell, []any{
			map[string]any{"hookSpecificOutput": map[string]any{"updatedInput": map[string]any{"command": "ls"}}}},
			map[string]any{"action": "modify", "args": map[string]any{"command": "ls"}}, 0},
		{"Claude Code's ask", hooknames.PreToolCall, SourceShell, []any{
			map[string]any{"hookSpecificOutput": map[string]any{"permissionDecision": "ask", "permissionDecisionReason": "deploy?"}}},
			map[string]any{"action": "ask", "message": "deploy?"}, 0},
		{"modify without args does nothing", hooknames.PreToolCall, SourcePlugin, []any{map[string]any{"action": "modify"}}, nil, -1},
		{"request modifications merge key by key, the later key winning", hooknames.PreAPIRequest, SourcePlugin, []any{
			map[string]any{"action": "modify", "request": map[string]any{"model": "m2", "system": "s"}}, nil,
			map[string]any{"action": "modify", "request": map[string]any{"model": "m3"}}},
			map[string]any{"action": "modify", "request": map[string]any{"model": "m3", "system": "s"}}, 2},
		{"the first respond decides over every modification", hooknames.PreAPIRequest, SourceShell, []any{
			map[string]any{"action": "modify", "request": map[string]any{"model": "m2"}},
			map[string]any{"action": "respond", "response": "offline"}, map[string]any{"action": "respond", "response": map[string]any{"content": "later"}}},
			map[string]any{"action": "respond", "response": map[string]any{"content": "offline"}}, 1},
		{"a request that is not a table modifies nothing", hooknames.PreAPIRequest, SourcePlugin, []any{map[string]any{"action": "modify", "request": "trim"}}, nil, -1},
		{"a respond without a response answers nothing", hooknames.PreAPIRequest, SourcePlugin, []any{map[string]any{"action": "respond"}}, nil, -1},
		{"an observer's old return values decide nothing", hooknames.PreAPIRequest, SourcePlugin, []any{true, "ok", int64(1)}, nil, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := make([]Result, len(tt.answers))
			for i, a := range tt.answers {
				rs[i] = Result{Source: tt.source, Answer: Normalise(tt.event, a)}
			}
			d := Merge(tt.event, rs)
			if diff := cmp.Diff(tt.want, d.Outcome()); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if d.By != tt.by {
				t.Errorf("decided by %d, want %d", d.By, tt.by)
			}
		})
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	if len(Names()) != 24 || !IsHook(hooknames.PreToolCall) || IsHook("agent:start") {
		t.Errorf("Names() = %v", Names())
	}
	Names()[0] = "changed"
	if Names()[0] != hooknames.PreToolCall {
		t.Error("Names returns the package's own slice")
	}
}

func TestStatusFailed(t *testing.T) {
	t.Parallel()
	for s, want := range map[Status]bool{StatusOK: false, StatusSkipped: false, StatusError: true, StatusTimeout: true, StatusCancelled: true, StatusBusy: true} {
		if s.Failed() != want {
			t.Errorf("%s.Failed() = %v", s, !want)
		}
	}
}

func TestSampleKwargsForEveryHook(t *testing.T) {
	t.Parallel()
	for _, h := range Names() {
		if SampleKwargs(h, "/w") == nil {
			t.Errorf("no sample kwargs for %s", h)
		}
	}
	if got := SampleKwargs(hooknames.PreToolCall, "")["args"].(map[string]any)["command"]; got != "echo hello" {
		t.Errorf("pre_tool_call command = %v", got)
	}
	if SampleKwargs("nope", "") != nil {
		t.Error("sample kwargs for an unknown hook")
	}
	if got := SampleContext("command:model")["command"]; got != "model" {
		t.Errorf("command:model context command = %v", got)
	}
}

func TestProblem(t *testing.T) {
	t.Parallel()
	closest := func(name string, cands []string) string {
		for _, c := range cands {
			if len(c) > 2 && len(name) > 2 && c[:3] == name[:3] {
				return c
			}
		}
		return ""
	}
	tests := []struct {
		event string
		v     any
		want  string // "" = no problem
	}{
		{hooknames.PreToolCall, nil, ""},
		{hooknames.PreToolCall, map[string]any{}, ""},
		{hooknames.PreToolCall, map[string]any{"action": "allow"}, ""},
		{hooknames.PreToolCall, map[string]any{"decision": "approve", "reason": "fine"}, ""},
		{hooknames.PreToolCall, map[string]any{"action": "block", "message": "x"}, ""},
		{hooknames.PreToolCall, map[string]any{"action": "blocked"}, `(did you mean action="block"?)`},
		{hooknames.PreToolCall, map[string]any{"action": "deny", "message": "x"}, `answer {"action":"deny","message":"x"} does nothing for pre_tool_call: expected {action="block", message="..."}`},
		{hooknames.PreToolCall, "block", "does nothing for pre_tool_call"},
		{hooknames.PreToolCall, map[string]any{"action": "approve", "args": int64(5)}, `answer {"action":"approve","args":5} does nothing`},
		{hooknames.PreToolCall, map[string]any{"action": "modify", "args": "rm -rf /"}, "does nothing for pre_tool_call"},
		{hooknames.PreToolCall, map[string]any{"hookSpecificOutput": map[string]any{"permissionDecision": "allow", "updatedInput": "ls"}}, "does nothing for pre_tool_call"},
		{hooknames.PreToolCall, false, ""},
		{hooknames.PreLLMCall, map[string]any{"ctx": "x"}, "does nothing for pre_llm_call"},
		{hooknames.PreLLMCall, map[string]any{"contxt": "x"}, `(did you mean "context" instead of "contxt"?)`},
		{hooknames.PreLLMCall, map[string]any{"context": "  "}, ""},
		{hooknames.PreLLMCall, 5, "expected a string, {context=\"...\"}, or {action=\"block\""},
		{hooknames.TransformToolResult, map[string]any{"text": "x"}, "does nothing for transform_tool_result"},
		{hooknames.TransformLLMOutput, "", ""},
		{hooknames.PostToolCall, "anything", ""},
	}
	for _, tt := range tests {
		got := Problem(tt.event, tt.v, closest)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("Problem(%s, %v) = %q, want %q", tt.event, tt.v, got, tt.want)
		}
	}
}
