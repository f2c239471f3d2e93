//go:build unix

package consent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestAllowlistRefusesFIFOsAndLinks: a named pipe or a symbolic link in place of the
// allowlist or of its lock file is refused by reading and by approving, with an error naming
// it, without blocking (an open of a FIFO waits for a writer for good), and what a link
// points to is left as it was.
func TestAllowlistRefusesFIFOsAndLinks(t *testing.T) {
	for _, suffix := range []string{"", ".lock"} {
		for _, kind := range []string{"fifo", "symlink"} {
			t.Run(FileName+suffix+"/"+kind, func(t *testing.T) {
				home := t.TempDir()
				path := filepath.Join(home, FileName+suffix)
				target := filepath.Join(home, "target")
				const content = `{"approvals": []}`
				if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				want := testutil.NotRegular(t, path, kind, target)
				s := Open(DefaultPath(home), nil)
				calls := map[string]func() error{
					"Approve": func() error { _, err := s.Approve(context.Background(), "pre_tool_call", "x.sh"); return err },
				}
				if suffix == "" {
					calls["Approvals"] = func() error { _, err := s.Approvals(); return err }
				}
				for name, call := range calls {
					done := make(chan error, 1)
					go func() { done <- call() }()
					select {
					case err := <-done:
						if err == nil || !strings.Contains(err.Error(), path+": "+want) {
							t.Errorf("%s: error %v, want %s: %s", name, err, path, want)
						}
					case <-time.After(20 * time.Second):
						t.Fatalf("%s did not return: it blocks opening a FIFO", name)
					}
				}
				got, err := os.ReadFile(target)
				if fi, _ := os.Stat(target); err != nil || string(got) != content || fi.Mode().Perm() != 0o644 {
					t.Errorf("the link's target holds %q (%v), want it untouched", got, err)
				}
			})
		}
	}
}
