package shell

import (
	"strings"
	"testing"
)

// FuzzIfRule: any text is compiled or refused without a panic; a compiled rule is matched
// against any command and path without a panic, and its tool's calls are the only ones it
// can select.
func FuzzIfRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(rm *)", "Bash(npm run test:*)", "Edit(src/**/*.ts)", "Read(//etc/**)", "Read(~/.ssh/*)",
		"WebFetch(domain:example.com)", "mcp__github", "mcp__github__*", "Task(x)", "Bash(", "Edit([)", "Read(**/*[a-)"} {
		f.Add(s, "rm -rf / && ls", "src/a/b.ts")
	}
	f.Fuzz(func(t *testing.T, rule, command, path string) {
		r, err := compileIf(rule)
		if err != nil {
			return
		}
		input := map[string]any{"command": command, "file_path": path, "notebook_path": path, "path": path, "url": command}
		for _, tool := range []string{"Bash", "Read", "Edit", "Write", "Grep", "WebFetch", "mcp__github__x", r.tool} {
			if r.match(tool, input, "/project") && tool != r.tool && !(r.server && strings.HasPrefix(tool, r.tool+"__")) {
				t.Fatalf("%q selected a call of %s", rule, tool)
			}
		}
	})
}
