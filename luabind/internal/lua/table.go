package lua

const defaultArrayCap = 32
const defaultHashCap = 32

// lValueArraySorter is table.sort's order over a table's array. The sort runs in Go as one
// instruction, n log n comparisons of a table that may hold millions of values: Less polls
// the context every sortPollInterval comparisons (a comparison function is Lua code, polled
// on its own too), so a sort stops at the call's timeout. It sorts in place and allocates
// nothing in proportion to the table.
type lValueArraySorter struct {
	L      *LState
	Fn     *LFunction
	Values []LValue
	steps  int
}

// sortPollInterval is how many comparisons table.sort makes between two polls.
const sortPollInterval = 256

func (lv *lValueArraySorter) Len() int {
	return len(lv.Values)
}

func (lv *lValueArraySorter) Swap(i, j int) {
	lv.Values[i], lv.Values[j] = lv.Values[j], lv.Values[i]
}

func (lv *lValueArraySorter) Less(i, j int) bool {
	if lv.steps++; lv.steps >= sortPollInterval {
		lv.steps = 0
		lv.L.pollContext()
	}
	if lv.Fn != nil {
		lv.L.Push(lv.Fn)
		lv.L.Push(lv.Values[i])
		lv.L.Push(lv.Values[j])
		lv.L.Call(2, 1)
		return LVAsBool(lv.L.reg.Pop())
	}
	return lessThan(lv.L, lv.Values[i], lv.Values[j])
}

func newLTable(acap int, hcap int) *LTable {
	if acap < 0 {
		acap = 0
	}
	if hcap < 0 {
		hcap = 0
	}
	var tb *LTable
	if hcap > 0 && hcap <= smallMax {
		tb = newSmallTable(hcap)
	} else {
		tb = &LTable{}
		if hcap > smallMax {
			tb.strdict = make(map[string]LValue, hcap)
		}
	}
	tb.Metatable = LNil
	if acap != 0 {
		tb.array = make([]LValue, 0, acap)
	}
	return tb
}

// newSmallTable is a table with room for n (1..smallMax) string keys, made with its fields
// in the same allocation: one allocation for the few fields of kwargs, answers and the
// tables handlers build, where a table and its slice of fields took two, for the same bytes.
// Should the table outgrow the room, or move to the maps, the room stays with it, unused.
func newSmallTable(n int) *LTable {
	var tb *LTable
	switch n {
	case 1:
		x := &struct {
			t LTable
			f [1]smallField
		}{}
		tb, x.t.small = &x.t, x.f[:0]
	case 2:
		x := &struct {
			t LTable
			f [2]smallField
		}{}
		tb, x.t.small = &x.t, x.f[:0]
	case 3:
		x := &struct {
			t LTable
			f [3]smallField
		}{}
		tb, x.t.small = &x.t, x.f[:0]
	case 4:
		x := &struct {
			t LTable
			f [4]smallField
		}{}
		tb, x.t.small = &x.t, x.f[:0]
	case 5:
		x := &struct {
			t LTable
			f [5]smallField
		}{}
		tb, x.t.small = &x.t, x.f[:0]
	case 6:
		x := &struct {
			t LTable
			f [6]smallField
		}{}
		tb, x.t.small = &x.t, x.f[:0]
	case 7:
		x := &struct {
			t LTable
			f [7]smallField
		}{}
		tb, x.t.small = &x.t, x.f[:0]
	default:
		x := &struct {
			t LTable
			f [smallMax]smallField
		}{}
		tb, x.t.small = &x.t, x.f[:0]
	}
	return tb
}

// Len returns length of this LTable without using __len.
func (tb *LTable) Len() int {
	if tb.array == nil {
		return 0
	}
	var prev LValue = LNil
	for i := len(tb.array) - 1; i >= 0; i-- {
		v := tb.array[i]
		if prev == LNil && v != LNil {
			return i + 1
		}
		prev = v
	}
	return 0
}

// Append appends a given LValue to this LTable.
func (tb *LTable) Append(value LValue) {
	if value == LNil {
		return
	}
	tb.growing(1)
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if len(tb.array) == 0 || tb.array[len(tb.array)-1] != LNil {
		tb.array = append(tb.array, value)
		tb.grown()
	} else {
		i := len(tb.array) - 2
		for ; i >= 0; i-- {
			if tb.array[i] != LNil {
				break
			}
		}
		tb.array[i+1] = value
	}
}

// Insert inserts a given LValue at position `i` in this table.
func (tb *LTable) Insert(i int, value LValue) {
	tb.growing(1)
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if i > len(tb.array) {
		tb.RawSetInt(i, value)
		return
	}
	if i <= 0 {
		tb.RawSet(LNumber(i), value)
		return
	}
	i -= 1
	tb.array = append(tb.array, LNil)
	tb.grown()
	copy(tb.array[i+1:], tb.array[i:])
	tb.array[i] = value
}

// MaxN returns a maximum number key that nil value does not exist before it.
func (tb *LTable) MaxN() int {
	n := 0
	for i := len(tb.array) - 1; i >= 0; i-- {
		if tb.array[i] != LNil {
			n = i + 1
			break
		}
	}
	return max(n, tb.sparseMaxN())
}

// Remove removes from this table the element at a given position.
func (tb *LTable) Remove(pos int) LValue {
	if tb.array == nil {
		return LNil
	}
	larray := len(tb.array)
	if larray == 0 {
		return LNil
	}
	i := pos - 1
	oldval := LNil
	switch {
	case i >= larray:
		// nothing to do
	case i == larray-1 || i < 0:
		oldval = tb.array[larray-1]
		tb.array = tb.array[:larray-1]
	default:
		oldval = tb.array[i]
		copy(tb.array[i:], tb.array[i+1:])
		tb.array[larray-1] = nil
		tb.array = tb.array[:larray-1]
	}
	return oldval
}

