package consent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func FuzzParseDocument(f *testing.F) {
	for _, seed := range []string{
		originalFixture, "", "  ", `{"approvals": [`, `[1,2]`, `{"approvals": "x"}`, "\x00\xff",
		`{"approvals": [{"event": "e", "command": "c", "x": [1, {"y": null}]}, {"event": 5}], "z": "<&>"}`,
		`{"approvals": [{"event": "e", "command": "c", "approved_at": 3, "script_sha256": null}]} trailing`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc := parseDocument(data)
		out, err := doc.encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		again := parseDocument(out)
		if len(again.problems) > 0 {
			t.Fatalf("rewritten file has problems %v:\n%s", again.problems, out)
		}
		if diff := cmp.Diff(doc.approvals(), again.approvals()); diff != "" {
			t.Fatalf("entries changed by a rewrite (-before +after):\n%s", diff)
		}
	})
}

func FuzzSplitWords(f *testing.F) {
	for _, seed := range []string{
		"python3 -u /p/hook.py", `a 'b c' "d \" e" f\ g`, "x\\\ny", `'open`, `"\$\\"`, "# x", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitWords(s)
		ScriptPath(s) // never panics, split or not
		if err != nil {
			return
		}
		// Quoting each word and splitting again gives the same words.
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = singleQuote(w)
		}
		again, err := splitWords(strings.Join(quoted, " "))
		if err != nil {
			t.Fatalf("re-split of %q: %v", quoted, err)
		}
		if len(words) == 0 && len(again) == 0 {
			return
		}
		if diff := cmp.Diff(words, again); diff != "" {
			t.Fatalf("re-split differs (-first +second):\n%s", diff)
		}
	})
}
