package lua

// Inline caches of the lookups whose key is a constant string: OP_GETGLOBAL (`string` in
// `string.find`) and OP_GETTABLEKS (`.find`). Each closure keeps, per constant of its
// prototype, the table it last found the key in, that table's version and the value found.
// A table's version changes with every write of a string key (setString and ReplaceString,
// the only writers of its string part), so a lookup whose table and version match returns
// the value without hashing the key. Only values found in the table itself
// are kept: a key missing there goes through __index as before, every time.
//
// The cache belongs to the closure, and so to one Lua state and one goroutine at a time
// (prototypes are shared by the states of a pool and may not hold it). A closure makes its
// cache at its fieldCacheAfter-th lookup, so a closure made and dropped per call does not
// pay for it.

// fieldCache is what one constant's last lookup found.
type fieldCache struct {
	tb  *LTable
	ver uint64
	v   LValue
}

// fieldCaches are a closure's caches, one per constant of its prototype, made once it has
// looked fieldCacheAfter keys up.
type fieldCaches struct {
	entries []fieldCache
	lookups uint8
}

const (
	fieldCacheAfter = 8
	memFieldCache   = 40 // bytes of one entry
)

// getStringCached is getFieldString(obj, key) for the constant k of fn, through fn's cache.
func (ls *LState) getStringCached(fn *LFunction, k int, obj LValue, key string) LValue {
	tb, ok := obj.(*LTable)
	if !ok {
		return ls.getFieldString(obj, key)
	}
	c := &fn.fields
	if c.entries != nil {
		if e := &c.entries[k]; e.tb == tb && e.ver == tb.ver {
			return e.v
		}
	} else if c.lookups++; c.lookups >= fieldCacheAfter {
		n := len(fn.Proto.Constants)
		ls.mem.charge(int64(n) * memFieldCache)
		c.entries = make([]fieldCache, n)
	}
	v := tb.RawGetString(key)
	if v == LNil {
		return ls.getFieldString(obj, key) // __index, every time
	}
	if c.entries != nil {
		c.entries[k] = fieldCache{tb: tb, ver: tb.ver, v: v}
	}
	return v
}
