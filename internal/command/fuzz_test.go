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
