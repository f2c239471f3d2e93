package lua

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

func limitedState(limit int64) *LState {
	L := NewState(Options{CallStackSize: 200, RegistrySize: 256, RegistryMaxSize: 1 << 18, RegistryGrowStep: 1 << 14, MinimizeStackMemory: true})
	L.SetMemoryLimit(MemoryLimit{Limit: limit, Message: "memory: over the limit"})
	return L
}

// heapInUse is the live heap after collections (several: sync.Pool keeps what it drops
// for one more).
func heapInUse() int64 {
	for range 4 {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// Whatever builds what the state holds is charged before it allocates: each runaway fails
// with the memory error, having allocated little more than the limit.
func TestMemoryLimitStopsRunaways(t *testing.T) {
	limit := int64(16 << 20)
	if raceEnabled { // each allocation is several times slower; os.date's 8 MiB format still fits
		limit = 10 << 20
	}
	tests := []struct{ name, src string }{
		{"array of numbers", `local t = {} for i = 1, 1e8 do t[i] = i + 0.5 end`},
		{"array of nils", `local t = {} for i = 1, 1e8 do t[i] = nil end`},
		{"string keys", `local t = {} for i = 1, 1e8 do t["k" .. i] = true end`},
		{"number keys", `local t = {} for i = 1, 1e8 do t[i + 0.5] = true end`},
		{"globals", `for i = 1, 1e8 do _G[i + 0.5] = true end`},
		{"tables", `local t = {} for i = 1, 1e8 do t[i] = {} end`},
		{"closures", `local t = {} for i = 1, 1e8 do t[i] = function() return i end end`},
		{"coroutines", `local t = {} for i = 1, 1e8 do t[i] = coroutine.create(print) end`},
		{"strings", `local t, s = {}, "x" for i = 1, 1e8 do s = s .. "x" t[i] = s end`},
		{"doubling", `local s = "x" while true do s = s .. s end`},
		{"upper", `local t, s = {}, string.rep("x", 1e6) for i = 1, 1e8 do t[i] = s:upper() end`},
		{"tostring", `local t = {} for i = 1, 1e8 do t[i] = tostring(i) end`},
		{"os.date", `local f = string.rep("%c", 2^22) return os.date(f)`},
		{"varargs", `local t = {} local function f(...) return {...} end for i = 1, 1e8 do t[i] = f(1, 2, 3) end`},
		{"deep stack of coroutines", `local t = {} for i = 1, 1e8 do local co = coroutine.wrap(function() coroutine.yield() end) co() t[i] = co end`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			L := limitedState(limit)
			defer L.Close()
			before := heapInUse()
			err := L.DoString(tt.src)
			if err == nil || !strings.Contains(err.Error(), "memory: over the limit") {
				t.Fatalf("err = %v, want the memory error", err)
			}
			if !L.MemoryExceeded() {
				t.Error("MemoryExceeded is false")
			}
			if held := heapInUse() - before; held > 3*limit {
				t.Errorf("the state holds %d MiB after the error", held>>20)
			}
		})
	}
}

// What a state allocates and drops does not count against it: the account measures what
// the state holds before raising anything.
func TestMemoryLimitForgivesGarbage(t *testing.T) {
	L := limitedState(8 << 20)
	defer L.Close()
	if err := L.DoString(`
local keep = {}
for i = 1, 4000 do keep[i] = string.rep("k", 1000) .. i end -- 4 MB held throughout
for round = 1, 200 do
  local t = {}
  for i = 1, 1000 do t[i] = {name = "x" .. i, i} end
  local s = table.concat({string.rep("y", 10000), round})
end
return #keep`); err != nil {
		t.Fatal(err)
	}
	if L.MemoryExceeded() {
		t.Error("MemoryExceeded after a program that held half its limit")
	}
}

// A state that holds most of its limit and keeps allocating garbage is measured every
// quarter of its limit, and never stopped.
func TestMemoryLimitNearlyFull(t *testing.T) {
	L := limitedState(8 << 20)
	defer L.Close()
	if err := L.DoString(`
local keep = {}
for i = 1, 6500 do keep[i] = string.rep("k", 1000) .. i end -- about 6.6 MB of the 8 MiB
local n = 0
for round = 1, 3000 do
  local s = string.rep("y", 10000) .. round
  n = n + #s
end
return #keep + n`); err != nil {
		t.Fatal(err)
	}
}

// pcall catches the memory error, as in C Lua, but the account keeps it: every later
// charge raises it again, so the host can fail the call.
func TestMemoryErrorIsSticky(t *testing.T) {
	L := limitedState(4 << 20)
	defer L.Close()
	err := L.DoString(`
local ok, msg = pcall(function() local t = {} for i = 1, 1e8 do t[i] = {} end end)
assert(not ok and msg:find("memory: over the limit"), msg)
local t = {}`)
	if err == nil || !strings.Contains(err.Error(), "memory: over the limit") {
		t.Fatalf("err = %v, want the memory error again at the next allocation", err)
	}
}

// Another goroutine can make the state measure itself at its next charge.
func TestRequestMemoryCheck(t *testing.T) {
	L := NewState()
	defer L.Close()
	held := int64(0)
	L.SetMemoryLimit(MemoryLimit{Limit: 1 << 30, Measure: func(int64) int64 { return held }})
	if err := L.DoString(`x = {}`); err != nil {
		t.Fatal(err)
	}
	held = 2 << 30 // what the measure will find
	done := make(chan struct{})
	go func() { L.RequestMemoryCheck(); close(done) }()
	<-done
	if err := L.DoString(`y = {}`); err == nil || !strings.Contains(err.Error(), "not enough memory") {
		t.Fatalf("err = %v, want the memory error", err)
	}
}

// ReachableMemory's estimates stay close to what the Go heap holds for each kind of value,
// so that a limit means about what it says.
func TestReachableMemoryMatchesTheHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("measures one state in one goroutine: run without -race")
	}
	tests := []struct{ name, src string }{
		{"array of numbers", `for i = 1, 2e5 do t[i] = i + 0.5 end`},
		{"array of strings", `for i = 1, 2e5 do t[i] = "s" .. i end`},
		{"string keys", `for i = 1, 2e5 do t["k" .. i] = true end`},
		{"tables", `for i = 1, 1e5 do t[i] = {} end`},
		{"records", `for i = 1, 5e4 do t[i] = {name = "n", id = i, ok = true} end`},
		{"closures", `for i = 1, 1e5 do t[i] = function() return i end end`},
		{"coroutines", `for i = 1, 2e3 do t[i] = coroutine.create(print) end`},
		{"long strings", `for i = 1, 100 do t[i] = string.rep("x", 1e5) .. i end`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// What the state holds is what the heap loses when it is dropped.
			L := limitedState(0)
			if err := L.DoString("t = {} " + tt.src); err != nil {
				t.Fatal(err)
			}
			est, with := L.ReachableMemory(0), heapInUse()
			L.Close()
			L = nil
			held := with - heapInUse()
			t.Logf("heap %d KiB, estimate %d KiB", held>>10, est>>10)
			if est < held/2 || est > held*2 {
				t.Errorf("estimate %d KiB for %d KiB on the heap", est>>10, held>>10)
			}
		})
	}
}

