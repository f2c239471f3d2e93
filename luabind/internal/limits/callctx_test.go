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
func live(c *Call) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live() && c.guard.live()
}

// A call under context.Background ends without the lock: it is no longer live for the
// watchdog, a timeout, the parent or Interrupt, and a cancellation that looked before it
// ended does not reach the next call.
func TestEndWithoutLock(t *testing.T) {
	c := NewCall(1 << 20)
	defer c.Close()
	bg := context.Background()
	c.Begin(bg, time.Hour)
	if !live(c) {
		t.Fatal("a call that began is not live")
	}
	gen := c.gen
	c.End()
	if live(c) {
		t.Fatal("a call that ended is still live")
	}
	c.mu.Lock()
	c.onDeadline()
	c.mu.Unlock()
	c.cancelGen(gen, context.Canceled)
	c.Interrupt(errors.New("closing"))
	c.Begin(bg, time.Hour)
	fresh(t, c, "after a timeout, the parent and Interrupt came for a call that had ended")
	c.End()

	c.Begin(bg, time.Hour)
	c.End()
	c.mu.Lock()
	c.cancelLocked(context.DeadlineExceeded) // looked while the call was live, cancels once it ended
	c.mu.Unlock()
	c.Begin(bg, time.Hour)
	fresh(t, c, "after a late cancellation of the call before")
	if !live(c) {
		t.Fatal("the next call is not live")
	}
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
		for now := MonoTime(0); ; now += MonoTime(time.Millisecond) {
			select {
			case <-stop:
				return
			default:
			}
			w.check(0, 0, now) // a timeout of 1ns expires every call it sees twice
			c.Interrupt(errors.New("closing"))
		}
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		for range 20000 {
			c.Begin(context.Background(), time.Nanosecond)
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
