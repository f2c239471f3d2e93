package store

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// heldSenders is a Redis store whose senders stop before their first sends until release:
// with both held, the calls made meanwhile queue, and a sender then takes them together.
type heldSenders struct {
	*redisBackend
	redis  *testutil.Redis
	queued chan struct{} // one per call queued
	sends  chan int      // the live calls of each send
	gate   chan struct{}
	held   atomic.Int32
}

func newHeldSenders(t *testing.T, cfg Config) *heldSenders {
	t.Helper()
	r := testutil.StartRedis(t)
	cfg.URL = r.URL
	b, err := openRedis(cfg, Options{OpTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	h := &heldSenders{redisBackend: b, redis: r, queued: make(chan struct{}, 64), sends: make(chan int, 64), gate: make(chan struct{})}
	b.send.onQueued = func() { h.queued <- struct{}{} }
	b.send.onSend = func(n int) {
		h.sends <- n
		if h.held.Add(1) <= maxSenders {
			<-h.gate
		}
	}
	return h
}

// hold starts maxSenders calls (a Get: no script), each sent alone by a sender that stops
// before sending it; it returns what they return.
func (h *heldSenders) hold(t *testing.T) []<-chan error {
	t.Helper()
	var out []<-chan error
	for i := range maxSenders {
		done := make(chan error, 1)
		go func() {
			_, _, err := h.Get(context.Background(), "plugin:held", string(rune('a'+i)))
			done <- err
		}()
		<-h.queued
		if n := <-h.sends; n != 1 {
			t.Fatalf("held send %d takes %d calls, want 1", i, n)
		}
		out = append(out, done)
	}
	return out
}

// unheld makes call, sent alone by a sender that does not stop.
func (h *heldSenders) unheld(t *testing.T, call func() error) {
	t.Helper()
	h.held.Store(maxSenders)
	defer h.held.Store(0)
	if err := call(); err != nil {
		t.Fatal(err)
	}
	<-h.queued
	<-h.sends
}

// queue starts call in its own goroutine and returns once it is queued.
func (h *heldSenders) queue(call func() error) <-chan error {
	done := make(chan error, 1)
	go func() { done <- call() }()
	<-h.queued
	return done
}

// Calls that waited together go in one pipeline, and each keeps its own reply: a value that
// is not an integer and a write past the byte quota are those calls' errors only, and the
// others' writes happen in the order they came.
func TestPipelineKeepsEachCallsResult(t *testing.T) {
	ctx := context.Background()
	const ns = "plugin:mixed"
	h := newHeldSenders(t, Config{MaxBytes: 1000})
	plain := redis.NewClient(&redis.Options{Addr: h.redis.Addr})
	defer plain.Close()
	if err := plain.Set(ctx, h.k(ns, "text"), `"abc"`, 0).Err(); err != nil {
		t.Fatal(err)
	}
	// The scripts are loaded first: see TestPipelineAfterScriptFlush for a server without.
	h.unheld(t, func() error { _, err := h.Incr(ctx, "plugin:other", "n", 1, 0); return err })
	h.unheld(t, func() error { return h.Set(ctx, "plugin:other", "s", []byte("1"), 0) })
	held := h.hold(t)

	var m mixedBatch
	var results []<-chan error
	for _, call := range m.calls(ctx, h, ns) {
		results = append(results, h.queue(call))
	}
	close(h.gate)
	for _, r := range held {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	if n := <-h.sends; n != len(results) {
		t.Errorf("the calls that waited were sent %d together, want all %d", n, len(results))
	}
	errs := make([]error, len(results))
	for i, r := range results {
		errs[i] = <-r
	}
	m.check(t, ctx, h, ns, "pipeline", errs)
}

// A caller that stops waiting before a sender takes its call gets its context's error at
// once, and its call is never sent; the calls queued with it are.
func TestPipelineCancelledCallerNeverSent(t *testing.T) {
	ctx := context.Background()
	const ns = "plugin:cancel"
	h := newHeldSenders(t, Config{})
	held := h.hold(t)

	cctx, cancel := context.WithCancel(ctx)
	gone := h.queue(func() error { _, err := h.Incr(cctx, ns, "gone", 1, 0); return err })
	var kept int64
	stays := h.queue(func() (err error) { kept, err = h.Incr(ctx, ns, "kept", 1, 0); return })
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled caller got %v, want context.Canceled while the senders are held", err)
	}
	close(h.gate)
	for _, r := range held {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-stays; err != nil || kept != 1 {
		t.Errorf("the call queued with it: %d, %v; want 1", kept, err)
	}
	if n := <-h.sends; n != 1 {
		t.Errorf("the senders sent %d calls after the held ones, want 1: the cancelled call was sent", n)
	}
	if v, ok, err := h.Get(ctx, ns, "gone"); ok || err != nil {
		t.Errorf("the cancelled call's key holds %q (%v): it was sent", v, err)
	}
}

// Calls of one pipeline to a server that is gone fail each with its own error, and the
// circuit counts each once.
func TestPipelineFailuresCountOnce(t *testing.T) {
	h := newHeldSenders(t, Config{})
	br := newBreaker(h.redisBackend, h.name, Options{FailAfter: 100})
	held := h.hold(t)
	h.redis.Stop()
	const calls = 6
	var results []<-chan error
	for i := range calls {
		results = append(results, h.queue(func() error {
			_, err := br.Incr(context.Background(), "plugin:down", string(rune('a'+i)), 1, 0)
			return err
		}))
	}
	close(h.gate)
	for _, r := range held {
		<-r // sent alone to a server that is gone: their errors are not the breaker's
	}
	for i, r := range results {
		if err := <-r; err == nil || errors.Is(err, ErrUnavailable) {
			t.Errorf("call %d: %v, want the server's failure", i, err)
		}
	}
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.fails != calls {
		t.Errorf("the circuit counted %d failures for %d failed calls", br.fails, calls)
	}
}

// A server that lost its scripts (flushed, or restarted) answers a pipeline's scripts with
// NOSCRIPT without running them: they run again, loaded, in the order they came.
func TestPipelineAfterScriptFlush(t *testing.T) {
	ctx := context.Background()
	const ns = "plugin:flushed"
	h := newHeldSenders(t, Config{})
	plain := redis.NewClient(&redis.Options{Addr: h.redis.Addr})
	defer plain.Close()
	h.unheld(t, func() error { _, err := h.Incr(ctx, ns, "n", 0, 0); return err }) // the script is loaded once
	held := h.hold(t)
	if err := plain.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	sums := make([]int64, 3)
	var results []<-chan error
	for i := range sums {
		results = append(results, h.queue(func() (err error) { sums[i], err = h.Incr(ctx, ns, "n", int64(i+1), 0); return }))
	}
	close(h.gate)
	for _, r := range held {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	if n := <-h.sends; n != len(results) {
		t.Errorf("the calls that waited were sent %d together, want all %d", n, len(results))
	}
	for i, r := range results {
		if err := <-r; err != nil {
			t.Errorf("incr %d after the flush: %v", i, err)
		}
	}
	if want := []int64{1, 3, 6}; !slices.Equal(sums, want) {
		t.Errorf("the sums: %v, want %v", sums, want)
	}
}
