package consent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/internal/command"
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

func FuzzScriptPath(f *testing.F) {
	for _, seed := range []string{
		"python3 -u /p/hook.py", `a 'b c' "d \" e" f\ g`, "x\\\ny", `'open`, `"\$\\"`, "# x", "", "'~/x.sh'",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		script := ScriptPath(s) // never panics, split or not
		r, err := command.Resolve(s, "")
		if err != nil {
			if script != "" {
				t.Fatalf("ScriptPath(%q) = %q for a command that does not split (%v)", s, script, err)
			}
			return
		}
		// The script is the word the runner passes, and the file checked is the one it uses.
		if script != r.Argv[r.ScriptIndex] {
			t.Fatalf("ScriptPath(%q) = %q, not the word %d of %q", s, script, r.ScriptIndex, r.Argv)
		}
		if _, file, first := resolveScript(s); file != r.ScriptFile || first != r.ScriptIsProgram {
			t.Fatalf("resolveScript(%q) = %q, %v; runner resolution %+v", s, file, first, r)
		}
	})
}