// A measure made by a charge stops with the call's context: a state holding a million
// values does not keep a cancelled call walking them.
func TestMeasureStopsWithTheCall(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`t = {} for i = 1, 200000 do t[i] = {} end`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	L.SetContext(ctx)
	cancel()
	full := L.ReachableMemory(0) // not from a charge: a measure for the host, never stopped
	if full < 200000*memTable {
		t.Fatalf("measured %d bytes", full)
	}
	L.mem.busy = true // as over() sets it while a charge measures
	defer func() {
		L.mem.busy = false
		r := recover()
		if ae, ok := r.(*ApiError); !ok || !strings.Contains(ae.Error(), "context canceled") {
			t.Errorf("recovered %v, want the call's context error", r)
		}
	}()
	L.ReachableMemory(0)
	t.Error("the measure ran to its end in a cancelled call")
}

// A value a closure's field cache holds (fieldcache.go) stays held after the table it was
// found in lets go of it, and is counted as held.
func TestMeasureCountsCachedValues(t *testing.T) {
	L := NewState()
	defer L.Close()
	err := L.DoString(`
		g = {s = string.rep("x", 16 * 2^20)}
		function f() return g.s end
		for i = 1, 10 do f() end -- the cache is made at the eighth lookup
		g.s = nil
		collectgarbage()`)
	if err != nil {
		t.Fatal(err)
	}
	if n := L.ReachableMemory(0); n < 16<<20 {
		t.Errorf("measured %d bytes, want the 16 MiB string f's cache holds", n)
	}
}
