package shell

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestMatches(t *testing.T) {
	tests := []struct {
		matcher string
		tool    string
		want    bool
	}{
		{"", "anything", true},
		{"terminal|file", "terminal", true},
		{"terminal|file", "file", true},
		{"terminal|file", "terminal2", false},
		{"terminal|file", "xfile", false},
		{"term", "terminal", false},
		{"a|ab", "ab", true},
		{"mcp__.*", "mcp__github__pr", true},
		{"file(", "file(", true}, // invalid regex: literal equality
		{"file(", "file", false},
		{`a)|(b`, "a", false}, // invalid: must not escape the anchors
		{`a)|(b`, "a)|(b", true},
		{`\Qa.b`, "a.b", true},
		{`\Qa.b`, "a.bc", false},
	}
	for _, tt := range tests {
		node := &yaml.Node{}
		text := "hooks:\n  pre_tool_call:\n    - command: x\n"
		if tt.matcher != "" {
			text += "      matcher: '" + tt.matcher + "'\n"
		}
		if err := yaml.Unmarshal([]byte(text), node); err != nil {
			t.Fatal(err)
		}
		hooks, _ := ParseHooks("c.yaml", node.Content[0].Content[1], testEvents)
		if len(hooks) != 1 {
			t.Fatalf("matcher %q: got %d hooks, want 1", tt.matcher, len(hooks))
		}
		if got := hooks[0].Matches(tt.tool); got != tt.want {
			t.Errorf("matcher %q, tool %q: got %v, want %v", tt.matcher, tt.tool, got, tt.want)
		}
		// A hand-built Hook behaves the same.
		hand := &Hook{Event: "pre_tool_call", Matcher: tt.matcher}
		if got := hand.Matches(tt.tool); got != tt.want {
			t.Errorf("hand-built matcher %q, tool %q: got %v, want %v", tt.matcher, tt.tool, got, tt.want)
		}
	}
}
