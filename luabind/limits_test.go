package luabind

import (
	"context"
	"github.com/hermes-hooks/hermes/hookspec"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// heapPeak samples the Go heap every millisecond until stop is called, which returns the
// largest value seen.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

const runawayPlugin = `
function register(ctx)
  ctx.register_hook("run", function(kw) return assert(loadstring(kw.src))() end)
  ctx.register_hook("ok", function() return "fine" end)
end`

func TestRunawaysFailOnlyTheirCall(t *testing.T) {
	const limit = 16 << 20
	tests := []struct {
		name, src string
		timeout   time.Duration
		kind      Kind
		want      string
	}{
		// Whichever limit sees it first stops it: the memory guard's sampler, or, when the
		// machine is busy and the sampler late, the 64 MiB bound on a concatenation.
		{"string doubling", `local s = "x" while true do s = s .. s end`, 20 * time.Second, KindLimit, "limit exceeded: "},
		{"table of strings", `local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep("x", 1024) end`, 20 * time.Second, KindLimit, "limit exceeded: memory"},
		{"table of tables", `local t = {} while true do t[#t + 1] = {} end`, 20 * time.Second, KindLimit, "limit exceeded: memory"},
		{"global table", `big = {} local i = 0 while true do i = i + 1 big[i] = i end`, 20 * time.Second, KindLimit, "limit exceeded: memory"},
		{"deep recursion", `local function f(n) return 1 + f(n + 1) end return f(1)`, 20 * time.Second, KindLimit, "call stack overflow"},
		{"coroutine recursion", `local function f() coroutine.wrap(f)() end f()`, 20 * time.Second, KindLimit, "coroutines resumed inside one another more than 128 deep"},
		{"huge string.rep", `return string.rep("x", 2^40)`, 20 * time.Second, KindLimit, "string.rep result larger than"},
		{"huge unpack", `return unpack({}, 1, 1e8)`, 20 * time.Second, KindLimit, "registry"},
		{"endless loop", `while true do end`, 300 * time.Millisecond, KindTimeout, "timed out after 300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := loadPlugin(t, runawayPlugin, Options{Timeout: tt.timeout, MemoryLimit: limit})
			before := heapAlloc()
			stop := heapPeak()
			start := time.Now()
			_, err := p.Call(context.Background(), 0, map[string]any{"src": tt.src})
			took := time.Since(start)
			peak := stop()
			wantErr(t, tt.name, err, tt.kind, tt.want)
			if got, err := p.Call(context.Background(), 1, nil); got != "fine" || err != nil {
				t.Errorf("next call: got %v, %v; want the plugin to keep working", got, err)
			}
			after := heapAlloc()
			after = heapReleased(before+8<<20, after)
			t.Logf("stopped in %v; heap before %.1f MiB, peak %.1f MiB, after GC %.1f MiB", took, mib(before), mib(peak), mib(after))
			if after > before+8<<20 {
				t.Errorf("heap after GC is %.1f MiB, %.1f MiB before: the runaway's memory is still reachable", mib(after), mib(before))
			}
		})
	}
}

