//go:build unix

package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
)

// Claude Code's permission-rule syntax, as `if` conditions: which calls each rule selects.
func TestIfRules(t *testing.T) {
	t.Parallel()
	const project = "/work/app"
	home, _ := os.UserHomeDir()
	cases := []struct {
		rule  string
		tool  string
		input map[string]any
		want  bool
	}{
		{"Bash", "Bash", map[string]any{"command": "ls"}, true},
		{"Bash", "Read", map[string]any{"file_path": "x"}, false},
		{"Bash(*)", "Bash", map[string]any{"command": "anything"}, true},
		{"Bash(rm *)", "Bash", map[string]any{"command": "rm -rf build"}, true},
		{"Bash(rm *)", "Bash", map[string]any{"command": "ls && rm -rf build"}, true}, // a compound line: each command
		{"Bash(rm *)", "Bash", map[string]any{"command": "echo rm"}, false},
		{"Bash(rm *)", "Bash", map[string]any{"command": "git rm x"}, false},
		{"Bash(git push*)", "Bash", map[string]any{"command": "git push --force origin main"}, true},
		{"Bash(npm run test:*)", "Bash", map[string]any{"command": "npm run test -- -u"}, true},
		{"Bash(npm run test:*)", "Bash", map[string]any{"command": "npm run testing"}, false},
		{"Bash(npm run test:*)", "Bash", map[string]any{"command": "npm run test"}, true},
		{"Bash(git status)", "Bash", map[string]any{"command": "git status"}, true},
		{"Bash(git status)", "Bash", map[string]any{"command": "git status -s"}, false},
		{"Edit(*.go)", "Edit", map[string]any{"file_path": "/work/app/cmd/main.go"}, true},
		{"Edit(*.go)", "Edit", map[string]any{"file_path": "/work/app/README.md"}, false},
		{"Edit(src/**/*.ts)", "Edit", map[string]any{"file_path": "src/a/b/c.ts"}, true},
		{"Edit(src/**/*.ts)", "Edit", map[string]any{"file_path": "/work/app/src/c.ts"}, true},
		{"Edit(src/**/*.ts)", "Edit", map[string]any{"file_path": "/work/app/lib/c.ts"}, false},
		{"Read(.env)", "Read", map[string]any{"file_path": "/work/app/config/.env"}, true},
		{"Read(./.env)", "Read", map[string]any{"file_path": "/work/app/config/.env"}, false},
		{"Read(./.env)", "Read", map[string]any{"file_path": ".env"}, true},
		{"Read(/secrets/**)", "Read", map[string]any{"file_path": "/work/app/secrets/k/key.pem"}, true},
		{"Read(//etc/**)", "Read", map[string]any{"file_path": "/etc/passwd"}, true},
		{"Read(//etc/**)", "Read", map[string]any{"file_path": "/work/app/etc/x"}, false},
		{"Read(~/.ssh/**)", "Read", map[string]any{"file_path": filepath.Join(home, ".ssh", "id_rsa")}, true},
		{"Write(*.env*)", "Write", map[string]any{"file_path": "/work/app/.env.local"}, true},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://docs.example.com/a"}, true},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://example.org/"}, false},
		{"mcp__github", "mcp__github__create_issue", nil, true},
		{"mcp__github__*", "mcp__github__create_issue", nil, true},
		{"mcp__github", "mcp__gitlab__x", nil, false},
		{"mcp__github__create_issue", "mcp__github__create_issue", nil, true},
	}
	for _, c := range cases {
		r, err := compileIf(c.rule)
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		if got := r.match(c.tool, c.input, project); got != c.want {
			t.Errorf("%s on %s %v = %v, want %v", c.rule, c.tool, c.input, got, c.want)
		}
	}
}

// A condition this engine cannot evaluate is a load warning, and the hook keeps firing for
// every call its matcher selects: the guard is never dropped.
func TestIfCannotBeEvaluated(t *testing.T) {
	t.Parallel()
	for _, rule := range []string{"Task(reviewer)", "Agent(reviewer)", "WebSearch(query:x)", "Bash(rm", "not a rule", "mcp__x(arg)"} {
		if _, err := compileIf(rule); err == nil {
			t.Errorf("%s: compiled", rule)
		}
	}
	var node yaml.Node
	src := `pre_tool_call:
  - {command: "g", dialect: claude, matcher: Bash, if: "Task(reviewer)"}
  - {command: "h", dialect: claude, if: "Bash(rm *)"}
pre_llm_call:
  - {command: "p", dialect: claude, if: "Bash(rm *)"}
  - {command: "q", if: "Bash(rm *)"}
`
	if err := yaml.Unmarshal([]byte(src), &node); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", &node, hookspec.Names())
	var msgs []string
	for _, w := range warns {
		msgs = append(msgs, w.String())
	}
	for _, want := range []string{
		`config.yaml:2: hooks.pre_tool_call[0]: if "Task(reviewer)": this engine cannot evaluate a Task(...) condition`,
		"the hook fires for every call its matcher selects, so the guard is kept",
		`config.yaml:5: hooks.pre_llm_call[0]: if "Bash(rm *)" is only evaluated on tool events`,
		`config.yaml:6: hooks.pre_llm_call[1]: if is ignored: it belongs to hooks written for another agent`,
	} {
		if !strings.Contains(strings.Join(msgs, "\n"), want) {
			t.Errorf("no warning %q in:\n%s", want, strings.Join(msgs, "\n"))
		}
	}
	call := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}}
	if !hooks[0].meets(call, "/p") {
		t.Error("a hook whose condition cannot be evaluated does not fire")
	}
	if hooks[1].meets(call, "/p") || !hooks[1].meets(map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm x"}}, "/p") {
		t.Error("Bash(rm *) does not select rm alone")
	}
}

