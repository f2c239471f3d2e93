package command

import (
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
		}
	})
}
