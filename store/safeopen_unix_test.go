//go:build unix

package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestOpenRefusesFIFOsAndLinks: a named pipe or a symbolic link at the database or at one of
// its journal files is refused with an error naming it, without blocking (an open of a FIFO
// waits for a writer for good) and without touching what a link points to: its mode stays,
// and an empty target is not turned into a database.
func TestOpenRefusesFIFOsAndLinks(t *testing.T) {
	for _, name := range []string{"store.db", "store.db-wal", "store.db-shm", "store.db-journal"} {
		for _, kind := range []string{"fifo", "symlink"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				home := t.TempDir()
				dir := StateDir(home)
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, name)
				target := filepath.Join(home, "target")
				if err := os.WriteFile(target, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				want := testutil.NotRegular(t, path, kind, target)
				done := make(chan error, 1)
				go func() {
					b, err := Open(home, Config{})
					if err == nil {
						b.Close()
					}
					done <- err
				}()
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), path+": "+want) {
						t.Errorf("Open: error %v, want %s: %s", err, path, want)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("Open did not return: it blocks opening a FIFO")
				}
				fi, err := os.Stat(target)
				if err != nil || fi.Mode().Perm() != 0o644 || fi.Size() != 0 {
					t.Errorf("the link's target: %v (%v), want it untouched: mode 0644, empty", fi, err)
				}
			})
		}
	}
}

// TestMovedByALink: a database file replaced by a link, even one to that same file, counts
// as moved, so that the engine opens the store again and the new open refuses the link.
func TestMovedByALink(t *testing.T) {
	home := t.TempDir()
	b, err := Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if Moved(b) {
		t.Fatal("Moved right after Open")
	}
	path := filepath.Join(StateDir(home), "store.db")
	aside := filepath.Join(home, "aside.db")
	if err := os.Rename(path, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(aside, path); err != nil {
		t.Fatal(err)
	}
	if !Moved(b) {
		t.Error("Moved = false with a link in place of the database")
	}
}
