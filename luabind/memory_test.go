package luabind

import (
	"context"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A loop of tail calls runs in constant memory until its timeout stops it, and the error
// that reports it stays small (its traceback once had a line per tail call).
func TestTailCallSpinner(t *testing.T) {
	p := loadPlugin(t, runawayPlugin, Options{Timeout: 300 * time.Millisecond})
	before := heapAlloc()
	stop := heapPeak()
	_, err := p.Call(context.Background(), 0, map[string]any{"src": `local function f() return f() end f()`})
	peak := stop()
	wantErr(t, "spinner", err, KindTimeout, "timed out after 300ms")
	if len(err.Error()) > 4096 {
		t.Errorf("error is %d bytes long", len(err.Error()))
	}
	if grew := int64(peak) - int64(before); grew > 64<<20 {
		t.Errorf("the heap grew by %.0f MiB during the call", float64(grew)/(1<<20))
	}
	if got, err := p.Call(context.Background(), 1, nil); got != "fine" || err != nil {
		t.Errorf("next call: got %v, %v; want the plugin to keep working", got, err)
	}
}

// Valid programs that look like attacks run, and cheaply.
func TestCheapValidPrograms(t *testing.T) {
	tests := []struct {
		name, src string
		want      any
	}{
		{"sparse key", `local t = {} t[67108863] = 1 return t[67108863] + #t`, int64(1)},
		{"sparse keys then the array", `local t = {} t[2^25] = 1 for i = 1, 100 do t[i] = i end return #t`, int64(100)},
		{"keys that come and go", `local t = {} for i = 1, 200000 do local k = "k" .. i t[k] = true t[k] = nil end return next(t) == nil`, true},
	}
	p := loadPlugin(t, runawayPlugin, Options{Timeout: time.Minute})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := heapAlloc()
			stop := heapPeak()
			got, err := p.Call(context.Background(), 0, map[string]any{"src": tt.src})
			peak := stop()
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
			if grew := int64(peak) - int64(before); grew > 16<<20 {
				t.Errorf("the heap grew by %.0f MiB during the call", float64(grew)/(1<<20))
			}
		})
	}
}

// Each attack on memory fails its own call alone, with a limit error, before the host has
// allocated much more than the limit; the next call of the same hook runs.
func TestMemoryAttacksFailOnlyTheirCall(t *testing.T) {
	limit := int64(64 << 20)
	if raceEnabled { // the race detector makes each allocation ten times slower
		limit = 16 << 20
	}
	tests := []struct{ name, src, want string }{
		{"table filled past the limit", `local t = {} for i = 1, 1e9 do t[i] = {i} end`, "limit exceeded: memory: "},
		{"sparse table filled past the limit", `local t = {} for i = 1, 1e9 do t[i * 1000] = i end`, "limit exceeded: memory: "},
		{"string keys", `local t = {} for i = 1, 1e9 do t["k" .. i] = i end`, "limit exceeded: memory: "},
		{"string.rep kept", `local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 2^20) end`, "limit exceeded: memory: "},
		{"concatenations kept", `local t, s = {}, string.rep("x", 2^20) for i = 1, 1e9 do t[i] = s .. i end`, "limit exceeded: memory: "},
		{"table.concat kept", `local t = {} for i = 1, 1e9 do t[i] = table.concat({string.rep("y", 2^19), i}, ",") end`, "limit exceeded: memory: "},
		{"string doubling", `local s = "x" while true do s = s .. s end`, "limit exceeded: "},
		{"os.date of a huge format", `return os.date(string.rep("%c", 2^25))`, "limit exceeded: memory: "},
		{"loadstring of 4 MiB", `return loadstring(string.rep("a=1 ", 2^20))`, "limit exceeded: memory: "},
		{"loadstring of 4 MiB of functions", `return loadstring(string.rep("function f() end ", 240000))`, "limit exceeded: memory: "},
		{"coroutines kept", `local t = {} for i = 1, 1e9 do t[i] = coroutine.create(print) end`, "limit exceeded: memory: "},
		{"closures kept", `local t = {} for i = 1, 1e9 do t[i] = function() return i end end`, "limit exceeded: memory: "},
		{"caught by pcall", `local ok = pcall(function() local t = {} for i = 1, 1e9 do t[i] = {} end end) return ok`, "limit exceeded: memory: "},
		{"caught inside a coroutine", `local co = coroutine.wrap(function() local t = {} for i = 1, 1e9 do t[i] = {} end end) return pcall(co)`, "limit exceeded: memory: "},
	}
	p := loadPlugin(t, runawayPlugin, Options{Timeout: 60 * time.Second, MemoryLimit: limit})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := heapAlloc()
			stop := heapPeak()
			_, err := p.Call(context.Background(), 0, map[string]any{"src": tt.src})
			peak := stop()
			wantErr(t, tt.name, err, KindLimit, tt.want)
			if grew := int64(peak) - int64(before); grew > 4*limit {
				t.Errorf("the heap grew by %.0f MiB for a %d MiB limit", float64(grew)/(1<<20), limit>>20)
			}
			if got, err := p.Call(context.Background(), 1, nil); got != "fine" || err != nil {
				t.Errorf("next call: got %v, %v; want the plugin to keep working", got, err)
			}
		})
	}
}

