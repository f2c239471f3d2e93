package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// withClock gives b (a breaker) a fake clock.
func withClock(t *testing.T, b Backend) *testutil.Clock {
	t.Helper()
	c, ok := b.(*breaker)
	if !ok {
		t.Fatalf("backend %T has no circuit", b)
	}
	clk := testutil.NewClock(time.Unix(1000, 0))
	c.now = clk.Now
	return clk
}

// fakeBackend answers Get with err, after waiting on gate when it is not nil.
type fakeBackend struct {
	Backend
	mu    sync.Mutex
	err   error
	calls int
	gate  chan struct{}
	in    chan struct{} // a call arrived, when not nil
}

func (f *fakeBackend) Where() string { return "fake" }

func (f *fakeBackend) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	f.mu.Lock()
	f.calls++
	err, gate, in := f.err, f.gate, f.in
	f.mu.Unlock()
	if in != nil {
		in <- struct{}{}
	}
	if gate != nil {
		<-gate
	}
	if err != nil {
		return nil, false, err
	}
	return []byte("1"), true, nil
}

func (f *fakeBackend) set(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

func (f *fakeBackend) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

var errRefused = fmt.Errorf("store: fake: dial tcp 127.0.0.1:1: %w", errConnRefused)

var errConnRefused = &netErr{"connect: connection refused"}

// netErr is a net.Error that is not a timeout.
type netErr struct{ s string }

func (e *netErr) Error() string   { return e.s }
func (e *netErr) Timeout() bool   { return false }
func (e *netErr) Temporary() bool { return false }

// The rules of the circuit, on a backend that fails as the test says: failures in a row
// open it, answers (even errors such as a value that is not an integer) do not count, a
// cancelled call says nothing; after the rest one call alone tries again, and its failure
// starts the same rest again.
func TestBreakerRules(t *testing.T) {
	ctx := context.Background()
	f := &fakeBackend{err: errRefused}
	b := newBreaker(f, "redis://fake:1/0", Options{FailAfter: 3, Backoff: time.Second})
	clk := withClock(t, b)
	get := func() error { _, _, err := b.Get(ctx, "ns", "k"); return err }

	// Two failures, an answer, two failures: never three in a row.
	get()
	get()
	f.set(fmt.Errorf("%w: \"x\"", ErrNotInteger))
	get()
	f.set(errRefused)
	get()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	b.Get(cctx, "ns", "k") // cancelled: no verdict
	get()
	if err := get(); errors.Is(err, ErrUnavailable) {
		t.Fatalf("open after two failures in a row: %v", err)
	}
	// That was the third in a row: the circuit is open.
	n := f.count()
	err := get()
	want := "store: redis://fake:1/0 is failing (3 errors in a row, last: dial tcp 127.0.0.1:1: connect: connection refused); calls fail at once for 1s, then one call tries again"
	if !errors.Is(err, ErrUnavailable) || err.Error() != want {
		t.Fatalf("open circuit: got %v, want %q", err, want)
	}
	if f.count() != n {
		t.Errorf("a call reached the backend while the circuit was open")
	}

	// After the rest, one call tries again; while it runs, the others fail at once.
	clk.Add(time.Second)
	f.mu.Lock()
	f.gate, f.in = make(chan struct{}), make(chan struct{})
	f.mu.Unlock()
	probe := make(chan error)
	go func() { probe <- get() }()
	<-f.in
	if err := get(); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "while one call tries again") {
		t.Errorf("during the probe: %v, want a fast failure", err)
	}
	close(f.gate)
	if err := <-probe; errors.Is(err, ErrUnavailable) || err == nil {
		t.Errorf("probe: %v, want the backend's error", err)
	}
	f.mu.Lock()
	f.gate, f.in = nil, nil
	f.mu.Unlock()
	// It failed: the same rest again.
	if err := get(); !strings.Contains(fmt.Sprint(err), "4 errors in a row") || !strings.Contains(fmt.Sprint(err), "for 1s") {
		t.Errorf("after a failed probe: %v, want 4 errors and a rest of 1s", err)
	}
	clk.Add(500 * time.Millisecond)
	if err := get(); !strings.Contains(fmt.Sprint(err), "for 500ms") {
		t.Errorf("half way: %v, want 500ms left", err)
	}
	// The backend is back: the next probe closes the circuit.
	f.set(nil)
	clk.Add(500 * time.Millisecond)
	for i := range 5 {
		if err := get(); err != nil {
			t.Fatalf("call %d after the backend is back: %v", i, err)
		}
	}
	// Closed again with the first rest: three failures open it for 1s.
	f.set(errRefused)
	get()
	get()
	get()
	if err := get(); !strings.Contains(fmt.Sprint(err), "for 1s") {
		t.Errorf("opened again: %v, want the first rest of 1s", err)
	}
}

// However long the outage, one call probes every DefaultBackoff and no rest is longer:
// calls reach the backend within DefaultBackoff of its return, after a minute's outage as
// after a second's.
func TestBreakerRecoversPromptlyAfterALongOutage(t *testing.T) {
	ctx := context.Background()
	f := &fakeBackend{err: errRefused}
	b := newBreaker(f, "x", Options{FailAfter: 1})
	clk := withClock(t, b)
	b.Get(ctx, "ns", "k")
	for elapsed := time.Duration(0); elapsed < 10*time.Minute; elapsed += DefaultBackoff {
		clk.Add(DefaultBackoff)
		if _, _, err := b.Get(ctx, "ns", "k"); errors.Is(err, ErrUnavailable) { // the probe, failing
			t.Fatalf("after %s: no probe after a rest of %s: %v", elapsed, DefaultBackoff, err)
		}
		_, _, err := b.Get(ctx, "ns", "k")
		if want := fmt.Sprintf("for %s,", DefaultBackoff); !strings.Contains(fmt.Sprint(err), want) {
			t.Fatalf("after %s: got %v, want %q", elapsed, err, want)
		}
	}
	f.set(nil) // the backend is back, just after a failed probe: the worst case
	clk.Add(DefaultBackoff)
	if _, _, err := b.Get(ctx, "ns", "k"); err != nil {
		t.Fatalf("a call %s after the backend came back: %v", DefaultBackoff, err)
	}
	if _, _, err := b.Get(ctx, "ns", "k"); err != nil {
		t.Fatalf("the call after the probe: %v", err)
	}
}

func (f *fakeBackend) Update(ctx context.Context, ns, key string, fn func([]byte, bool) ([]byte, bool, error)) ([]byte, error) {
	f.mu.Lock()
	err := f.err
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	v, _, err := fn(nil, false)
	return v, err
}

// An error of Update's function is the hook's, not the backend's; a failing Update is.
func TestBreakerUpdate(t *testing.T) {
	ctx := context.Background()
	f := &fakeBackend{}
	b := newBreaker(f, "x", Options{FailAfter: 2})
	fnErr := func([]byte, bool) ([]byte, bool, error) { return nil, false, context.DeadlineExceeded }
	for range 3 {
		if _, err := b.Update(ctx, "ns", "k", fnErr); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("update: %v, want the function's error", err)
		}
	}
	f.set(errRefused)
	b.Update(ctx, "ns", "k", fnErr)
	b.Update(ctx, "ns", "k", fnErr)
	if _, err := b.Update(ctx, "ns", "k", fnErr); !errors.Is(err, ErrUnavailable) {
		t.Errorf("after two failing updates: %v, want the circuit open", err)
	}
}
