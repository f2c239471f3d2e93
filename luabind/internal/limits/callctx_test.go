package limits

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fresh fails unless c is armed for a call that nothing cancelled.
func fresh(t *testing.T, c *Call, when string) {
	t.Helper()
	if err := c.Err(); err != nil {
		t.Fatalf("%s: Err = %v, want nil", when, err)
	}
	select {
	case <-c.Done():
		t.Fatalf("%s: Done is closed", when)
	default:
	}
	if c.Poll().Stopped() {
		t.Fatalf("%s: the interpreter's poll says stopped", when)
	}
}

// live reports whether c's call is live to the watchdog and to the cancellations.
func live(c *Call) bool { return c.guard.live() }

// The common call begins and ends without the lock: once ended it is no longer live for
// the watchdog, a timeout, the parent or Interrupt, and a cancellation of it that comes
// late, even one that looked while it ran, does not reach the next call.
func TestCallWithoutLock(t *testing.T) {
	c := NewCall(1 << 20)
	defer c.Close()
	bg := context.Background()
	for range 3 { // the first call takes the lock (a new timeout), the others not
		c.Begin(bg, time.Hour)
		if !live(c) {
			t.Fatal("a call that began is not live")
		}
		fresh(t, c, "a call that began")
		n := c.n
		c.End()
		if live(c) {
			t.Fatal("a call that ended is still live")
		}
		c.mu.Lock()
		c.guard.expire(n)                            // timed out by a sampler that saw it run
		c.cancelLocked(n, context.DeadlineExceeded)  // by a cancellation that read its word before End
		c.cancelLocked(0, errors.New("interrupted")) // by Interrupt
		c.mu.Unlock()
		c.cancelGen(n, context.Canceled)
		c.Interrupt(errors.New("closing"))
	}
	c.mu.Lock() // the common call never takes the lock (if it did, the test would hang here)
	c.Begin(bg, time.Hour)
	c.End()
	c.mu.Unlock()
	c.Begin(bg, time.Hour)
	fresh(t, c, "after timeouts, the parent and Interrupt came for calls that had ended")
	c.Interrupt(errors.New("closing"))
	if !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("Interrupt of a live call: Err = %v", c.Err())
	}
	c.End()
	c.Begin(bg, time.Hour)
	fresh(t, c, "after the interrupted call")
	c.End()
}

// A call under a parent of its own ends under the lock: the parent is forgotten and its
// cancellation, once the call ended, reaches no later call.
func TestEndForgetsTheParent(t *testing.T) {
	c := NewCall(1 << 20)
	defer c.Close()
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	c.Begin(parent, time.Hour)
	if c.Value(key{}) != "v" {
		t.Fatal("the call does not see its parent's values")
	}
	c.End()
	if c.Value(key{}) != nil || live(c) {
		t.Fatal("the parent outlived its call")
	}
	cancel()
	c.Begin(context.Background(), time.Hour)
	fresh(t, c, "after the last call's parent was cancelled")
	c.End()
}

// Calls that end without the lock, while Interrupt, the watchdog's samples and timeouts
// come from other goroutines (for -race): a call is cancelled only while live, and once
// they stop the next call starts afresh.
func TestEndRacesCancellations(t *testing.T) {
	c := NewCall(1 << 20)
	defer c.Close()
	w := &watchdog{every: time.Millisecond, idle: time.Second, guards: map[*Guard]struct{}{&c.guard: {}}}
	stop := make(chan struct{})
	done := make(chan struct{}, 2)
	go func() {
		defer func() { done <- struct{}{} }()
		for now := MonoTime(0); ; now += MonoTime(time.Millisecond) { // a timeout of 1ns expires every call it sees twice
			select {
			case <-stop:
				return
			default:
			}
			w.check(0, 0, now)
			c.Interrupt(errors.New("closing"))
		}
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		for i := range 20000 {
			c.Begin(context.Background(), time.Nanosecond)
			if i%100 == 0 {
				select {
				case <-c.Done(): // cancelled while it runs: Err says so
					if c.Err() == nil {
						t.Error("Done is closed and Err is nil")
					}
				default:
				}
			}
			c.End()
		}
	}()
	<-done
	close(stop)
	<-done
	c.Begin(context.Background(), time.Hour)
	fresh(t, c, "once the cancellations stopped")
	c.End()
}
