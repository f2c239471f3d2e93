//go:build unix

package store

import (
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

	unlock := holdLock(t, home, "BEGIN IMMEDIATE")
	downFailsFast(t, b, clk, 3, "database is locked", unlock)
}
