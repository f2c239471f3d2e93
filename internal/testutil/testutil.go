// Package testutil holds helpers shared by the tests of several packages: a home directory
// built from a map of files, a goroutine-safe buffer for log output, a host function that
// records what hooks saw, and hostile input with a check that it is handled within bounds.
package testutil

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Home creates a temporary directory holding files (relative path -> content).
func Home(tb testing.TB, files map[string]string) string {
	tb.Helper()
	home := tb.TempDir()
	WriteFiles(tb, home, files)
	return home
}

// WriteFiles writes files (relative path -> content) under dir, creating directories.
func WriteFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// Merge returns one map holding the files of all ms (later ones win).
func Merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// Buffer is a bytes.Buffer safe for concurrent writes, for log output in tests. WaitFor
// waits for a text to be written, woken by every write.
type Buffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed, and replaced, by every write
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// WaitFor returns once the buffer contains want, or fails tb after limit.
func (b *Buffer) WaitFor(tb testing.TB, want string, limit time.Duration) {
	tb.Helper()
	if !b.Await(want, limit) {
		tb.Fatalf("never written: %q; got:\n%s", want, b.String())
	}
}

// Await reports whether the buffer contains want, waiting up to limit for it.
func (b *Buffer) Await(want string, limit time.Duration) bool {
	timeout := time.After(limit)
	for {
		b.mu.Lock()
		if strings.Contains(b.buf.String(), want) {
			b.mu.Unlock()
			return true
		}
		if b.written == nil {
			b.written = make(chan struct{})
		}
		written := b.written
		b.mu.Unlock()
		select {
		case <-written:
		case <-timeout:
			return false
		}
	}
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Recorder backs a host function record(name, n) that keeps, per name, the numbers hooks
// passed it, in the order they came; a zero (an event without a seq) is not kept.
type Recorder struct {
	mu   sync.Mutex
	seen map[string][]int64
}

// Func is the host function, for engine.Options.HostFuncs and gateway.Options.HostFuncs.
func (r *Recorder) Func() func(context.Context, []any) (any, error) {
	return func(_ context.Context, args []any) (any, error) {
		name, _ := args[0].(string)
		var n int64
		switch v := args[1].(type) {
		case int64:
			n = v
		case float64:
			n = int64(v)
		}
		if n == 0 {
			return nil, nil
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.seen == nil {
			r.seen = map[string][]int64{}
		}
		r.seen[name] = append(r.seen[name], n)
		return nil, nil
	}
}

// Get returns a copy of the numbers recorded under name.
func (r *Recorder) Get(name string) []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.seen[name]...)
}

// BillionLaughs returns YAML mapping key to nine levels of nine aliases each: 9^9 "lol"s
// once every alias is expanded, from under a kilobyte of text. Under key, l9 is the anchor
// of the largest level.
func BillionLaughs(key string) string {
	var b strings.Builder
	b.WriteString(key + ":\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		prev := "*l" + string(rune('0'+i-1))
		b.WriteString("  l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [" +
			strings.TrimSuffix(strings.Repeat(prev+", ", 9), ", ") + "]\n")
	}
	return b.String()
}

// Bounded runs f and fails tb when it takes more than limit or allocates more than maxAlloc
// bytes (a hang or a blow-up, not a benchmark: the limits are generous).
func Bounded(tb testing.TB, limit time.Duration, maxAlloc uint64, f func()) {
	tb.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	if elapsed > limit || alloc > maxAlloc {
		tb.Errorf("took %v and allocated %d bytes, want under %v and %d", elapsed, alloc, limit, maxAlloc)
	}
	tb.Logf("took %v, allocated %d KiB", elapsed.Round(time.Microsecond), alloc>>10)
}

// Clock is a fake time for code that takes a now func (circuit breakers): it moves only when
// the test says. Safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock is a Clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
