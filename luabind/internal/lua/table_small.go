package lua

// A table's hash part starts small: while it holds only string keys, at most smallMax of
// them, they are kept in a slice of fields (key, boxed key, value) in the order they were
// first set, and looked up by comparing strings, with no Go map and no key list. The
// kwargs of a call, its args and the answers of a hook are such tables: a map, a key list
// and its index cost them four allocations and hashing for a handful of keys.
//
// The slice is the small form of the key list and the string part together (table_keys.go):
// a cleared key keeps its field, with the value LNil, as it keeps its place in the key
// list, so that a traversal that clears fields goes on, and a key set again keeps its place.
// The table moves to the maps (promote) when a string key beyond smallMax or any other hash
// key (a table, a float, an integer far past the array part) is set, or when a key list for
// more keys is asked for (ReserveKeys); it then holds the same keys in the same order. Next,
// Pairs and ForEach give the pairs in the order the maps would.

// smallMax is the number of string keys a table holds without maps.
const smallMax = 8

// memSmallField is the bytes of one field of a small table's slice.
const memSmallField = 48

// smallField is one string key of a small table.
type smallField struct {
	s string // the key
	k LValue // the key, boxed once (Next gives it); nil until asked for when set by SetStringField
	v LValue // LNil once cleared
}

// key is the field's key as a Lua value, boxed the first time it is asked for.
func (f *smallField) key() LValue {
	if f.k == nil {
		f.k = LString(f.s)
	}
	return f.k
}

// SetStringField is RawSetString for a key the caller has as a Go string (not a constant):
// a small table keeps the string and boxes it only when a traversal first gives the key, so
// that a table built from Go and read by field (kwargs passed on to a helper) costs no box
// per key. Any other table boxes it as RawSetString does.
func (tb *LTable) SetStringField(key string, value LValue) {
	if tb.isSmall() {
		tb.ver++
		if tb.smallSet(nil, key, value) {
			return
		}
		tb.promote(defaultHashCap)
	}
	tb.setString(LString(key), key, value, defaultHashCap)
}

// isSmall reports whether tb keeps its string keys in tb.small: it has no maps and no key
// list.
func (tb *LTable) isSmall() bool {
	return tb.strdict == nil && tb.dict == nil && tb.k2i == nil
}

// smallGet is tb[key] of a small table.
func (tb *LTable) smallGet(key string) LValue {
	for i := range tb.small {
		if tb.small[i].s == key {
			return tb.small[i].v
		}
	}
	return LNil
}

// smallSet sets tb[key] in a small table, and reports false, having changed nothing, when
// the key is new and the table is full: the caller promotes it then.
func (tb *LTable) smallSet(lkey LValue, key string, value LValue) bool {
	for i := range tb.small {
		if tb.small[i].s == key {
			tb.small[i].v = value
			return true
		}
	}
	if value == LNil {
		return true // nothing to clear
	}
	if len(tb.small) >= smallMax {
		return false
	}
	if len(tb.small) == cap(tb.small) {
		n := max(2*cap(tb.small), 2)
		tb.charge(int64(n-cap(tb.small)) * memSmallField)
		grown := make([]smallField, len(tb.small), min(n, smallMax))
		copy(grown, tb.small)
		tb.small = grown
	}
	tb.small = append(tb.small, smallField{s: key, k: lkey, v: value})
	return true
}

// smallLive counts the keys of a small table that hold a value.
func (tb *LTable) smallLive() int {
	n := 0
	for i := range tb.small {
		if tb.small[i].v != LNil {
			n++
		}
	}
	return n
}

// promote moves a small table's keys to the maps and the key list, in their order (hcap:
// room for at least so many string keys).
func (tb *LTable) promote(hcap int) {
	if !tb.isSmall() || len(tb.small) == 0 {
		tb.small = nil
		return
	}
	n := len(tb.small)
	tb.charge(mapMemory(max(n, hcap)) + int64(n)*memKey)
	tb.strdict = make(map[string]LValue, max(n, hcap))
	tb.keys, tb.k2i = make([]LValue, 0, max(2*n, 8)), make(map[LValue]int, 2*n)
	for i := range tb.small {
		f := &tb.small[i]
		k := f.key()
		tb.k2i[k] = len(tb.keys)
		tb.keys = append(tb.keys, k)
		if f.v != LNil {
			tb.strdict[f.s] = f.v
		}
	}
	tb.small = nil
}

// smallNext is Next for a small table: after the array part, its fields in order.
func (tb *LTable) smallNext(key LValue) (LValue, LValue) {
	init := false
	if key == LNil {
		key = LNumber(0)
		init = true
	}
	if init || key != LNumber(0) {
		if kv, ok := key.(LNumber); ok && isInteger(kv) && int(kv) >= 0 && int(kv) <= len(tb.array) {
			for index := int(kv); index < len(tb.array); index++ {
				if v := tb.array[index]; v != LNil {
					return LNumber(index + 1), v
				}
			}
			return tb.smallFrom(0)
		}
	}
	// After a key of the hash part, from the field that follows it; a key the table never
	// listed goes on from the second field, as the maps' key index gives 0 for it.
	at := 0
	if s, ok := key.(LString); ok {
		for i := range tb.small {
			if tb.small[i].s == string(s) {
				at = i
				break
			}
		}
	}
	return tb.smallFrom(at + 1)
}

// smallFrom gives the first field from i on that holds a value.
func (tb *LTable) smallFrom(i int) (LValue, LValue) {
	for ; i < len(tb.small); i++ {
		if f := &tb.small[i]; f.v != LNil {
			return f.key(), f.v
		}
	}
	return LNil, LNil
}
