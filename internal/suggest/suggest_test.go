package suggest

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"pre_tool_call", "post_tool_call", "pre_llm_call", "agent:step", "agent:start"}
	tests := []struct{ in, want string }{
		{"pre_tools_call", "pre_tool_call"},
		{"PRE_TOOL_CALL", "pre_tool_call"},
		{"agent:stpe", "agent:step"},
		{"on_message", ""},
		{"x", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, names); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
