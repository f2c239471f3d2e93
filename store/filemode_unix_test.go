//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The database and its journal files are readable by their owner only, when created and
// when they were more open.
func TestDatabaseFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	home := t.TempDir()
	b, err := Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := view(b, "plugin:p").Set(ctx, "k", 1, 0); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(StateDir(home), "store.db")
	check := func(when string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: %s has mode %v, want 0600", when, filepath.Base(p), fi.Mode().Perm())
			}
		}
	}
	check("created")
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Chmod(p, 0o644)
	}
	b2, err := Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	check("opened again")
	b.Close()
}
