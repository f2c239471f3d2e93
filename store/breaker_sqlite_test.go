//go:build unix

package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// A SQLite store another process keeps locked: each call gives up at the busy timeout (the
// operation timeout), not the hook's; after three, calls fail at once; once the lock is
// gone, the first call after the rest succeeds.
func TestSQLiteLockedFailsFast(t *testing.T) {
	home := t.TempDir()
	const opTimeout = 300 * time.Millisecond
	b, err := OpenWith(home, Config{}, Options{FailAfter: 3, Backoff: time.Minute, OpTimeout: opTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	clk := withClock(t, b)
	if _, err := incr(b); err != nil {
		t.Fatal(err)
	}

	other, err := sql.Open("sqlite", "file:"+filepath.Join(StateDir(home), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	lock, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	unlock := func() {
		if _, err := lock.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
	downFailsFast(t, b, clk, 3, "database is locked", unlock)
}
