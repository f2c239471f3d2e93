package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// heldStore is a SQLite store whose writer stops in its first batch until release: the
// calls made meanwhile queue, and the writer then takes them together.
type heldStore struct {
	*sqliteBackend
	queued  chan struct{} // one per call queued
	batches chan int      // the live calls of each batch the writer starts
	gate    chan struct{}
}

func newHeldStore(t *testing.T, maxBytes int64) *heldStore {
	t.Helper()
	b, err := openSQLite(context.Background(), t.TempDir(), maxBytes, DefaultOpTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	h := &heldStore{sqliteBackend: b, queued: make(chan struct{}, 64), batches: make(chan int, 64), gate: make(chan struct{})}
	var first atomic.Bool
	b.onQueued = func() { h.queued <- struct{}{} }
	b.onBatch = func(n int) {
		h.batches <- n
		if first.CompareAndSwap(false, true) {
			<-h.gate
		}
	}
	return h
}

// hold starts a call the writer takes alone and stops in; it returns what the call returns.
func (h *heldStore) hold(t *testing.T) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := h.Incr(context.Background(), "plugin:held", "first", 1, 0)
		done <- err
	}()
	<-h.queued
	if n := <-h.batches; n != 1 {
		t.Fatalf("the first batch holds %d calls, want 1", n)
	}
	return done
}

// queue starts call in its own goroutine and returns once it is queued; its error comes
// on the channel.
func (h *heldStore) queue(call func() error) <-chan error {
	done := make(chan error, 1)
	go func() { done <- call() }()
	<-h.queued
	return done
}

// Calls that waited together run in one transaction, each in its own savepoint: a call
// refused (a value that is not an integer, a write past the byte quota) gets its own error
// and leaves nothing behind, and the others of its batch commit with their own results, in
// the order they came, the quota's count included.
func TestGroupCommitKeepsEachCallsResult(t *testing.T) {
	ctx := context.Background()
	const ns = "plugin:mixed"
	h := newHeldStore(t, 1000)
	// Written directly: the writer is idle, and its first batch is the one it stops in.
	if _, err := h.db.ExecContext(ctx, `INSERT INTO kv (ns, key, value, version) VALUES (?, 'text', '"abc"', 1)`, ns); err != nil {
		t.Fatal(err)
	}
	start := h.hold(t)

	var m mixedBatch
	var results []<-chan error
	for _, call := range m.calls(ctx, h, ns) {
		results = append(results, h.queue(call))
	}
	close(h.gate)
	if err := <-start; err != nil {
		t.Fatal(err)
	}
	if n := <-h.batches; n != len(results) {
		t.Errorf("the calls that waited ran in batches of %d, want all %d in one", n, len(results))
	}
	errs := make([]error, len(results))
	for i, r := range results {
		errs[i] = <-r
	}
	m.check(t, ctx, h, ns, "batch", errs)
	if counted, actual := usedBytes(t, h.sqliteBackend, ns); counted != actual {
		t.Errorf("the byte count says %d, the keys hold %d", counted, actual)
	}
}

// A caller that stops waiting before the writer takes its call gets its context's error at
// once, and its call never runs; the calls queued with it run.
func TestGroupCommitCancelledCallerNeverRuns(t *testing.T) {
	ctx := context.Background()
	const ns = "plugin:cancel"
	h := newHeldStore(t, DefaultMaxBytes)
	start := h.hold(t)

	cctx, cancel := context.WithCancel(ctx)
	gone := h.queue(func() error { _, err := h.Incr(cctx, ns, "gone", 1, 0); return err })
	var kept int64
	stays := h.queue(func() (err error) { kept, err = h.Incr(ctx, ns, "kept", 1, 0); return })
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled caller got %v, want context.Canceled while the writer is held", err)
	}
	close(h.gate)
	if err := <-start; err != nil {
		t.Fatal(err)
	}
	if err := <-stays; err != nil || kept != 1 {
		t.Errorf("the call queued with it: %d, %v; want 1", kept, err)
	}
	if n := <-h.batches; n != 1 {
		t.Errorf("the writer ran %d calls after the held one, want 1: the cancelled call ran", n)
	}
	if v, ok, err := h.Get(ctx, ns, "gone"); ok || err != nil {
		t.Errorf("the cancelled call's key holds %q (%v): it ran", v, err)
	}
}

// Close lets the calls already queued finish; a call after Close fails, saying why.
func TestGroupCommitClose(t *testing.T) {
	ctx := context.Background()
	h := newHeldStore(t, DefaultMaxBytes)
	start := h.hold(t)
	var n int64
	queued := h.queue(func() (err error) { n, err = h.Incr(ctx, "plugin:close", "k", 1, 0); return })
	closed := make(chan error, 1)
	go func() { closed <- h.Close() }()
	close(h.gate)
	if err := <-start; err != nil {
		t.Fatal(err)
	}
	if err := <-queued; err != nil || n != 1 {
		t.Errorf("a call queued before Close: %d, %v; want 1", n, err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if _, err := h.Incr(ctx, "plugin:close", "k", 1, 0); !errors.Is(err, errStoreClosed) || !strings.Contains(err.Error(), "closed") {
		t.Errorf("a call after Close: %v", err)
	}
}

// A call that finds no writer runs on its caller's goroutine (the tests above hold it
// there while others queue). When another process holds the database, it waits no longer
// than its caller's context, a deadline or a cancellation (a hook's timeout reaches the
// store as one), and leaves nothing behind.
func TestCallAloneIsBounded(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	b, err := openSQLite(context.Background(), home, DefaultMaxBytes, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	other, err := sql.Open("sqlite", "file:"+filepath.Join(StateDir(home), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := b.Incr(ctx, "plugin:p", "n", 1, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer lock.ExecContext(ctx, "ROLLBACK")

	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = b.Incr(dctx, "plugin:p", "n", 1, 0)
	if took := time.Since(start); err == nil || took > time.Second {
		t.Errorf("a call alone with a 100ms deadline, the database locked for 2s: %v after %v, want its deadline's error well before the busy timeout", err, took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the caller's deadline", err)
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	time.AfterFunc(100*time.Millisecond, stop)
	start = time.Now()
	_, err = b.Incr(cctx, "plugin:p", "n", 1, 0)
	if took := time.Since(start); !errors.Is(err, context.Canceled) || took > time.Second {
		t.Errorf("a call alone cancelled after 100ms, the database locked for 2s: %v after %v, want context.Canceled well before the busy timeout", err, took)
	}
	if _, err := lock.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Incr(ctx, "plugin:p", "n", 1, 0); err != nil || n != 2 {
		t.Errorf("after the lock: %d, %v; want 2: the interrupted call left nothing behind", n, err)
	}
}

// A call alone that panics (a bug) leaves the store usable: the next call runs.
func TestCallAlonePanicLeavesTheStoreUsable(t *testing.T) {
	b, err := openSQLite(context.Background(), t.TempDir(), DefaultMaxBytes, DefaultOpTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	func() {
		defer func() { recover() }()
		b.enqueue(context.Background(), func(context.Context, querier) error { panic("a bug") })
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if n, err := b.Incr(ctx, "plugin:p", "n", 1, 0); err != nil || n != 1 {
		t.Errorf("the call after a panic: %d, %v; want 1", n, err)
	}
}
