//go:build unix

package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// hookTimeout is the time a hook's store call may take, as a hook's timeout gives it.
const hookTimeout = 5 * time.Second

// incr is one store call as a hook makes it: bounded by the hook's timeout, and timed.
func incr(b Backend) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	start := time.Now()
	_, err := b.Incr(ctx, "plugin:p", "n", 1, 0)
	return time.Since(start), err
}

// downFailsFast checks the circuit of b, whose server is down as down did it: the first
// failAfter calls fail with the backend's error, the next ones fail at once without reaching
// it; once up brought it back, the calls still fail at once until the rest is over, then one
// call tries again and succeeds, and the calls after it too. What ended each call is read
// from its error, not from how long it took (logged only): a busy machine is slow.
func downFailsFast(t *testing.T, b Backend, clk *testutil.Clock, failAfter int, wantErr string, up func()) {
	t.Helper()
	for i := range failAfter {
		took, err := incr(b)
		t.Logf("call %d with the backend down: %v, %v", i+1, took, err)
		if err == nil || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("call %d: %v, want the backend's error %q", i+1, err, wantErr)
		}
	}
	for i := range 3 {
		took, err := incr(b)
		t.Logf("call %d, circuit open: %v, %v", failAfter+i+1, took, err)
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "calls fail at once for 1m0s, then one call tries again") {
			t.Fatalf("call %d: %v, want a fast failure", failAfter+i+1, err)
		}
	}
	up()
	if _, err := incr(b); !errors.Is(err, ErrUnavailable) {
		t.Errorf("server back, rest not over: %v, want a fast failure", err)
	}
	clk.Add(time.Minute)
	for i := range 3 {
		took, err := incr(b)
		t.Logf("call %d after the rest: %v, %v", i+1, took, err)
		if err != nil {
			t.Fatalf("call %d after the rest, with the server back: %v", i+1, err)
		}
	}
}

// A Redis that was killed: after three refused connections, calls fail at once; the first
// call after the rest reaches the restarted server.
func TestRedisKilledFailsFast(t *testing.T) {
	r := testutil.StartRedis(t)
	b, err := OpenWith("", Config{URL: r.URL}, Options{FailAfter: 3, Backoff: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	clk := withClock(t, b)
	if _, err := incr(b); err != nil {
		t.Fatal(err)
	}
	r.Stop()
	downFailsFast(t, b, clk, 3, "connection refused", r.Start)
}

// A Redis stopped with SIGSTOP accepts connections and answers nothing: each call gives up
// at the operation timeout, not the hook's; after three, calls fail at once; after SIGCONT,
// the first call after the rest succeeds.
func TestRedisPausedFailsFast(t *testing.T) {
	r := testutil.StartRedis(t)
	const opTimeout = 300 * time.Millisecond
	b, err := OpenWith("", Config{URL: r.URL}, Options{FailAfter: 3, Backoff: time.Minute, OpTimeout: opTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	clk := withClock(t, b)
	if _, err := incr(b); err != nil {
		t.Fatal(err)
	}
	r.Pause()
	defer r.Resume() // so that the cleanup's kill is not held by a stopped process
	downFailsFast(t, b, clk, 3, "no answer within 300ms", r.Resume)
}

// BenchmarkRedisKilled is a store call while the Redis server is down (killed), from 16
// goroutines: "no-circuit" keeps trying the server at every call (the circuit never opens),
// "circuit" is the default, calls failing at once once it opened.
func BenchmarkRedisKilled(b *testing.B) {
	r := testutil.StartRedis(b)
	r.Stop()
	for _, tc := range []struct {
		name      string
		failAfter int
	}{{"no-circuit", 1 << 30}, {"circuit", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			be, err := OpenWith("", Config{URL: r.URL}, Options{FailAfter: tc.failAfter})
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := incr(be); err == nil {
						b.Error("incr succeeded with the server down")
						return
					}
				}
			})
		})
	}
}

// A call whose caller's deadline passes first, with the server paused, says the caller's
// deadline passed, not the operation timeout it did not wait for.
func TestRedisCallerDeadlineIsTheCallers(t *testing.T) {
	r := testutil.StartRedis(t)
	b, err := OpenWith("", Config{URL: r.URL}, Options{FailAfter: 100, OpTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := incr(b); err != nil {
		t.Fatal(err)
	}
	r.Pause()
	defer r.Resume()
	calls := map[string]func(ctx context.Context) error{
		"get":    func(ctx context.Context) error { _, _, err := b.Get(ctx, "plugin:p", "n"); return err },
		"incr":   func(ctx context.Context) error { _, err := b.Incr(ctx, "plugin:p", "n", 1, 0); return err },
		"keys":   func(ctx context.Context) error { _, err := b.Keys(ctx, "plugin:p", ""); return err },
		"update": func(ctx context.Context) error { _, err := b.Update(ctx, "plugin:p", "n", keepValue); return err },
	}
	for name, call := range calls {
		for range 20 { // the client's socket deadline and the context's timer race
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
			err := call(ctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "no answer within") {
				t.Fatalf("%s past the caller's deadline: %v, want the caller's deadline, not the operation timeout's", name, err)
			}
		}
	}
}

func keepValue(old []byte, found bool) ([]byte, bool, error) { return old, false, nil }
