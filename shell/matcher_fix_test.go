package shell

import (
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"gopkg.in/yaml.v3"
)

// TestMatcherNamesNoTool holds a matcher that names no tool (wrong case, the other
// dialect's name, spaces) to a warning whose suggested matcher selects the tool meant.
func TestMatcherNamesNoTool(t *testing.T) {
	tests := []struct {
		name, entry, want, fix string
		fixSelects             []string
	}{
		{"wrong case", "matcher: Terminal", `matcher "Terminal" names no tool, so the hook never fires`, "terminal", []string{"terminal"}},
		{"claude name", "matcher: Bash", `matcher "Bash" names no tool`, "terminal", []string{"terminal"}},
		{"one of two", "matcher: terminal|Write_File", `matcher "terminal|Write_File": "Write_File" names no tool`, "terminal|write_file", []string{"terminal", "write_file"}},
		{"misspelt", "matcher: termnal", `matcher "termnal" names no tool`, "terminal", []string{"terminal"}},
		{"spaces", "matcher: terminal | patch", `matcher "terminal | patch" has spaces or commas`, "terminal|patch", []string{"terminal", "patch"}},
		{"regexp in the wrong case", "matcher: Write_.*", `matcher "Write_.*" names no tool`, "write_file", []string{"write_file"}},
		{"claude: wrong case", "dialect: claude\n  matcher: bash", `matcher "bash" names no tool`, "Bash", []string{"Bash"}},
		{"claude: our name", "dialect: claude\n  matcher: terminal|Edit", `"terminal" names no tool`, "Bash|Edit", []string{"Bash", "Edit"}},
		{"claude: spaces and case", "dialect: claude\n  matcher: edit | write", `matcher "edit | write": "edit", "write" names no tool`, "Edit|Write", []string{"Edit", "Write"}},
		{"claude: spaces", "dialect: claude\n  matcher: Edit | Write", `matcher "Edit | Write" has spaces: it matches no tool name (write Edit|Write)`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "pre_tool_call:\n- " + tt.entry + "\n  command: /bin/true\n"
			var node yaml.Node
			if err := yaml.Unmarshal([]byte(src), &node); err != nil {
				t.Fatal(err)
			}
			hooks, warns := ParseHooks("config.yaml", &node, hookspec.Names())
			if len(hooks) != 1 || len(warns) != 1 {
				t.Fatalf("hooks %d, warnings %v; want 1 hook and 1 warning", len(hooks), warns)
			}
			w := warns[0].String()
			if !strings.Contains(w, tt.want) || (tt.fix != "" && !strings.HasSuffix(w, "did you mean '"+tt.fix+"'?")) {
				t.Errorf("warning %q, want %q and the fix %q", w, tt.want, tt.fix)
			}
			if len(hooks[0].Warnings) != 1 || hooks[0].Warnings[0] != warns[0] {
				t.Errorf("hook warnings = %v, want the entry's warning", hooks[0].Warnings)
			}
			missed := false
			for _, tool := range tt.fixSelects { // the suggestion is a matcher that matches
				fixed := &Hook{Event: hooknames.PreToolCall, Matcher: tt.fix, Dialect: hooks[0].Dialect}
				if hooks[0].Dialect == DialectClaude {
					tool = ourName(tool)
				}
				if !fixed.Matches(tool) {
					t.Errorf("the suggested matcher %q does not select %s", tt.fix, tool)
				}
				missed = missed || !hooks[0].Matches(tool)
			}
			if len(tt.fixSelects) > 0 && !missed {
				t.Errorf("the matcher as written selects %v: no warning needed", tt.fixSelects)
			}
		})
	}
}

// ourName is this project's name of Claude Code's tool c.
func ourName(c string) string {
	for ours, ct := range DefaultTools.ours {
		if ct.Name == c {
			return ours
		}
	}
	return c
}

// TestMatcherOfTheHostsOwnTool keeps quiet about matchers that name tools the table does not
// know and resemble none: a host has tools of its own.
func TestMatcherOfTheHostsOwnTool(t *testing.T) {
	for _, m := range []string{"browser_navigate", "terminal|browser_.*", "mcp__github__.*", "terminal", "Bash|Edit"} {
		dialect := ""
		if m == "Bash|Edit" {
			dialect = "\n  dialect: claude"
		}
		var node yaml.Node
		yaml.Unmarshal([]byte("pre_tool_call:\n- matcher: \""+m+"\""+dialect+"\n  command: /bin/true\n"), &node)
		if _, warns := ParseHooks("config.yaml", &node, hookspec.Names()); len(warns) != 0 {
			t.Errorf("matcher %q: warnings %v, want none", m, warns)
		}
	}
}