// What host functions return is charged: a hook that keeps it fails at its limit.
func TestHostResultsAreCharged(t *testing.T) {
	p := loadPlugin(t, `function register(ctx) ctx.register_hook("x", function()
  local hermes, t = require("hermes"), {}
  for i = 1, 1e9 do t[i] = hermes.big() end
end) end`, Options{Timeout: time.Minute, MemoryLimit: 16 << 20, HostFuncs: map[string]hookspec.Func{
		"big": func(context.Context, []any) (any, error) { return []any{strings.Repeat("x", 1<<20)}, nil },
	}})
	_, err := p.Call(context.Background(), 0, nil)
	wantErr(t, "kept host results", err, KindLimit, "limit exceeded: memory: ")
}

// A hook that allocates and drops much more than its limit, holding little, is not
// stopped: the account measures what the state holds before refusing anything.
func TestGarbageIsNotHeld(t *testing.T) {
	got, err := eval(t, `local n = 0
for i = 1, 200 do
  local t = {}
  for j = 1, 100 do t[j] = string.rep("x", 1000) .. j end
  n = n + #table.concat(t)
end
return n`, nil, Options{MemoryLimit: 8 << 20})
	if err != nil || got != int64(200*(100*1000+192)) {
		t.Fatalf("got %v, %v", got, err)
	}
}

// Two hooks each holding 200 MiB at the same time, under the default 256 MiB limit, both
// finish, running Lua while a third allocates 300 MiB and fails alone. What each state
// holds is its own: the heap the process grew by is no hook's measure.
func TestHooksHoldingMemoryAtOnce(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocates 700 MiB")
	}
	const hold = `keep = {}
for i = 1, %d do keep[i] = string.rep("x", 2^20 - 64) .. i end
local hermes = require("hermes")
hermes.ready()
local n = 0
while not hermes.released() do for i = 1, 1000 do n = n + i end end
return #keep`
	ready := make(chan struct{}, 4) // a hook holds its memory, or its call ended
	var released atomic.Bool
	funcs := map[string]hookspec.Func{
		"ready":    func(context.Context, []any) (any, error) { ready <- struct{}{}; return nil, nil },
		"released": func(context.Context, []any) (any, error) { return released.Load(), nil },
	}
	plugin := func(mib int) *Plugin {
		return loadPlugin(t, `function register(ctx) ctx.register_hook("x", function()
`+fmt.Sprintf(hold, mib)+`
end) end`, Options{Timeout: time.Minute, HostFuncs: funcs})
	}
	a, b, c := plugin(200), plugin(200), plugin(300)
	var wg sync.WaitGroup
	var gotA, gotB any
	var errA, errB error
	wg.Go(func() { gotA, errA = a.Call(context.Background(), 0, nil); ready <- struct{}{} })
	wg.Go(func() { gotB, errB = b.Call(context.Background(), 0, nil); ready <- struct{}{} })
	<-ready // both hold their 200 MiB and run Lua (or one failed)
	<-ready
	_, errC := c.Call(context.Background(), 0, nil)
	released.Store(true)
	wg.Wait()
	if gotA != int64(200) || errA != nil || gotB != int64(200) || errB != nil {
		t.Errorf("the hooks under their limit: got %v, %v and %v, %v; want both to finish", gotA, errA, gotB, errB)
	}
	wantErr(t, "300 MiB", errC, KindLimit, "limit exceeded: memory: ", "more than 256 MiB")
}
