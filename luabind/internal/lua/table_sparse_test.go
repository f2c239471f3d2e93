package lua

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// A key far past the end of the array part goes to the hash part: one statement cannot
// allocate an array of millions of nils.
func TestSparseKeyIsCheap(t *testing.T) {
	L := NewState()
	defer L.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := L.DoString(`
local t = {}
t[67108863] = 1
t[2^40] = 2
assert(t[67108863] == 1 and t[2^40] == 2 and #t == 0 and table.maxn(t) == 67108863)
local n = 0
for k, v in pairs(t) do n = n + 1 end
assert(n == 2, n)
for i = 1, 3 do t[i] = i end
assert(#t == 3)
`); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("allocated %d bytes", got)
	}
}

// tableModel is what a table with integer keys holds, checked against LTable after every
// step of a random sequence of sets, inserts, removes and appends.
func TestSparseKeysMatchModel(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		tb := newLTable(0, 0)
		model := map[int]LValue{}
		span := []int{8, 80, 300}[seed%3]
		for step := range 400 {
			k := 1 + rng.IntN(span)
			var v LValue = LNumber(step)
			if rng.IntN(4) == 0 {
				v = LNil
			}
			switch op := rng.IntN(10); {
			case op < 7:
				tb.RawSetInt(k, v)
				if v == LNil {
					delete(model, k)
				} else {
					model[k] = v
				}
			case op == 7: // table.insert(t, v): t[#t + 1] = v, as Append does
				if v == LNil {
					continue
				}
				n := tb.Len()
				tb.Append(v)
				if tb.RawGetInt(n+1) != v {
					t.Fatalf("seed %d step %d: Append did not set %d", seed, step, n+1)
				}
				model = modelOf(tb)
			default: // Insert and Remove shift the array part; rebuild the model from it
				if op == 8 && v != LNil {
					tb.Insert(1+rng.IntN(tb.Len()+1), v)
				} else {
					tb.Remove(1 + rng.IntN(tb.Len()+1))
				}
				model = modelOf(tb)
			}
			checkModel(t, seed, step, tb, model)
		}
	}
}

// modelOf reads tb through RawGetInt.
func modelOf(tb *LTable) map[int]LValue {
	m := map[int]LValue{}
	for k := 1; k <= 1000; k++ {
		if v := tb.RawGetInt(k); v != LNil {
			m[k] = v
		}
	}
	return m
}

func checkModel(t *testing.T, seed uint64, step int, tb *LTable, model map[int]LValue) {
	t.Helper()
	maxn := 0
	for k, v := range model {
		if got := tb.RawGetInt(k); got != v {
			t.Fatalf("seed %d step %d: t[%d] = %v, want %v", seed, step, k, got, v)
		}
		if got := tb.RawGet(LNumber(k)); got != v {
			t.Fatalf("seed %d step %d: RawGet(%d) = %v, want %v", seed, step, k, got, v)
		}
		maxn = max(maxn, k)
	}
	seen := map[int]bool{}
	for k, v := tb.Next(LNil); k != LNil; k, v = tb.Next(k) {
		i := int(k.(LNumber))
		if seen[i] {
			t.Fatalf("seed %d step %d: Next gave %d twice", seed, step, i)
		}
		seen[i] = true
		if model[i] != v {
			t.Fatalf("seed %d step %d: Next gave %d = %v, want %v", seed, step, i, v, model[i])
		}
	}
	if len(seen) != len(model) {
		t.Fatalf("seed %d step %d: Next gave %d keys, want %d", seed, step, len(seen), len(model))
	}
	n := tb.Len()
	if (n > 0 && model[n] == nil) || model[n+1] != nil {
		t.Fatalf("seed %d step %d: Len = %d is not a border", seed, step, n)
	}
	if got := tb.MaxN(); got != maxn {
		t.Fatalf("seed %d step %d: MaxN = %d, want %d", seed, step, got, maxn)
	}
}
