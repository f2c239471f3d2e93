//go:build unix

package store

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// childEnv names the home a child process of the store's tests opens, reads and closes.
const childEnv = "HERMES_STORE_TEST_CHILD_HOME"

// TestMain lets the test binary be the other process of TestOpenKeepsTheProcesssLocks.
func TestMain(m *testing.M) {
	if home := os.Getenv(childEnv); home != "" {
		b, err := Open(home, Config{})
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		if _, _, err := b.Get(context.Background(), "ns", "k"); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		b.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestOpenKeepsTheProcesssLocks: SQLite's locks on the database are POSIX locks, which a
// process loses on closing any descriptor of the file. While this process has the store
// open, another process that opens and closes it must not believe it was the database's
// last user: it would checkpoint and delete the write-ahead log under this process's writes.
func TestOpenKeepsTheProcesssLocks(t *testing.T) {
	home := t.TempDir()
	b, err := Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := b.Set(ctx, "ns", "k", []byte("1"), 0); err != nil {
		t.Fatal(err)
	}
	// A second store of the same home in this process (a reload whose store settings
	// changed), opened and closed while the first is in use.
	b2, err := Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	b2.Close()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+home)
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("the other process: %v\n%s", err, out)
	}
	wal := filepath.Join(StateDir(home), "store.db-wal")
	if _, err := os.Lstat(wal); err != nil {
		t.Fatalf("the other process removed the write-ahead log of a database this process has open: %v", err)
	}
}

// TestOpenWaitsForALockedDatabase: processes that open one database at once each check it
// and create its tables; one that finds it locked past the busy timeout waits for it, and
// does not call a good database unusable (its fix, "move it away", would lose the store).
func TestOpenWaitsForALockedDatabase(t *testing.T) {
	home := storeHome(t)
	unlock := holdLock(t, home, "BEGIN EXCLUSIVE")
	met := 0
	testHookOpenLocked = func() {
		if met++; met == 1 {
			unlock()
		}
	}
	defer func() { testHookOpenLocked = nil }()
	b, err := OpenWith(home, Config{}, Options{OpTimeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("open of a database locked for a while: %v", err)
	}
	b.Close()
	if met == 0 {
		t.Error("the open never met the lock")
	}
}

// An open that waits for a locked database ends with its caller's context: a hook's store
// call keeps to the hook's timeout.
func TestOpenWaitEndsWithTheCallersContext(t *testing.T) {
	home := storeHome(t)
	holdLock(t, home, "BEGIN EXCLUSIVE")
	ctx, cancel := context.WithCancel(context.Background())
	testHookOpenLocked = cancel // the caller gives up once the open waits
	defer func() { testHookOpenLocked = nil }()
	if b, err := OpenContext(ctx, home, Config{}, Options{OpTimeout: 10 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "is locked by another process") {
		if b != nil {
			b.Close()
		}
		t.Fatalf("open after its caller gave up: %v, want the lock's error", err)
	}
}

// storeHome is a home whose store exists (its database made and closed).
func storeHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	b, err := Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	return home
}

// holdLock opens the database of home on a connection of its own, as another process would,
// and begins a transaction with begin ("BEGIN IMMEDIATE": others cannot write; "BEGIN
// EXCLUSIVE": nor open it), held until the test ends or unlock is called.
func holdLock(t *testing.T, home, begin string) (unlock func()) {
	t.Helper()
	other, err := sql.Open("sqlite", "file:"+filepath.Join(StateDir(home), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	ctx := context.Background()
	lock, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() })
	if _, err := lock.ExecContext(ctx, begin); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := lock.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Error(err)
		}
	}
}