// heapReleased is the heap after a collection once it is at most want, or after a few
// hundred collections if it never gets there: between them the goroutines that still held
// a call's memory (its watchers, ending) get the processor. No clock: a collection paces it.
func heapReleased(want, after uint64) uint64 {
	for i := 0; after > want && i < 500; i++ {
		runtime.Gosched()
		after = heapAlloc()
	}
	return after
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

func TestCoroutinesUnderTheNestingLimit(t *testing.T) {
	tests := []struct {
		name, src string
		want      any
	}{
		{"wrap generator", `local gen = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) coroutine.yield(b * 2) return "done" end)
return {gen(1), gen(10), gen()}`, []any{int64(2), int64(20), "done"}},
		{"resume", `local co = coroutine.create(function(x) coroutine.yield(x) error({code = 7}) end)
local ok1, v = coroutine.resume(co, "a")
local ok2, err = coroutine.resume(co)
local ok3, dead = coroutine.resume(co)
return {ok1, v, ok2, err.code, ok3, coroutine.status(co)}`, []any{true, "a", false, int64(7), false, "dead"}},
		{"wrap rethrows the error value", `local ok, err = pcall(coroutine.wrap(function() error({code = 3}) end)) return {ok, err.code}`, []any{false, int64(3)}},
		{"wrap of a dead coroutine", `local f = coroutine.wrap(function() end) f() return (pcall(f))`, false},
		{"nested within the limit", `local function f(n) if n == 0 then return 0 end return coroutine.wrap(f)(n - 1) + 1 end return f(100)`, int64(100)},
	}
	for _, tt := range tests {
		got, err := eval(t, "local src = kw.src\n"+tt.src, map[string]any{"src": ""}, Options{})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestFailedCoroutineIsReleased(t *testing.T) {
	tests := []struct {
		name, src string
		kind      Kind
		want      string
	}{
		{"error", `coroutine.wrap(function() local big = string.rep("x", 8 * 2^20) error("boom") end)()`, KindRuntime, "boom"},
		{"timeout", `coroutine.wrap(function() local big = string.rep("x", 8 * 2^20) while true do end end)()`, KindTimeout, "timed out"},
		{"timeout in resume", `coroutine.resume(coroutine.create(function() local big = string.rep("x", 8 * 2^20) while true do end end))`, KindTimeout, "timed out"},
	}
	for _, tt := range tests {
		p := loadPlugin(t, runawayPlugin, Options{Timeout: 2 * time.Second})
		before := heapAlloc()
		_, err := p.Call(context.Background(), 0, map[string]any{"src": tt.src})
		wantErr(t, tt.name, err, tt.kind, tt.want)
		after := heapAlloc()
		after = heapReleased(before+4<<20, after)
		if after > before+4<<20 {
			t.Errorf("%s: heap after GC is %.1f MiB, %.1f MiB before: the coroutine is still reachable", tt.name, mib(after), mib(before))
		}
		runtime.KeepAlive(p)
	}
}

// A call waiting in a host function while another call's runaway grows the heap is not
// stopped for that growth: the waiting call holds the host function until the runaway ended.
func TestMemoryGuardSparesWaitingCalls(t *testing.T) {
	runaway := loadPlugin(t, runawayPlugin, Options{Timeout: 20 * time.Second, MemoryLimit: 16 << 20})
	waiting, release := make(chan struct{}), make(chan struct{})
	wait := func(context.Context, []any) (any, error) {
		close(waiting)
		<-release
		return "slept", nil
	}
	sleeper := loadPlugin(t, `function register(ctx)
  ctx.register_hook("sleep", function() return require("hermes").wait() end)
end`, Options{MemoryLimit: 16 << 20, HostFuncs: map[string]hookspec.Func{"wait": wait}})
	var wg sync.WaitGroup
	var got any
	var err error
	wg.Go(func() { got, err = sleeper.Call(context.Background(), 0, nil) })
	<-waiting
	_, rerr := runaway.Call(context.Background(), 0, map[string]any{"src": `local t = {} while true do t[#t + 1] = string.rep("x", 4096) end`})
	close(release)
	wg.Wait()
	wantErr(t, "runaway", rerr, KindLimit, "limit exceeded: memory")
	if got != "slept" || err != nil {
		t.Errorf("sleeping call: got %v, %v; want it untouched by the other call's runaway", got, err)
	}
}

func TestMemoryLimitOption(t *testing.T) {
	// 96 MiB kept alive, with pauses so the guard gets to sample (a pause in time.sleep
	// does not excuse what was allocated before it): well past a 16 MiB budget even with
	// the GC headroom (at most one more budget).
	src := `local t = {}
for i = 1, 96 do
  t[i] = string.rep("x", 2^20)
  require("time").sleep(0.002)
end
return #t`
	tests := []struct {
		limit int64
		want  any
	}{
		{16 << 20, nil},
		{-1, int64(96)},
		{1 << 30, int64(96)},
	}
	for _, tt := range tests {
		runtime.GC()
		p := loadPlugin(t, runawayPlugin, Options{Timeout: 20 * time.Second, MemoryLimit: tt.limit})
		got, err := p.Call(context.Background(), 0, map[string]any{"src": src})
		if tt.want == nil {
			wantErr(t, "limit 16 MiB", err, KindLimit, "more than 16 MiB")
			continue
		}
		if got != tt.want || err != nil {
			t.Errorf("limit %d: got %v, %v; want %v", tt.limit, got, err, tt.want)
		}
	}
}

func TestMemoryGuardWhileLoading(t *testing.T) {
	_, err := LoadPlugin(context.Background(), []byte(`local t = {} while true do t[#t + 1] = string.rep("x", 4096) end`),
		Options{File: "big.lua", Timeout: 20 * time.Second, MemoryLimit: 16 << 20})
	wantErr(t, "load", err, KindLimit, "big.lua:1: limit exceeded: memory")
}

// BenchmarkTrivialCall measures the memory guard's cost on a short callback: compare
// guard=on with guard=off from the same run.
func BenchmarkTrivialCall(b *testing.B) {
	kw := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}}
	for _, bc := range []struct {
		name  string
		limit int64
	}{{"guard=off", -1}, {"guard=on", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := LoadPlugin(context.Background(), []byte(`function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) if kw.tool_name == "rm" then return {action = "block"} end end)
end`), Options{MemoryLimit: bc.limit})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Call(context.Background(), 0, kw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			p, err := LoadPlugin(context.Background(), []byte(`function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return nil end)
end`), Options{MemoryLimit: bc.limit, States: runtime.GOMAXPROCS(0)})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := p.Call(context.Background(), 0, kw); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
