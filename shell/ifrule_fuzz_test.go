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

// FuzzIfCompound: a command a Bash rule selects, read as the shell reads it, is still selected however a shell line wraps
// it (in the background, a subshell, a substitution, after sudo, an assignment or a keyword,
// with its program escaped), and a line that cannot be read selects the call.
func FuzzIfCompound(f *testing.F) {
	for _, s := range []string{"rm -rf x", "rm\t-rf x", "ls; rm -rf /", "rm 'x", "rm x # y", "ls", "sudo rm -rf x"} {
		f.Add("rm", s)
	}
	f.Add("git", "git push --force")
	f.Fuzz(func(t *testing.T, word, command string) {
		if word == "" || strings.Trim(word, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" || word[0] == '-' {
			return
		}
		if sel, why := commandSelects(command, [][]int{globAtoms(word + " *")}, 0); why != "" && !sel {
			t.Fatalf("%q cannot be read (%s) and is not selected", command, why)
		}
		for _, rule := range []string{"Bash(" + word + " *)", "Bash(" + word + ":*)"} {
			r, err := compileIf(rule)
			if err != nil {
				t.Fatalf("%s: %v", rule, err)
			}
			if sel, why := commandSelects(command, r.globs, 0); !sel || why != "" { // read, and selected
				continue
			}
			wraps := []string{"sleep 0 & " + command, "(" + command + ")", "echo $(" + command + ")", "echo `" + command + "`",
				"FOO=1 " + command, "sudo " + command, "if true; then " + command + "\nfi", "true || " + command, "ls\n" + command}
			if strings.HasPrefix(command, word+" ") {
				wraps = append(wraps, `\`+command, strings.Replace(command, " ", "\t", 1))
			}
			for _, w := range wraps {
				if !r.matchCommand(w) {
					t.Fatalf("%s selects %q but not %q", rule, command, w)
				}
			}
		}
	})
}
