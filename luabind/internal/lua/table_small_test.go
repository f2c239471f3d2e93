package lua

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// smallKeys are the keys the small-table tests set: a few more string keys than a small
// table holds, and other kinds of keys that move it to the maps.
var smallKeys = []LValue{LString("a"), LString("b"), LString("c"), LString("d"), LString("e"),
	LString("f"), LString("g"), LString("h"), LString("i"), LString("j"), LString(""),
	LNumber(1), LNumber(2), LNumber(100), LNumber(0.5), LTrue}

// applyTableOps runs the operations data encodes on a table made small (CreateTable(0, 0))
// and on one that has its maps from the start (NewTable, room for 32 string keys: the way
// every table was kept before small tables), and fails t at the first difference in what
// they hold or in the order Next, Pairs and ForEach give.
func applyTableOps(t *testing.T, data []byte) {
	L := NewState()
	defer L.Close()
	small, maps := L.CreateTable(0, 0), L.NewTable()
	if !small.isSmall() || maps.isSmall() {
		t.Fatal("the tables do not start as the test needs")
	}
	var log []string
	for i := 0; i+1 < len(data); i += 2 {
		op, k := data[i]%9, smallKeys[int(data[i+1])%len(smallKeys)]
		v := LValue(LNumber(i))
		switch op {
		case 0, 1, 2: // set
			small.RawSet(k, v)
			maps.RawSet(k, v)
			log = append(log, fmt.Sprintf("t[%v]=%v", k, v))
		case 3: // clear
			small.RawSet(k, LNil)
			maps.RawSet(k, LNil)
			log = append(log, fmt.Sprintf("t[%v]=nil", k))
		case 4: // replace or set a string key
			if s, ok := k.(LString); ok {
				small.ReplaceString(string(s), v)
				maps.ReplaceString(string(s), v)
				log = append(log, fmt.Sprintf("replace %v=%v", k, v))
			}
		case 5: // reserve room
			n := int(data[i+1]) % 12
			small.ReserveKeys(n)
			maps.ReserveKeys(n)
			log = append(log, fmt.Sprintf("reserve %d", n))
		case 6: // a traversal that clears every other field it visits, as Lua allows
			n := 0
			for k2, _ := small.Next(LNil); k2 != LNil; k2, _ = small.Next(k2) {
				if n%2 == 0 {
					small.RawSet(k2, LNil)
				}
				n++
			}
			n = 0
			for k2, _ := maps.Next(LNil); k2 != LNil; k2, _ = maps.Next(k2) {
				if n%2 == 0 {
					maps.RawSet(k2, LNil)
				}
				n++
			}
			log = append(log, "clear every other")
		case 8: // a key from Go, boxed only when a traversal gives it
			if s, ok := k.(LString); ok {
				key := strings.Clone(string(s))
				small.SetStringField(key, v)
				maps.SetStringField(key, v)
				log = append(log, fmt.Sprintf("field %v=%v", k, v))
			}
		case 7: // Next from a key the table may not hold
			k1, v1 := small.Next(k)
			k2, v2 := maps.Next(k)
			if k1 != k2 || v1 != v2 {
				t.Fatalf("after %s: Next(%v) = %v %v, with the maps %v %v", strings.Join(log, "; "), k, k1, v1, k2, v2)
			}
		}
		if a, b := tableText(small), tableText(maps); a != b {
			t.Fatalf("after %s:\nsmall: %s\nmaps:  %s", strings.Join(log, "; "), a, b)
		}
	}
}

// tableText is what a program can see of tb: each key's value, and the order of Next, Pairs
// and ForEach (ForEach's order is a map's for the maps, so it is compared sorted).
func tableText(tb *LTable) string {
	var b strings.Builder
	for _, k := range smallKeys {
		fmt.Fprintf(&b, "%v=%v ", k, tb.RawGet(k))
		if s, ok := k.(LString); ok {
			fmt.Fprintf(&b, "(%v) ", tb.RawGetString(string(s)))
		}
	}
	b.WriteString("| next:")
	for k, v := tb.Next(LNil); k != LNil; k, v = tb.Next(k) {
		fmt.Fprintf(&b, " %v=%v", k, v)
	}
	b.WriteString(" | pairs:")
	for k, v := range tb.Pairs() {
		fmt.Fprintf(&b, " %v=%v", k, v)
	}
	n := 0
	tb.ForEach(func(LValue, LValue) { n++ })
	fmt.Fprintf(&b, " | foreach: %d", n)
	return b.String()
}

