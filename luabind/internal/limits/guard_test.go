package limits

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The sampler's growth check, driven one sample at a time (check is what each tick of the
// sampler runs): what the heap gains while the call waits in a host function is forgiven;
// what it gains outside a wait, past the budget, makes the state check what it holds.
func TestWatchdogSample(t *testing.T) {
	w := &watchdog{every: time.Hour, idle: time.Hour, guards: map[*Guard]struct{}{}}
	w.running.Store(true) // no sampler goroutine: the test takes the samples
	var keep [][]byte
	runtime.GC() // garbage of earlier tests, collected meanwhile, would offset the growth
	g := Guard{mu: new(sync.Mutex), check: func() {}}
	w.register(&g)
	w.watch(&g, 4<<20, 0, nil)
	var now MonoTime
	sample := func() {
		now++
		h := heapObjects()
		w.check(h, h, now) // a goal at the heap: no headroom on top of the budget
	}
	sample() // the first sample: the base
	release := g.Wait()
	keep = append(keep, make([]byte, 16<<20))
	sample()
	if g.checks.Load() != 0 {
		t.Fatal("asked for a check while the call was waiting in a host function")
	}
	release()
	sample()
	if g.checks.Load() != 0 {
		t.Fatal("asked for a check for growth that happened while waiting")
	}
	keep = append(keep, make([]byte, 16<<20))
	sample()
	if g.checks.Load() != 1 {
		t.Fatalf("%d checks after 16 MiB of growth over a 4 MiB budget, want 1", g.checks.Load())
	}
	w.unwatch(&g)
	runtime.KeepAlive(keep)
}

// With many calls at once and then none, the sampler goroutine stops.
func TestWatchdogStops(t *testing.T) {
	w := &watchdog{every: time.Millisecond, idle: 20 * time.Millisecond, guards: map[*Guard]struct{}{}}
	// Many calls at once, then none: the sampler must stop.
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			g := Guard{mu: new(sync.Mutex)}
			w.register(&g)
			defer w.unregister(&g)
			for range 200 {
				w.watch(&g, 1<<40, 0, nil)
				w.unwatch(&g)
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		running := w.running.Load()
		if w.busy() {
			t.Fatal("calls still watched after every call ended")
		}
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sampler goroutine kept running without calls")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{256 << 20: "256 MiB", 1 << 30: "1 GiB", 3 << 10: "3 KiB", 1000: "1000 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkArm is a call's whole bookkeeping: arming and disarming its context, deadline
// and memory guard.
func BenchmarkArm(b *testing.B) {
	c := NewCall(256 << 20)
	defer heapWatch.unregister(&c.guard)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c.Begin(ctx, time.Second)
		c.End()
	}
}
