package command

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// quoteWord single-quotes w for a POSIX shell.
func quoteWord(w string) string { return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'" }

func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"/bin/echo hi", `"a b" 'c d' e\ f`, "~/x ~ '~'", "hook.sh #c a#b", `"\d" "\"" '\'`,
		"run 'oops", `x \`, "a\\\nb", "", "\t\n", "\xff\xfe #", "python3 -u ~/h.py", "./~/x.sh",
		"bash -eo pipefail p d.sh", "python3 -Wd -c x y.py", "env -i -u A node -r x p", "perl -lne x", "ruby -W2 -Ilib p",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, hashes, err := split(line)
		r, rerr := Resolve(line, "/w")
		if err != nil || len(words) == 0 {
			if rerr == nil {
				t.Fatalf("Resolve(%q) = %+v, want an error", line, r)
			}
			return
		}
		if rerr != nil || len(r.Argv) != len(words) || len(hashes) > len(words) {
			t.Fatalf("Resolve(%q) = %+v, %v; words %q", line, r, rerr, words)
		}
		if r.Script != r.Argv[r.ScriptIndex] || (r.ScriptIndex == 0 && r.ScriptFile != r.Program) {
			t.Fatalf("script %q (index %d, file %q) disagrees with argv %q, program %q", r.Script, r.ScriptIndex, r.ScriptFile, r.Argv, r.Program)
		}
		checkFiles(t, line, r)
		// Quoting every word and splitting again gives the same words back.
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = quoteWord(w)
		}
		again, _, err := split(strings.Join(quoted, " "))
		if err != nil {
			t.Fatalf("re-split of %q: %v", quoted, err)
		}
		if diff := cmp.Diff(words, again); diff != "" {
			t.Fatalf("re-split differs (-first +second):\n%s", diff)
		}
	})
}

// FuzzResolveShell: any line is analysed without a panic; an unanalysable line has no
// commands and depends on the project; a command always has words.
func FuzzResolveShell(f *testing.F) {
	for _, s := range []string{
		"'~/x.sh'", `"$CLAUDE_PROJECT_DIR"/h.sh`, "a.sh; python3 b.py", "x $(y) `z`", "a && b || c | d & e\nf",
		"cat >/dev/null 2>&1 >&2; exit 2", "${CLAUDE_PROJECT_DIR", "~user/x", "a # b ; c", "2>x", "\\", "\"$\"", ">/dev/null",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		sh := ResolveShell(line, "/w")
		if sh.Unanalysable != "" && (sh.Commands != nil || !sh.ProjectDependent) {
			t.Fatalf("ResolveShell(%q) = %+v", line, sh)
		}
		for _, r := range sh.Commands {
			if len(r.Argv) == 0 || r.Script != r.Argv[r.ScriptIndex] {
				t.Fatalf("ResolveShell(%q): command %+v", line, r)
			}
			checkFiles(t, line, r)
		}
	})
}

// checkFiles holds what is pinned to what runs: one file is pinned alone; a command that runs
// no file pins none; and an interpreter's file is its first operand, never an argument after
// it: the word before it is an option, "--", "-", an option's argument, or the
// interpreter env runs.
func checkFiles(t *testing.T, line string, r Resolved) {
	t.Helper()
	switch r.Runs {
	case RunsFile:
		if len(r.Files) != 1 || r.Files[0] != r.ScriptFile {
			t.Fatalf("%q runs %q but pins %q", line, r.ScriptFile, r.Files)
		}
	case RunsNoFile:
		if r.Files != nil {
			t.Fatalf("%q runs no file but pins %q", line, r.Files)
		}
	case RunsUnknown:
		if len(slices.Compact(slices.Sorted(slices.Values(r.Files)))) != len(r.Files) {
			t.Fatalf("%q pins a file twice: %q", line, r.Files)
		}
	}
	i := r.ScriptIndex
	if r.Runs != RunsFile || r.ScriptIsProgram || i < 2 {
		return
	}
	option := func(w string) bool { return len(w) > 1 && (w[0] == '-' || w[0] == '+') || w == "-" }
	if prev := r.Argv[i-1]; !option(prev) && !slices.ContainsFunc(r.Argv[1:i-1], option) && interpreterOf(prev) == nil {
		t.Fatalf("%q: the file that runs, %q, follows the operand %q", line, r.Script, prev)
	}
}
