package manifest

import (
	"errors"
	"strings"
	"testing"
)

// TestYAMLErrorLine holds the line of an invalid YAML file to the line of the mistake:
// yaml.v3 names the line where the enclosing block starts, counted from 0.
func TestYAMLErrorLine(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
	}{
		{"key after a list item", "hooks:\n  - command: x\n  pre: y\n", 3},
		{"key after a list item, deeper", "a: 1\nhooks:\n  pre_tool_call:\n    - command: x\n    matcher: y\n", 5},
		{"unclosed flow list on line 1", "plugins: {disabled: [a}\n", 1},
		{"unclosed flow list before a key", "hooks: [a\nb: c\n", 1},
		{"bad character on line 1", "hooks_auto_accept: @x\n", 1},
		{"tab indentation", "hooks:\n\tpre_tool_call:\n", 2},
		{"unterminated quote", "hooks:\n  pre_tool_call: \"abc\n", 2},
		{"mapping in a plain value", "a: b\nhooks: x: y\n", 2},
		{"no final newline", "a: 1\nb:\n  - x\n  c: d", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("config.yaml", []byte(tt.src))
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("Parse = %v, want an *Error", err)
			}
			if me.Line != tt.line || !strings.HasPrefix(me.Msg, "invalid YAML: ") {
				t.Errorf("got %s, want line %d", me, tt.line)
			}
		})
	}
}

// TestYAMLErrorLineLongFile checks the search on a file too long to scan line by line.
func TestYAMLErrorLineLongFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("hooks:\n")
	for range 500 {
		b.WriteString("  - command: x\n")
	}
	b.WriteString("  oops: y\n")
	for range 500 {
		b.WriteString("z: 1\n")
	}
	_, err := Parse("config.yaml", []byte(b.String()))
	var me *Error
	if !errors.As(err, &me) || me.Line != 502 {
		t.Errorf("got %v, want line 502", err)
	}
}
