package luabind

import (
	"context"
	"errors"
	"github.com/hermes-hooks/hermes/hookspec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// started is a host function a hook calls to say it is running; the test waits on it.
func started(ch chan struct{}) map[string]hookspec.Func {
	return map[string]hookspec.Func{"started": func(context.Context, []any) (any, error) { ch <- struct{}{}; return nil, nil }}
}

const loopAfterStart = `function register(ctx)
  ctx.register_hook("loop", function() require("hermes").started() while true do end end)
end`

func wantKind(t *testing.T, err error, kind Kind, text string) {
	t.Helper()
	var le *Error
	if !errors.As(err, &le) || le.Kind != kind || !strings.Contains(le.Msg, text) {
		t.Fatalf("err = %v, want a %s error containing %q", err, kind, text)
	}
}

// The host cancelling its context, or its context passing its deadline, is the host's doing:
// canceled, never reported as the hook's own timeout.
func TestHostCancelIsNotATimeout(t *testing.T) {
	for _, how := range []string{"cancel", "deadline", "cause"} {
		ch := make(chan struct{}, 1)
		p := loadPlugin(t, loopAfterStart, Options{Timeout: time.Minute, HostFuncs: started(ch)})
		ctx, cancel := context.WithCancelCause(context.Background())
		if how == "deadline" {
			var stop context.CancelFunc
			ctx, stop = context.WithTimeout(ctx, 20*time.Millisecond)
			defer stop()
		}
		go func() {
			<-ch
			switch how {
			case "cancel":
				cancel(nil)
			case "cause":
				cancel(errors.New("user pressed stop"))
			}
		}()
		_, err := p.Call(ctx, 0, nil)
		cancel(nil)
		want := map[string]string{"cancel": "canceled by the host", "deadline": "deadline passed", "cause": "(user pressed stop)"}[how]
		wantKind(t, err, KindCanceled, want)
		if isTimeout(err) {
			t.Errorf("%s: a host cancellation is a timeout", how)
		}
	}
}

// A call that finds every state busy waits at most BusyTimeout, then fails as busy without
// running; the call that holds the state keeps its whole timeout.
func TestBusyHasItsOwnBound(t *testing.T) {
	ch := make(chan struct{}, 1)
	p := loadPlugin(t, loopAfterStart, Options{Timeout: time.Minute, BusyTimeout: 30 * time.Millisecond, HostFuncs: started(ch)})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := p.Call(ctx, 0, nil); first <- err }()
	<-ch
	_, err := p.Call(context.Background(), 0, nil)
	wantKind(t, err, KindBusy, "all 1 Lua state(s) of the hook stayed in use for 30ms")
	select {
	case err := <-first:
		t.Fatalf("the running call ended when another waited: %v", err)
	default:
	}
	cancel()
	wantKind(t, <-first, KindCanceled, "canceled by the host")

	// A host that gives up while waiting is canceled, not busy.
	go func() { _, err := p.Call(context.Background(), 0, nil); first <- err }()
	<-ch
	p.s.opts.BusyTimeout = time.Minute
	waitCtx, stop := context.WithCancel(context.Background())
	go func() { _, err := p.Call(waitCtx, 0, nil); first <- err }()
	stop()
	wantKind(t, <-first, KindCanceled, "while waiting for a free Lua state")
	p.Interrupt(errors.New("test over"))
	wantKind(t, <-first, KindCanceled, "(test over)")
}

// Interrupt stops a call stuck in a loop at once and says why; the state is usable again.
func TestInterrupt(t *testing.T) {
	ch := make(chan struct{}, 1)
	p := loadPlugin(t, loopAfterStart, Options{Timeout: time.Minute, HostFuncs: started(ch)})
	done := make(chan error, 1)
	go func() { _, err := p.Call(context.Background(), 0, nil); done <- err }()
	<-ch
	p.Interrupt(errors.New("hook engine closed"))
	wantKind(t, <-done, KindCanceled, "(hook engine closed)")
	p.Interrupt(errors.New("nothing runs")) // no call in flight: nothing to do
	go func() { _, err := p.Call(context.Background(), 0, nil); done <- err }()
	<-ch
	p.Interrupt(errors.New("again"))
	wantKind(t, <-done, KindCanceled, "(again)")
}

// Interrupt ends the calls waiting for a state too, not only the one running: none of them
// runs its callback. Calls made afterwards run as usual.
func TestInterruptEndsWaiters(t *testing.T) {
	ch := make(chan struct{}, 100)
	p := loadPlugin(t, loopAfterStart, Options{Timeout: time.Minute, BusyTimeout: time.Minute, States: 1, HostFuncs: started(ch)})
	const waiters = 63
	done := make(chan error, waiters+1)
	go func() { _, err := p.Call(context.Background(), 0, nil); done <- err }()
	<-ch
	for range waiters {
		go func() { _, err := p.Call(context.Background(), 0, nil); done <- err }()
	}
	for p.s.pool.waiters.Load() < waiters { // every call is waiting for the one state
		runtime.Gosched()
	}
	p.Interrupt(errors.New("hook engine closed"))
	for range waiters + 1 {
		select {
		case err := <-done:
			wantKind(t, err, KindCanceled, "(hook engine closed)")
		case <-ch:
			p.Interrupt(errors.New("test over"))
			t.Fatal("a waiting call ran its callback after the interrupt")
		}
	}
	go func() { _, err := p.Call(context.Background(), 0, nil); done <- err }()
	<-ch
	p.Interrupt(errors.New("again"))
	wantKind(t, <-done, KindCanceled, "(again)")
}
