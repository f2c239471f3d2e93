package hookspec

import (
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/suggest"
)

// TestCheckKwargs holds payloads written by hand to the kwargs hooks receive: another
// agent's key names ours, a wrong type names the one expected.
func TestCheckKwargs(t *testing.T) {
	tests := []struct {
		event   string
		payload map[string]any
		want    string // "" = no problem
	}{
		{hooknames.PreLLMCall, map[string]any{"prompt": "hi"}, `unknown key "prompt" for pre_llm_call, did you mean "user_message"?`},
		{hooknames.PreToolCall, map[string]any{"tool_input": map[string]any{}}, `unknown key "tool_input" for pre_tool_call, did you mean "args"?`},
		{hooknames.PreToolCall, map[string]any{"tool_nmae": "terminal"}, `unknown key "tool_nmae" for pre_tool_call, did you mean "tool_name"?`},
		{hooknames.PreToolCall, map[string]any{"zzz": 1}, `unknown key "zzz" for pre_tool_call: passed on as a kwarg of the host's own (keys: args, session_id, task_id, tool_call_id, tool_name)`},
		{hooknames.PreToolCall, map[string]any{"args": "rm -rf /"}, `"args" of pre_tool_call must be a table (a JSON object), got the string "rm -rf /"; e.g. "args": {"command": "rm -rf /"}`},
		{hooknames.PreToolCall, map[string]any{"args": nil}, `"args" of pre_tool_call must be a table (a JSON object), got null`},
		{hooknames.PostToolCall, map[string]any{"duration_ms": "42"}, `"duration_ms" of post_tool_call must be an integer, got the string "42"`},
		{hooknames.PreLLMCall, map[string]any{"is_first_turn": "yes"}, `"is_first_turn" of pre_llm_call must be true or false, got the string "yes"`},
		{hooknames.PreLLMCall, map[string]any{"conversation_history": map[string]any{}}, `"conversation_history" of pre_llm_call must be a list (a JSON array), got a table (a JSON object)`},
		{"command:model", map[string]any{"args": "gpt-5"}, ""},
		{"command:model", map[string]any{"comand": "x"}, `unknown key "comand" for command:model, did you mean "command"?`},
		{AgentStep, map[string]any{"iteration": 2, "tool_names": []any{"terminal"}}, ""},
		{hooknames.PreToolCall, map[string]any{"args": map[string]any{"command": "ls"}, "tool_name": "terminal"}, ""},
		{hooknames.OnSessionFinalize, map[string]any{"session_id": nil}, ""},
		{hooknames.PreGatewayDispatch, map[string]any{"gateway": "x"}, ""},
		{hooknames.PreGatewayDispatch, map[string]any{"gateway": nil, "session_store": nil}, ""},
		{"myhost:event", map[string]any{"anything": 1}, ""},
	}
	for _, tt := range tests {
		got := CheckKwargs(tt.event, tt.payload, suggest.Closest)
		switch {
		case tt.want == "" && len(got) != 0:
			t.Errorf("%s %v: problems %v, want none", tt.event, tt.payload, got)
		case tt.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0].Msg, tt.want)):
			t.Errorf("%s %v: problems %v, want %q", tt.event, tt.payload, got, tt.want)
		case tt.want != "" && got[0].Extra != strings.Contains(tt.want, "passed on"):
			t.Errorf("%s %v: Extra = %v", tt.event, tt.payload, got[0].Extra)
		}
	}
}

// TestCheckKwargsAcceptsTheSamples holds every sample payload to the check.
func TestCheckKwargsAcceptsTheSamples(t *testing.T) {
	for _, h := range Names() {
		if p := CheckKwargs(h, SampleKwargs(h, "/tmp"), suggest.Closest); len(p) != 0 {
			t.Errorf("%s: %v", h, p)
		}
	}
}

// TestCheckToolArgs holds a misspelt argument of our tools, which names the one meant, and
// what is passed on: a key like none, a host's own tool.
func TestCheckToolArgs(t *testing.T) {
	tests := []struct {
		tool string
		args map[string]any
		want string // "" = no problem
	}{
		{"terminal", map[string]any{"comand": "rm -rf /"}, `unknown argument "comand" of terminal in args, did you mean "command"?`},
		{"read_file", map[string]any{"pth": "/etc/passwd"}, `unknown argument "pth" of read_file in args, did you mean "path"?`},
		{"terminal", map[string]any{"command": "ls", "description": "list"}, ""},
		{"my_tool", map[string]any{"comand": "x"}, ""},
	}
	for _, tt := range tests {
		got := CheckToolArgs(tt.tool, tt.args, suggest.Closest)
		switch {
		case tt.want == "" && len(got) != 0:
			t.Errorf("%s %v: unexpected %q", tt.tool, tt.args, got[0].Msg)
		case tt.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0].Msg, tt.want)):
			t.Errorf("%s %v: got %v, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}