// RawSet sets a given LValue to a given index without the __newindex metamethod.
// It is recommended to use `RawSetString` or `RawSetInt` for performance
// if you already know the given LValue is a string or number.
func (tb *LTable) RawSet(key LValue, value LValue) {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			tb.setInt(int(v), value)
			return
		}
	case LString:
		tb.RawSetString(string(v), value)
		return
	}

	tb.RawSetH(key, value)
}

// RawSetInt sets a given LValue at a position `key` without the __newindex metamethod.
func (tb *LTable) RawSetInt(key int, value LValue) {
	if key < 1 || key >= MaxArrayIndex {
		tb.RawSetH(LNumber(key), value)
		return
	}
	tb.setInt(key, value)
}

// RawSetString sets a given LValue to a given string index without the __newindex metamethod.
func (tb *LTable) RawSetString(key string, value LValue) {
	// Small enough to inline: a constant key is then boxed once, statically, by the caller.
	tb.setString(LString(key), key, value, defaultHashCap)
}

// setString is RawSetString for key, boxed as lkey (the key list keeps that box), making
// the string part with room for hcap keys if the table has none. Like RawSetString, it adds
// a key to the key list once and leaves it there when the key is cleared. It is one of the
// writers of the string part, which change the table's version (fieldcache.go).
func (tb *LTable) setString(lkey LValue, key string, value LValue, hcap int) {
	tb.ver++
	if tb.isSmall() {
		if tb.smallSet(lkey, key, value) {
			return
		}
		tb.promote(hcap)
	}
	if tb.strdict == nil {
		tb.charge(mapMemory(hcap))
		tb.strdict = make(map[string]LValue, hcap)
	}
	if value == LNil {
		delete(tb.strdict, key) // the key list keeps it (table_keys.go)
		return
	}
	if _, ok := tb.k2i[lkey]; !ok {
		tb.addKey(lkey)
	}
	tb.strdict[key] = value
}

// RawSetH sets a given LValue to a given index without the __newindex metamethod.
func (tb *LTable) RawSetH(key LValue, value LValue) {
	if s, ok := key.(LString); ok {
		tb.RawSetString(string(s), value)
		return
	}
	if tb.isSmall() {
		if value == LNil {
			return // a small table holds no such key
		}
		tb.promote(0)
	}
	if tb.dict == nil {
		tb.charge(mapMemory(len(tb.strdict)))
		tb.dict = make(map[LValue]LValue, len(tb.strdict))
	}
	if value == LNil {
		delete(tb.dict, key) // the key list keeps it (table_keys.go)
		return
	}
	if _, ok := tb.k2i[key]; !ok {
		tb.addKey(key)
	}
	tb.dict[key] = value
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGet(key LValue) LValue {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			index := int(v) - 1
			if index >= len(tb.array) {
				return tb.sparseInt(v)
			}
			return tb.array[index]
		}
	case LString:
		return tb.RawGetString(string(v))
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetInt returns an LValue at position `key` without __index metamethod.
func (tb *LTable) RawGetInt(key int) LValue {
	index := int(key) - 1
	if index >= len(tb.array) || index < 0 {
		return tb.sparseInt(LNumber(key))
	}
	return tb.array[index]
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetH(key LValue) LValue {
	if s, sok := key.(LString); sok {
		return tb.RawGetString(string(s))
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetString returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetString(key string) LValue {
	if tb.strdict == nil {
		return tb.smallGet(key)
	}
	if v, vok := tb.strdict[string(key)]; vok {
		return v
	}
	return LNil
}

// ForEach iterates over this table of elements, yielding each in turn to a given function.
func (tb *LTable) ForEach(cb func(LValue, LValue)) {
	if tb.array != nil {
		for i, v := range tb.array {
			if v != LNil {
				cb(LNumber(i+1), v)
			}
		}
	}
	for i := range tb.small {
		if f := &tb.small[i]; f.v != LNil {
			cb(f.key(), f.v)
		}
	}
	if tb.strdict != nil {
		for k, v := range tb.strdict {
			if v != LNil {
				cb(LString(k), v)
			}
		}
	}
	if tb.dict != nil {
		for k, v := range tb.dict {
			if v != LNil {
				cb(k, v)
			}
		}
	}
}

// This function is equivalent to lua_next ( http://www.lua.org/manual/5.1/manual.html#lua_next ).
func (tb *LTable) Next(key LValue) (LValue, LValue) {
	if tb.isSmall() {
		return tb.smallNext(key)
	}
	init := false
	if key == LNil {
		key = LNumber(0)
		init = true
	}

	if init || key != LNumber(0) {
		if kv, ok := key.(LNumber); ok && isInteger(kv) && int(kv) >= 0 && int(kv) <= len(tb.array) {
			index := int(kv)
			if tb.array != nil {
				for ; index < len(tb.array); index++ {
					if v := tb.array[index]; v != LNil {
						return LNumber(index + 1), v
					}
				}
			}
			if tb.array == nil || index == len(tb.array) {
				if (tb.dict == nil || len(tb.dict) == 0) && (tb.strdict == nil || len(tb.strdict) == 0) {
					return LNil, LNil
				}
				key = tb.keys[0]
				if v := tb.RawGetH(key); v != LNil {
					return key, v
				}
			}
		}
	}

	for i := tb.k2i[key] + 1; i < len(tb.keys); i++ {
		key := tb.keys[i]
		if v := tb.RawGetH(key); v != LNil {
			return key, v
		}
	}
	return LNil, LNil
}
