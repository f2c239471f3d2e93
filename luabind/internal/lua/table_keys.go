package lua

// The keys of a table's hash part are listed in the order they were first set (keys, with
// each key's position in k2i), for Next. gopher-lua never took a key out of the list: a
// table used as a set of ever new keys (a cache whose entries expire, a set of session ids)
// grew without bound while it held a few. A key removed from the table (set to nil) stays
// in the list, so that a traversal that clears fields goes on from it, as Lua allows; the
// list is compacted when a new key is added and removed keys make up half of it (adding a
// key during a traversal is undefined in Lua). Each compaction drops at least as many keys
// as the list then holds, so it costs O(1) per key added.

// minCompact is the shortest key list compacted.
const minCompact = 32

// addKey records key, which is not in the list, as the newest key of the hash part. The
// caller stores its value afterwards.
func (tb *LTable) addKey(key LValue) {
	tb.charge(memKey)
	if tb.k2i == nil {
		tb.keys, tb.k2i = []LValue{}, map[LValue]int{}
	}
	if n := len(tb.keys); n >= minCompact && n >= 2*(len(tb.strdict)+len(tb.dict)) {
		tb.compactKeys()
	}
	tb.k2i[key] = len(tb.keys)
	tb.keys = append(tb.keys, key)
}

// AddKey is addKey for a fast path outside the package that sets a key of the hash part
// itself, once it has found key missing from the list: it records key before the value is
// stored.
func (tb *LTable) AddKey(key LValue) {
	tb.promote(0)
	tb.addKey(key)
}

// compactKeys drops the keys the hash part no longer holds from the key list, keeping the
// order of the others.
func (tb *LTable) compactKeys() {
	n := len(tb.strdict) + len(tb.dict)
	keys := make([]LValue, 0, max(2*n, 8))
	k2i := make(map[LValue]int, n)
	for _, k := range tb.keys {
		if tb.RawGetH(k) != LNil {
			k2i[k] = len(keys)
			keys = append(keys, k)
		}
	}
	tb.keys, tb.k2i = keys, k2i
}
