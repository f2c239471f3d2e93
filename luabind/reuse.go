package luabind

import (
	"slices"

	"github.com/hermes-hooks/hermes/luabind/internal/kwflow"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// Building a Lua table is most of what a short callback costs: gopher-lua gives every new
// table three maps and a slice. A state therefore keeps, per callback, the kwargs table it
// passed last time and refills it in place, setting only the fields whose values changed.
// It does so only when the callback's bytecode shows that it cannot tell (kwflow): the
// callback only reads the table, and no closure can reach it. A refilled table always holds
// exactly the keys of the Go value, as a new one would.

// kwTable is the kwargs table one state passes to every call of one callback. In the
// steady state (same keys, same order, most values unchanged) a refill writes nothing but
// the changed values: not even its own bookkeeping, since anything written on every call
// may share a cache line with another state's. The table holds exactly what the last fill
// put in it (the callback never writes into it), so values are compared with a copy kept
// here (vals) rather than looked up in the table.
type kwTable struct {
	_        cacheLinePad
	t        *lua.LTable
	use      kwflow.Use   // which table-valued fields are refilled too (Use.Refill)
	keys     []string     // the keys the last fill set
	vals     []lua.LValue // and their values
	unread   []bool       // and whether the callback never sees them (kwflow.Use.Unread)
	refill   []bool       // and whether a table in them may be refilled (kwflow.Use.Refill)
	pos      int          // a Table fill in progress set keys[:pos] again, in order
	diverged bool         // ... until it set another key: cur then has all it set
	cur      []string     //
	fields   []field      // refilled table-valued fields
	added    int          // keys added since the table was made (see begin)
	_        cacheLinePad
}

// field is a table-valued field of a kwTable, refilled in turn.
type field struct {
	key string
	t   *kwTable
}

// maxKeyChurn bounds how many keys a reused table may have seen added: gopher-lua never
// forgets a key once set, so a table refilled with ever-new keys is rebuilt past it.
const maxKeyChurn = 256

// maxScan is the size up to which a map fill finds a key's copy by scanning keys.
const maxScan = 8

// newKWTable makes the refilled table of a function that does use with it.
func newKWTable(use kwflow.Use) *kwTable { return &kwTable{use: use} }

// begin starts a fill.
func (k *kwTable) begin(L *lua.LState, hint int) {
	if k.t == nil || k.added > maxKeyChurn {
		k.t, k.keys, k.vals, k.unread, k.refill, k.added = L.CreateTable(0, hint), k.keys[:0], k.vals[:0], k.unread[:0], k.refill[:0], 0
		k.fields = k.fields[:0]
	}
}

// old is the value field key holds; i is where vals keeps it (-1: not kept).
func (k *kwTable) old(i int, key string) lua.LValue {
	if i >= 0 {
		return k.vals[i]
	}
	return k.t.RawGetString(key)
}

// set sets field key (kept at vals[i], or i < 0) to v when it differs from what it holds.
func (k *kwTable) set(i int, key string, v lua.LValue) {
	if old := k.old(i, key); old != v {
		k.store(i, key, old, v)
	}
}

func (k *kwTable) store(i int, key string, old, v lua.LValue) {
	switch {
	case old == lua.LNil:
		k.added++
		k.t.RawSetString(key, v)
	default:
		k.t.ReplaceString(key, v)
	}
	if i >= 0 {
		k.vals[i] = v
	}
}

// setString is set for a string, without boxing it when it did not change, nor when the
// callback never sees the field (stale).
func (k *kwTable) setString(L *lua.LState, i int, key, v string) {
	old := k.old(i, key)
	if s, ok := old.(lua.LString); ok && string(s) == v || k.stale(i, old) {
		return
	}
	k.store(i, key, old, L.StringValue(v))
}

func (k *kwTable) setNumber(i int, key string, v lua.LNumber) {
	old := k.old(i, key)
	if n, ok := old.(lua.LNumber); ok && n == v || k.stale(i, old) {
		return
	}
	k.store(i, key, old, stdlib.BoxNumber(float64(v)))
}

// stale reports whether the field kept at vals[i], holding old, may keep it although the
// call's value differs: the callback never looks the field up, and kw never leaves it
// (kwflow.Use.Unread), so nothing can see the value, and boxing the new one would be
// wasted. The field keeps a value, so that the table holds every key of the call as always.
func (k *kwTable) stale(i int, old lua.LValue) bool {
	return i >= 0 && k.unread[i] && old != lua.LNil
}

// setValue is set for any Go value, converted like toLua. Maps in fields the callback only
// reads are refilled too, and a table-valued field it never looks up is not converted.
func (k *kwTable) setValue(L *lua.LState, i int, key string, v any) {
	switch x := v.(type) {
	case string:
		k.setString(L, i, key, x)
		return
	case bool:
		k.set(i, key, lua.LBool(x))
		return
	case int:
		k.setNumber(i, key, lua.LNumber(x))
		return
	case int64:
		k.setNumber(i, key, lua.LNumber(x))
		return
	case float64:
		k.setNumber(i, key, lua.LNumber(x))
		return
	case nil:
		k.set(i, key, lua.LNil)
		return
	}
	if k.unreadAt(i, key) {
		k.setUnread(L, i, key)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if k.refillAt(i, key) {
			f := k.field(key)
			f.fillMap(L, x)
			k.set(i, key, f.t)
			return
		}
	case []any:
		if len(x) == 0 && k.refillAt(i, key) { // an empty list (a turn's first history): the kept empty table
			f := k.field(key)
			f.fillMap(L, nil)
			k.set(i, key, f.t)
			return
		}
	}
	k.set(i, key, toLua(L, v))
}

// unreadAt is k.use.Unread(key) for the field kept at vals[i] (i < 0: not kept).
func (k *kwTable) unreadAt(i int, key string) bool {
	if i >= 0 {
		return k.unread[i]
	}
	return k.use.Unread(key)
}

// refillAt is k.use.Refill(key) for the field kept at vals[i] (i < 0: not kept).
func (k *kwTable) refillAt(i int, key string) bool {
	if i >= 0 {
		return k.refill[i]
	}
	return k.use.Refill(key)
}

// setUnread sets field key, which the callback never looks up, without converting its
// value. The callback cannot see it (kwflow: it never reads the key, and kw never leaves
// it), so converting it would be wasted: a conversation history of a thousand messages is a
// thousand tables. The key keeps a value, the kept empty table, so that the table holds
// every key of the call as always.
func (k *kwTable) setUnread(L *lua.LState, i int, key string) {
	f := k.field(key)
	f.fillMap(L, nil)
	k.set(i, key, f.t)
}

// field returns the kwTable of field key, made on first use.
func (k *kwTable) field(key string) *kwTable {
	for _, f := range k.fields {
		if f.key == key {
			return f.t
		}
	}
	// What the callback looks up in the field's table is known (kwflow.Use.Field), what it
	// reads out of it is not: the tables in it are new for every call, or, never looked up,
	// not converted.
	f := field{key, newKWTable(k.use.Field(key))}
	k.fields = append(k.fields, f)
	return f.t
}

// fillMap refills the table with m.
func (k *kwTable) fillMap(L *lua.LState, m map[string]any) {
	k.begin(L, len(m))
	if len(m) == len(k.keys) && len(m) <= maxScan && k.refillSameKeys(L, m) {
		return
	}
	for key, v := range m {
		i := -1
		if len(k.keys) <= maxScan {
			for j, old := range k.keys {
				if old == key {
					i = j
					break
				}
			}
		}
		k.setValue(L, i, key, v)
	}
	same := len(m) == len(k.keys)
	for _, old := range k.keys {
		if _, ok := m[old]; !ok {
			same = false
			k.t.RawSetString(old, lua.LNil)
		}
	}
	if !same {
		k.keys = k.keys[:0]
		for key := range m {
			k.keys = append(k.keys, key)
		}
		k.shadow()
	}
}

// refillSameKeys refills the table from m by looking up the last fill's keys in m, which
// costs less than ranging over m, and reports whether m has all of them (and, being of the
// same size, no other).
func (k *kwTable) refillSameKeys(L *lua.LState, m map[string]any) bool {
	for i, key := range k.keys {
		v, ok := m[key]
		if !ok {
			return false
		}
		k.setValue(L, i, key, v)
	}
	return true
}

// fillTable refills the table with a Table.
func (k *kwTable) fillTable(L *lua.LState, tb Table) {
	k.begin(L, tb.FieldCount())
	k.pos, k.diverged = 0, false
	tb.FillLua(TableWriter{l: L, kw: k})
	if k.diverged || k.pos != len(k.keys) {
		if !k.diverged { // a prefix of the last keys
			k.cur = append(k.cur[:0], k.keys[:k.pos]...)
		}
		for _, old := range k.keys {
			if !slices.Contains(k.cur, old) {
				k.t.RawSetString(old, lua.LNil)
			}
		}
		k.keys, k.cur = k.cur, k.keys
		k.shadow()
	}
}

// sameString is the steady state of a Table fill's String: key comes where it came last
// time and holds v already. It then records the key as set and reports true; else it does
// nothing (setString does it all).
func (k *kwTable) sameString(key, v string) bool {
	if k.diverged || k.pos >= len(k.keys) || k.keys[k.pos] != key {
		return false
	}
	if s, ok := k.vals[k.pos].(lua.LString); !ok || string(s) != v {
		return false
	}
	k.pos++
	return true
}

// index says where a Table fill keeps key's value (vals[i], or -1: not kept), and that the
// key is to be set: every key is, so that the table holds all of the call's kwargs.
func (k *kwTable) index(key string) (int, bool) { return k.at(key), true }

// at records that a Table fill sets key and returns where its value is kept (vals[i]), or
// -1 once the fill has left the last one's order.
func (k *kwTable) at(key string) int {
	if !k.diverged {
		if k.pos < len(k.keys) && k.keys[k.pos] == key {
			k.pos++
			return k.pos - 1
		}
		k.diverged = true
		k.cur = append(k.cur[:0], k.keys[:k.pos]...)
	}
	k.cur = append(k.cur, key)
	return -1
}

// shadow copies the values of keys out of the table, after the keys changed.
func (k *kwTable) shadow() {
	k.vals, k.unread, k.refill = k.vals[:0], k.unread[:0], k.refill[:0]
	for _, key := range k.keys {
		k.vals = append(k.vals, k.t.RawGetString(key))
		k.unread = append(k.unread, k.use.Unread(key))
		k.refill = append(k.refill, k.use.Refill(key))
	}
}