// TestSmallTablesLikeMaps: random sequences of sets (from Lua's side and, with
// SetStringField, from Go's), clears, replacements, reservations and traversals give the same table whether it starts small or with its maps.
func TestSmallTablesLikeMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 32))
	n := 2000
	if raceEnabled {
		n = 500
	}
	for range n {
		data := make([]byte, 2*(1+rng.IntN(40)))
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		applyTableOps(t, data)
	}
}

// FuzzSmallTable: what TestSmallTablesLikeMaps checks, for the fuzzer's operations.
func FuzzSmallTable(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 3, 0, 7, 0})
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789"))
	f.Fuzz(applyTableOps)
}

// TestSmallTablesInLua: programs that use tables with few and then more string keys, and
// other keys, print in pairs' order what C Lua's tables hold (sorted: C Lua's order is its
// own), the same with and without the fast paths.
func TestSmallTablesInLua(t *testing.T) {
	src := `
local function show(t)
  local ks = {}
  for k, v in pairs(t) do ks[#ks + 1] = tostring(k) .. "=" .. tostring(v) end
  table.sort(ks)
  return table.concat(ks, ",")
end
local t = {a = 1, b = 2}
t.c = 3 t.a = nil t.d = 4
print(show(t), t.a, t.b, t.c, rawget(t, "d"), next({}))
for i = 1, 10 do t["k" .. i] = i end
print(show(t))
local u = {x = 1}
u[true] = "yes" u[2.5] = "f" u.y = 2
print(show(u), u[true], u.x, u.y)
local w = {p = 1, q = 2, r = 3}
for k in pairs(w) do w[k] = nil end
print(show(w), next(w))
w.s = 9 print(show(w))
local kw = setmetatable({}, {__index = function(_, k) return "idx:" .. k end})
kw.tool = "terminal" print(kw.tool, kw.other)
`
	fast, plain := runWith(src, Options{}), runWith(src, Options{SkipFastPaths: true})
	if fast != plain {
		t.Errorf("with the fast paths:\n%s\nwithout:\n%s", fast, plain)
	}
	want := "b=2,c=3,d=4\tnil\t2\t3\t4\tnil\n" +
		"b=2,c=3,d=4,k10=10,k1=1,k2=2,k3=3,k4=4,k5=5,k6=6,k7=7,k8=8,k9=9\n" +
		"2.5=f,true=yes,x=1,y=2\tyes\t1\t2\n" +
		"\tnil\n" +
		"s=9\n" +
		"terminal\tidx:other\n"
	if bin, err := exec.LookPath("lua5.1"); err == nil {
		out, err := exec.Command(bin, "-e", src).CombinedOutput()
		if err != nil || string(out) != want {
			t.Errorf("lua5.1 prints (%v):\n%s", err, out)
		}
	}
	if fast != want {
		t.Errorf("got:\n%s\nwant:\n%s", fast, want)
	}
}

// TestSmallTableOneAllocation: a table made with room for at most smallMax string keys
// gets them in its own allocation: making it and setting them costs one.
func TestSmallTableOneAllocation(t *testing.T) {
	L := NewState()
	defer L.Close()
	keys := []string{"tool_name", "args", "task_id", "session_id", "tool_call_id", "a", "b", "c"}
	v := LString("x")
	for n := 1; n <= smallMax; n++ {
		var tb *LTable
		allocs := testing.AllocsPerRun(100, func() {
			tb = L.CreateTable(0, n)
			for _, k := range keys[:n] {
				tb.SetStringField(k, v)
			}
		})
		if allocs != 1 {
			t.Errorf("a table of %d keys: %.0f allocations, want 1", n, allocs)
		}
		for _, k := range keys[:n] {
			if got := tb.RawGetString(k); got != v {
				t.Errorf("a table of %d keys: [%s] = %v", n, k, got)
			}
		}
		tb.SetStringField("ninth", v) // past its room: the table grows as before
		tb.SetStringField("tenth", v)
		if got := tb.RawGetString("tenth"); got != v || tb.RawGetString(keys[0]) != v {
			t.Errorf("a grown table of %d keys lost a key", n)
		}
	}
}