// A hook written with a relative path runs in its project (project_dir), so it works when the
// host runs elsewhere; $CLAUDE_PROJECT_DIR and the payload's cwd are the project. A hook whose
// if condition does not select the call is not spawned.
func TestRelativeGuardRunsInItsProject(t *testing.T) {
	project := t.TempDir()
	t.Setenv("CLAUDE_PROJECT_DIR", "") // restored after the test; unset for it
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	if err := os.MkdirAll(filepath.Join(project, ".claude", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	script(t, filepath.Join(project, ".claude", "hooks"), "guard.sh", `in=$(cat)
echo "$in" > seen.json
[ "$CLAUDE_PROJECT_DIR" = "$(pwd)" ] || { echo "wrong dir" >&2; exit 1; }
echo "rm is not allowed here" >&2; exit 2
`)
	var node yaml.Node
	src := "pre_tool_call:\n  - {command: .claude/hooks/guard.sh, dialect: claude, matcher: Bash, if: \"Bash(rm *)\", project_dir: " + project + "}\n"
	if err := yaml.Unmarshal([]byte(src), &node); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks(filepath.Join(t.TempDir(), "config.yaml"), &node, hookspec.Names())
	if len(warns) != 0 || len(hooks) != 1 {
		t.Fatalf("hooks %v, warnings %v", hooks, warns)
	}
	h := hooks[0]
	if h.WorkDir() != project {
		t.Errorf("WorkDir() = %q, want %q", h.WorkDir(), project)
	}
	ctx := context.Background()
	res := h.Run(ctx, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf src"}}, RunOptions{})
	if res.Answer.Kind != hookspec.Block || res.Answer.Message != "rm is not allowed here" {
		t.Fatalf("rm from another directory: %+v", res)
	}
	seen, err := os.ReadFile(filepath.Join(project, "seen.json"))
	if err != nil || !strings.Contains(string(seen), `"cwd":"`+project+`"`) {
		t.Errorf("payload %s (%v), want cwd %s", seen, err, project)
	}
	res = h.Run(ctx, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}}, RunOptions{})
	if res.Status != hookspec.StatusSkipped {
		t.Errorf("ls: %+v, want skipped (its if condition does not select it)", res)
	}
}

// The args exec form runs the program without a shell, the plugin variables set and
// expanded.
func TestExecFormAndPluginVars(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "") // restored after the test; unset for it
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	root, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
	script(t, root, "hook.sh", `cat >/dev/null
printf '%s|%s|%s|%s' "$1" "$2" "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PLUGIN_DATA" >&2
[ -d "$CLAUDE_PLUGIN_DATA" ] || exit 1
exit 2
`)
	var node yaml.Node
	src := "pre_tool_call:\n  - {command: /bin/sh, args: [\"${CLAUDE_PLUGIN_ROOT}/hook.sh\", \"a b;c\", \"$CLAUDE_PLUGIN_DATA\"], dialect: claude, plugin_root: " + root + ", plugin_data: " + data + "}\n"
	if err := yaml.Unmarshal([]byte(src), &node); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", &node, hookspec.Names())
	if len(warns) != 0 || len(hooks) != 1 {
		t.Fatalf("hooks %v, warnings %v", hooks, warns)
	}
	if want := `/bin/sh '${CLAUDE_PLUGIN_ROOT}/hook.sh' 'a b;c' '$CLAUDE_PLUGIN_DATA'`; hooks[0].Command != want {
		t.Errorf("Command = %q, want %q", hooks[0].Command, want)
	}
	hooks[0].Timeout = 10 * time.Second
	res := hooks[0].Run(context.Background(), map[string]any{"tool_name": "terminal", "args": map[string]any{}}, RunOptions{})
	if want := "a b;c|" + data + "|" + root + "|" + data; res.Answer.Message != want {
		t.Errorf("block message %q (%+v), want %q", res.Answer.Message, res, want)
	}
}

// A hook written for another agent in a project's own home (<project>/.hermes) runs in that
// project when its entry names none; in the user's home, in the host's working directory.
func TestHomeProject(t *testing.T) {
	userHome, _ := os.UserHomeDir()
	for _, c := range []struct{ config, want string }{
		{"/work/app/.hermes/config.yaml", "/work/app"},
		{filepath.Join(userHome, ".hermes", "config.yaml"), ""},
		{"/srv/hermes-home/config.yaml", ""},
		{"config.yaml", ""},
	} {
		if got := homeProject(c.config); got != c.want {
			t.Errorf("homeProject(%s) = %q, want %q", c.config, got, c.want)
		}
	}
	var node yaml.Node
	if err := yaml.Unmarshal([]byte("pre_tool_call:\n  - {command: x, dialect: claude}\n  - {command: y, dialect: claude, project_dir: /elsewhere}\n  - {command: z}\n"), &node); err != nil {
		t.Fatal(err)
	}
	hooks, _ := ParseHooks("/work/app/.hermes/config.yaml", &node, hookspec.Names())
	if hooks[0].ProjectDir != "/work/app" || hooks[1].ProjectDir != "/elsewhere" || hooks[2].ProjectDir != "" {
		t.Errorf("project dirs %q %q %q", hooks[0].ProjectDir, hooks[1].ProjectDir, hooks[2].ProjectDir)
	}
}
