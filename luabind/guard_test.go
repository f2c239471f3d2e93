package luabind

import (
	"context"
	"github.com/hermes-hooks/hermes/hookspec"
	"runtime"
	"testing"
	"time"
)

// TestGrowthBetweenWaitsIsCharged: a call that allocates, then sleeps, again and again, is
// charged for what it allocated, however often the sampler finds it asleep.
func TestGrowthBetweenWaitsIsCharged(t *testing.T) {
	src := `local t = {}
for i = 1, 200 do
  t[i] = string.rep("x", 2^20) .. i
  require("time").sleep(0.002)
end
return #t`
	runtime.GC()
	p := loadPlugin(t, runawayPlugin, Options{Timeout: 30 * time.Second, MemoryLimit: 16 << 20})
	_, err := p.Call(context.Background(), 0, map[string]any{"src": src})
	wantErr(t, "sleepy allocation", err, KindLimit, "more than 16 MiB")
}

// TestHostGrowthIsForgiven: what the host allocates while a hook waits in a host function is
// not the hook's growth.
func TestHostGrowthIsForgiven(t *testing.T) {
	var hostKeeps [][]byte
	grow := func(context.Context, []any) (any, error) {
		for range 48 {
			hostKeeps = append(hostKeeps, make([]byte, 1<<20))
			time.Sleep(time.Millisecond) // the host works for a while: the sampler sees it
		}
		return "ok", nil
	}
	p := loadPlugin(t, `function register(ctx)
  ctx.register_hook("x", function()
    local t0 = os.clock() while os.clock() - t0 < 0.02 do end -- sampled before the wait
    return require("hermes").grow()
  end)
end`, Options{MemoryLimit: 16 << 20, HostFuncs: map[string]hookspec.Func{"grow": grow}})
	for range 3 {
		if v, err := p.Call(context.Background(), 0, nil); v != "ok" || err != nil {
			t.Fatalf("got %v, %v; want ok", v, err)
		}
	}
	runtime.KeepAlive(hostKeeps)
}

// TestKeptMemoryIsBounded: a hook whose globals grow a little on every call, each call well
// within its budget, is reset once what it keeps passes the budget; the call that finds it
// fails with a limit error, and the next call runs on a fresh state.
func TestKeptMemoryIsBounded(t *testing.T) {
	p := loadPlugin(t, `kept = {}
function register(ctx)
  ctx.register_hook("x", function(kw)
    kept[#kept + 1] = string.rep("k", 4 * 2^20) .. #kept
    return #kept
  end)
end`, Options{MemoryLimit: 32 << 20})
	var failed bool
	for i := range 40 {
		v, err := p.Call(context.Background(), 0, nil)
		if err != nil {
			wantErr(t, "kept", err, KindLimit, "would hold more than 32 MiB")
			failed = true
			break
		}
		if v != int64(i+1) {
			t.Fatalf("call %d: got %v", i, v)
		}
	}
	if !failed {
		t.Fatal("the hook kept 160 MiB under a 32 MiB budget")
	}
	if v, err := p.Call(context.Background(), 0, nil); v != int64(1) || err != nil {
		t.Fatalf("after the reset: got %v, %v; want 1 from a fresh state", v, err)
	}
}

// TestReachableCountsSharedStringsOnce: a table of 1,000 references to one string keeps one
// copy of it; a chain of 200,000 nested tables is walked without recursion.
func TestReachableCountsSharedStringsOnce(t *testing.T) {
	p := loadPlugin(t, `function register(ctx)
  ctx.register_hook("shared", function()
    local s = string.rep("s", 2^20)
    shared = {} for i = 1, 1000 do shared[i] = s end
  end)
  ctx.register_hook("chain", function()
    local t = {} for i = 1, 2e5 do t = {next = t} end chain = t
  end)
end`, Options{MemoryLimit: -1})
	for i, want := range []struct{ min, max int64 }{{1 << 20, 2 << 20}, {8 << 20, 1 << 30}} {
		if _, err := p.Call(context.Background(), i, nil); err != nil {
			t.Fatal(err)
		}
		st := p.s.pool.slots[0].st
		if n := st.L.ReachableMemory(1<<40, st.roots()...); n < want.min || n > want.max {
			t.Errorf("%s: ReachableMemory = %d, want between %d and %d", p.Registrations()[i].Hook, n, want.min, want.max)
		}
	}
}
