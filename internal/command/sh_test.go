package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptsOf lists the script file of every command of sh.
func scriptsOf(sh Shell) []string {
	var out []string
	for _, r := range sh.Commands {
		out = append(out, r.ScriptFile)
	}
	return out
}

// TestResolveShell: a line run by /bin/sh -c is fingerprinted as the shell runs it.
func TestResolveShell(t *testing.T) {
	f := newFixture(t)
	h, w := f.home, f.work
	t.Setenv("CLAUDE_PROJECT_DIR", "/proj")
	tests := []struct {
		line      string
		scripts   []string
		dependent bool
	}{
		// A quoted ~ is not expanded by the shell: the script is the relative path.
		{"'~/.claude/hooks/guard.sh'", []string{w + "/~/.claude/hooks/guard.sh"}, true},
		{`"~/x.sh" --flag`, []string{w + "/~/x.sh"}, true},
		{`\~/x.sh`, []string{w + "/~/x.sh"}, true},
		{"~/x.sh", []string{h + "/x.sh"}, false},
		{"python3 ~/h.py ~", []string{h + "/h.py"}, false},
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/g.sh`, []string{"/proj/.claude/hooks/g.sh"}, true},
		{`python3 ${CLAUDE_PROJECT_DIR}/x.py`, []string{"/proj/x.py"}, true},
		{`$CLAUDE_PROJECT_DIR/x.sh`, []string{"/proj/x.sh"}, true},
		{"./a.sh; python3 b.py", []string{w + "/./a.sh", w + "/b.py"}, true},
		// A bare name is looked up on $PATH, as the shell looks it up.
		{"my-binary; python3 /p/b.py", []string{f.bin + "/my-binary", "/p/b.py"}, false},
		{"/p/a.sh && /p/b.sh || /p/c.sh | /p/d.sh & /p/e.sh\n/p/f.sh;", []string{"/p/a.sh", "/p/b.sh", "/p/c.sh", "/p/d.sh", "/p/e.sh", "/p/f.sh"}, false},
		{"/p/a.sh &&\n  /p/b.sh # a comment; /p/c.sh", []string{"/p/a.sh", "/p/b.sh"}, false},
		{`cat > /dev/null; echo '{"decision": "block"}' >&2; exit 2`, []string{"/bin/cat"}, false},
		{"my-binary 2>/dev/null", []string{f.bin + "/my-binary"}, false},
		{"", nil, false},
		{">/dev/null; /p/a.sh 2>&1", []string{"/p/a.sh"}, false},
	}
	if _, err := os.Stat("/bin/cat"); err != nil {
		t.Skip("no /bin/cat")
	}
	t.Setenv("PATH", f.bin+":/bin")
	for _, tt := range tests {
		sh := ResolveShell(tt.line, w)
		if sh.Unanalysable != "" {
			t.Errorf("ResolveShell(%q): unanalysable: %s", tt.line, sh.Unanalysable)
			continue
		}
		if got := scriptsOf(sh); strings.Join(got, "|") != strings.Join(tt.scripts, "|") || sh.ProjectDependent != tt.dependent {
			t.Errorf("ResolveShell(%q) = scripts %q dependent %v; want %q %v", tt.line, got, sh.ProjectDependent, tt.scripts, tt.dependent)
		}
	}
}

// TestResolveShellUnanalysable: what the analysis cannot see through makes the whole line
// unanalysable, and says what it was.
func TestResolveShellUnanalysable(t *testing.T) {
	newFixture(t)
	t.Setenv("CLAUDE_PROJECT_DIR", "/proj with space")
	for line, want := range map[string]string{
		"python3 $(cat which).py":      "$(...)",
		"python3 `cat which`.py":       "`...`",
		`python3 "$(cat which)".py`:    "$(...)",
		"python3 /p/*.py":              "glob (*)",
		"/p/h?.sh":                     "glob (?)",
		"$OTHER/x.sh":                  "$OTHER",
		`"$HOME"/x.sh`:                 "$HOME",
		"${OTHER:-/p}/x.sh":            "${OTHER",
		"$CLAUDE_PROJECT_DIR/x.sh":     "unquoted $CLAUDE_PROJECT_DIR",
		"$CLAUDE_PROJECT_DIRX/x.sh":    "$CLAUDE_PROJECT_DIRX",
		"python3 < /p/x.py":            "input redirection",
		"echo evil > /p/x.sh; /p/x.sh": "output redirection to a file (> /p/x.sh)",
		"cd /tmp && ./x.sh":            "builtin cd",
		". /p/x.sh":                    "builtin .",
		"eval /p/x.sh":                 "builtin eval",
		"PATH=. x.sh":                  "assignment PATH=.",
		"if true; then /p/x.sh; fi":    "keyword if",
		"(/p/x.sh)":                    "subshell",
		"{ /p/x.sh; }":                 "braces",
		"bash -c '/p/x.sh'":            "nested shell (bash -c)",
		"/usr/bin/env sh -ec /p/x.sh":  "nested shell (sh -ec)",
		"~root/x.sh":                   "~ followed by a name",
		"/p/a.sh;; /p/b.sh":            "operator ;;",
		"; /p/a.sh":                    "empty command",
		"/p/a.sh &&":                   "ends in an operator",
		"/p/a.sh 'oops":                "unterminated quote",
		"/p/a.sh &> /dev/null":         "&>",
	} {
		sh := ResolveShell(line, "/w")
		if !strings.Contains(sh.Unanalysable, want) || sh.Commands != nil || !sh.ProjectDependent {
			t.Errorf("ResolveShell(%q) = %+v; want unanalysable naming %q", line, sh, want)
		}
	}
	t.Setenv("PATH", "bin"+string(os.PathListSeparator)+"/usr/bin")
	if sh := ResolveShell("python3 /p/x.py", "/w"); !strings.Contains(sh.Unanalysable, "relative directory") {
		t.Errorf("relative $PATH entry: %+v", sh)
	}
}

// The project directory defaults to the working directory, as for the runner.
func TestResolveShellProjectDirDefault(t *testing.T) {
	f := newFixture(t)
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	sh := ResolveShell(`"$CLAUDE_PROJECT_DIR"/h.sh`, f.work)
	if got := scriptsOf(sh); len(got) != 1 || got[0] != filepath.Join(f.work, "h.sh") {
		t.Errorf("scripts %q, unanalysable %q", got, sh.Unanalysable)
	}
}
