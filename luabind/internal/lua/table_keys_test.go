package lua

import (
	"fmt"
	"slices"
	"testing"
)

// A table whose keys come and go keeps a key list as long as what it holds, not as long
// as every key it ever held, and Next still walks the keys in the order they were set.
func TestKeyListCompacted(t *testing.T) {
	tb := newLTable(0, 0)
	for i := range 100000 {
		k := fmt.Sprintf("k%d", i)
		tb.RawSetString(k, LTrue)
		tb.RawSetH(LNumber(float64(i)+0.5), LTrue)
		if i%10 != 0 { // keep one in ten
			tb.RawSetString(k, LNil)
			tb.RawSetH(LNumber(float64(i)+0.5), LNil)
		}
	}
	if live := len(tb.strdict) + len(tb.dict); len(tb.keys) > 2*live+minCompact {
		t.Errorf("key list of %d for %d keys held", len(tb.keys), live)
	}
	var got []LValue
	for k, _ := tb.Next(LNil); k != LNil; k, _ = tb.Next(k) {
		got = append(got, k)
	}
	var want []LValue
	for i := 0; i < 100000; i += 10 {
		want = append(want, LString(fmt.Sprintf("k%d", i)), LNumber(float64(i)+0.5))
	}
	if !slices.Equal(got, want) {
		t.Errorf("Next walks %d keys, want %d in the order they were set", len(got), len(want))
	}
}

// Clearing every field during a traversal, which Lua allows, visits every key once.
func TestClearDuringTraversal(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`
local t = {}
for i = 1, 1000 do t["k" .. i] = i end
for i = 1, 900 do t["k" .. i] = nil end
for i = 1001, 1100 do t["k" .. i] = i end -- compacts the list
local n, sum = 0, 0
for k, v in pairs(t) do n = n + 1 sum = sum + v t[k] = nil end
assert(n == 200 and sum == (901 + 1000) * 50 + (1001 + 1100) * 50, n .. " " .. sum)
assert(next(t) == nil)
`); err != nil {
		t.Fatal(err)
	}
}
