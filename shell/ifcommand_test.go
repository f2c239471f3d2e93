//go:build unix

package shell

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
)

// rmForms are commands that run rm -rf however they are written: a guard behind
// if: "Bash(rm *)" must start for each of them.
var rmForms = []string{
	"sleep 0 & rm -rf x", "(rm -rf x)", "echo $(rm -rf x)", "echo `rm -rf x`", "rm\t-rf x", "FOO=1 rm -rf x",
	"sudo rm -rf x", `\rm -rf x`, "if true; then rm -rf x; fi", "ls\nrm -rf x", "true || rm -rf x", "ls |& rm -rf x",
	"sudo -u root rm -rf x", "env FOO=1 rm -rf x", "xargs rm -rf < list", "nice -n 5 rm -rf x", "timeout 5 rm -rf x",
	"exec rm -rf x", "command rm -rf x", "/bin/rm -rf x", `"rm" -rf x`, "r''m -rf x", `r\m -rf x`,
	"sh -c 'ls; rm -rf x'", `bash -c "rm -rf x"`, "eval 'rm -rf x'", "$X -rf x", `sudo "$CMD" -rf x`,
	"rm -rf x > /dev/null 2>&1", ">log rm -rf x", "while true; do rm -rf x; done", "! rm -rf x", "{ rm -rf x; }",
	"cat <<EOF\nrm -rf x\nEOF", "r{m,} -rf x", "/bin/r? -rf x", "ls; time rm -rf x", "trap 'rm -rf x' EXIT",
	`find . -exec rm -rf {} \;`, "alias x=rm; x -rf y", "X=$(rm -rf x)", "echo <(rm -rf x)", "rm -rf x # gone",
	"echo ${X:-$(rm -rf x)}", "case x in x) rm -rf x;; esac", "rm -rf 'x", `rm -rf x \`,
	"ls && \\\nrm -rf x", "FOO=$X rm -rf x", `$'\x72m' -rf x`, "&>/dev/null rm -rf x",
}

// Commands that run no rm: rules stay useful, and the guard does not start.
var notRm = []string{"ls -la", "echo rm", "git rm x", "ls $HOME", "cat *.go", "grep -E 'a|b' f", "[ -f x ] && ls",
	"find . -name x", "ls > /dev/null 2>&1", "cd /tmp && make", "npm test", "FOO=1 make", "sudo ls -la",
	"if [ -d x ]; then ls x; fi", `echo "$HOME" | wc -c`, "ls # rm -rf x", "rmdir x", "xargs ls < list"}

// A Bash(rm *) rule selects every form of rm -rf, read the way /bin/sh reads the line; what
// it cannot read selects the call.
func TestIfRuleReadsCommandsAsTheShell(t *testing.T) {
	t.Parallel()
	r, err := compileIf("Bash(rm *)")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range rmForms {
		if !r.match("Bash", map[string]any{"command": cmd}, "/p") {
			t.Errorf("Bash(rm *) does not select %q", cmd)
		}
	}
	for _, cmd := range notRm {
		if r.match("Bash", map[string]any{"command": cmd}, "/p") {
			t.Errorf("Bash(rm *) selects %q", cmd)
		}
	}
	// A line too long to read selects the call.
	if long := "ls " + strings.Repeat("a", maxIfCommand); !r.match("Bash", map[string]any{"command": long}, "/p") {
		t.Errorf("Bash(rm *) does not select a line of %d bytes", len(long))
	}
	// The legacy prefix form and patterns with several words read the same way.
	for _, c := range []struct {
		rule, cmd string
		want      bool
	}{
		{"Bash(git push:*)", "sudo git push --force", true},
		{"Bash(git push:*)", "FOO=1 git push", true},
		{"Bash(git push:*)", "git pull", false},
		{"Bash(git push --force*)", "git push $FLAGS", true},
		{"Bash(git push --force*)", "git push origin", false},
		{"Bash(npm run test:*)", "cd app && npm run test", true},
	} {
		r, err := compileIf(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.match("Bash", map[string]any{"command": c.cmd}, "/p"); got != c.want {
			t.Errorf("%s on %q = %v, want %v", c.rule, c.cmd, got, c.want)
		}
	}
}

// A guard behind if: "Bash(rm *)" starts, and blocks, for every form of rm -rf; it is not
// started for ls -la.
func TestIfGuardStartsForCompoundCommands(t *testing.T) {
	dir := t.TempDir()
	guard := script(t, dir, "guard.sh", `cat > /dev/null; echo "rm is not allowed" >&2; exit 2
`)
	var node yaml.Node
	if err := yaml.Unmarshal([]byte("pre_tool_call:\n  - {command: "+quote(guard)+", dialect: claude, matcher: Bash, if: \"Bash(rm *)\"}\n"), &node); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks(filepath.Join(dir, "config.yaml"), &node, hookspec.Names())
	if len(warns) != 0 || len(hooks) != 1 {
		t.Fatalf("hooks %v, warnings %v", hooks, warns)
	}
	ctx := context.Background()
	run := func(cmd string) Result {
		return hooks[0].Run(ctx, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": cmd}}, RunOptions{Cwd: dir})
	}
	for _, cmd := range rmForms {
		if res := run(cmd); res.Answer.Kind != hookspec.Block || res.Answer.Message != "rm is not allowed" {
			t.Errorf("%q: %+v, want the guard's block", cmd, res)
		}
	}
	if res := run("ls -la"); res.Status != hookspec.StatusSkipped {
		t.Errorf("ls -la: %+v, want skipped", res)
	}
}
