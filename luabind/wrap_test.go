package luabind

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// next hands the callback's argument to the host and the host's result or error back:
// the result as next's return value, the error raised with the host's message as it is
// (no position of the hook's), catchable with pcall.
func TestWrapNextCrossesBothWays(t *testing.T) {
	src := `function register(ctx)
  ctx.register_hook("w", function(kw, next)
    if kw.mode == "pass" then return next({n = kw.n + 1}) end
    if kw.mode == "catch" then
      local ok, err = pcall(next, {n = 0})
      return {ok = ok, err = err}
    end
    if kw.mode == "none" then return next() end
    return next({n = -1}) -- raises
  end)
end`
	p := loadPlugin(t, src, Options{})
	var got []any
	n := func(_ context.Context, arg any) (any, error) {
		got = append(got, arg)
		if m, ok := arg.(map[string]any); ok && m["n"] != int64(2) {
			return nil, errors.New("tool failed: no such file")
		}
		return map[string]any{"echo": arg}, nil
	}
	cases := []struct {
		mode    string
		want    string
		wantErr string
	}{
		{"pass", "map[echo:map[n:2]]", ""},
		{"catch", "map[err:tool failed: no such file ok:false]", ""},
		{"none", "map[]", ""}, // next() passes nil: the host answers {echo=nil}
		{"raise", "", "tool failed: no such file"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			v, _, err := p.CallWrap(context.Background(), 0, map[string]any{"mode": c.mode, "n": 1}, n, false)
			if c.wantErr != "" {
				wantKind(t, err, KindRuntime, c.wantErr)
				return
			}
			if err != nil || fmt.Sprint(v) != c.want {
				t.Fatalf("got %v, %v; want %s", v, err, c.want)
			}
		})
	}
}

// The time a callback spends waiting in next is not its own: a wrapped call that takes
// longer than the hook's timeout does not time the hook out, and Timing.Run leaves it out;
// Lua running past the timeout after next returned is still stopped.
func TestWrapNextTimeIsNotTheHooks(t *testing.T) {
	const timeout = 60 * time.Millisecond
	src := `function register(ctx)
  ctx.register_hook("w", function(kw, next)
    local r = next()
    if kw.spin then while true do end end
    return r
  end)
end`
	p := loadPlugin(t, src, Options{Timeout: timeout})
	slow := func(ctx context.Context, _ any) (any, error) {
		select { // the wrapped call's own duration, five times the hook's timeout
		case <-time.After(5 * timeout):
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	v, tm, err := p.CallWrap(context.Background(), 0, map[string]any{}, slow, true)
	if err != nil || v != "done" {
		t.Fatalf("slow wrapped call: %v, %v; want done (time in next is not the hook's)", v, err)
	}
	if tm.Run >= 5*timeout {
		t.Errorf("Run = %v includes the time in next (>= %v)", tm.Run, 5*timeout)
	}
	_, _, err = p.CallWrap(context.Background(), 0, map[string]any{"spin": true}, slow, false)
	if !isTimeout(err) {
		t.Fatalf("spinning after next: %v; want the hook's own timeout", err)
	}
}

// The host's context bounds the whole call: cancelling it while the callback waits in next
// reaches the wrapped call, and the callback ends cancelled.
func TestWrapNextObeysTheHostContext(t *testing.T) {
	src := `function register(ctx)
  ctx.register_hook("w", function(kw, next) return next() end)
end`
	p := loadPlugin(t, src, Options{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	entered := make(chan struct{})
	go func() { <-entered; cancel() }()
	_, _, err := p.CallWrap(ctx, 0, map[string]any{}, func(ctx context.Context, _ any) (any, error) {
		close(entered)
		<-ctx.Done()
		return nil, ctx.Err()
	}, false)
	if err == nil {
		t.Fatal("call cancelled in next returned no error")
	}
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindCanceled && le.Kind != KindRuntime {
		t.Fatalf("err = %v; want the cancellation", err)
	}
}

// A callback waiting in next does not hold the hook's only state: another call of the
// hook runs meanwhile, in an extra state.
func TestWrapNextDoesNotHoldTheState(t *testing.T) {
	src := `function register(ctx)
  ctx.register_hook("w", function(kw, next) return next() end)
end`
	p := loadPlugin(t, src, Options{Timeout: time.Minute, BusyTimeout: 20 * time.Second, States: 1, MaxStates: 2})
	g := newGate(t)
	first := make(chan error, 1)
	go func() {
		_, _, err := p.CallWrap(context.Background(), 0, map[string]any{}, func(ctx context.Context, _ any) (any, error) {
			return "first", g.block(ctx)
		}, false)
		first <- err
	}()
	<-g.entered
	v, _, err := p.CallWrap(context.Background(), 0, map[string]any{}, func(context.Context, any) (any, error) { return "second", nil }, false)
	if err != nil || v != "second" {
		t.Fatalf("second call while the first waits in next: %v, %v; want it to run", v, err)
	}
	g.open()
	if err := <-first; err != nil {
		t.Fatalf("first call: %v", err)
	}
}

// A host's next that panics is the call's error, raised in Lua: the state lives on.
func TestWrapNextPanicIsAnError(t *testing.T) {
	src := `function register(ctx)
  ctx.register_hook("w", function(kw, next)
    local ok, err = pcall(next)
    return err
  end)
end`
	p := loadPlugin(t, src, Options{})
	v, _, err := p.CallWrap(context.Background(), 0, map[string]any{}, func(context.Context, any) (any, error) { panic("boom") }, false)
	if err != nil || v != "panic in the wrapped call: boom" {
		t.Fatalf("got %v, %v", v, err)
	}
}

// A next kept in a global after its call returned cannot run that call again later.
func TestWrapNextDiesWithItsCall(t *testing.T) {
	src := `local kept
function register(ctx)
  ctx.register_hook("w", function(kw, next)
    if kw.keep then kept = next; return next() end
    local ok, err = pcall(kept)
    return err
  end)
end`
	p := loadPlugin(t, src, Options{})
	runs := 0
	n := func(context.Context, any) (any, error) { runs++; return "ran", nil }
	if _, _, err := p.CallWrap(context.Background(), 0, map[string]any{"keep": true}, n, false); err != nil {
		t.Fatal(err)
	}
	v, _, err := p.CallWrap(context.Background(), 0, map[string]any{}, n, false)
	if err != nil || runs != 1 {
		t.Fatalf("the kept next: %v, %v, %d runs; want it refused", v, err, runs)
	}
	if s, _ := v.(string); !strings.Contains(s, "next called after its wrap call returned") {
		t.Errorf("error %q", v)
	}
}
