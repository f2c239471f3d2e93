package consent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A target that pins files (a Python hook's .py files) is approved with each file's hash;
// an edited file is drift, which withdraws the approval in pinned mode only, and a file
// added since is drift too.
func TestCheckFilesTarget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
		reason string
	}{
		{"edited", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "util.py"), "X = 2\n", 0o644)
		}, "content changed"},
		{"added", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "extra.py"), "import os\n", 0o644)
		}, "other files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, home := testStore(t)
			dir := filepath.Join(home, "plugins", "audit")
			files := []string{filepath.Join(dir, "__init__.py"), filepath.Join(dir, "util.py")}
			writeFile(t, files[0], "def register(ctx): pass\n", 0o644)
			writeFile(t, files[1], "X = 1\n", 0o644)
			target := Target{Event: "python", Command: dir, Files: files}
			a, err := s.ApproveTarget(context.Background(), target)
			if err != nil || len(a.Scripts) != 2 || a.Scripts[1].SHA256 == "" {
				t.Fatalf("approval %+v, %v: want both files pinned", a, err)
			}
			if st := s.CheckTarget(target, ModePinned); !st.Approved || st.ContentDrift {
				t.Fatalf("unchanged: %+v, want approved", st)
			}
			tc.change(t, dir)
			if tc.name == "added" {
				target.Files = append(target.Files, filepath.Join(dir, "extra.py"))
			}
			st := s.CheckTarget(target, ModePinned)
			if st.Approved || !st.Drifted || !strings.Contains(st.Reason, tc.reason) || !strings.Contains(st.Reason, "hermesctl hooks allow python") {
				t.Fatalf("pinned: %+v, want not approved, drifted, saying %q and how to approve", st, tc.reason)
			}
			st = s.CheckTarget(target, ModeCommand)
			if !st.Approved || !st.ContentDrift {
				t.Fatalf("command mode: %+v, want approved with the drift reported", st)
			}
		})
	}
}
