package luabind

import (
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Building a Lua table is most of what a short callback costs: gopher-lua gives every new
// table three maps and a slice. A state therefore keeps, per callback, the kwargs table it
// passed last time and refills it in place, setting only the fields whose values changed.
// This is invisible to the callback when its bytecode shows that it only reads the table
// (escape.go); Options.ReuseKwargs forces it for every callback.

// kwTable is the kwargs table one state passes to every call of one callback. In the
// steady state (same keys, same order, most values unchanged) a refill writes nothing but
// the changed values: not even its own bookkeeping, since anything written on every call
// may share a cache line with another state's.
type kwTable struct {
	_        cacheLinePad
	t        *lua.LTable
	use      kwargsUse
	forced   bool                // reused without the analysis' clearance: Lua may have changed it
	keys     []string            // the keys the last fill set
	pos      int                 // a Table fill in progress set keys[:pos] again, in order
	diverged bool                // ... until it set another key: cur then has all it set
	cur      []string            //
	fields   map[string]*kwTable // refilled table-valued fields
	added    int                 // keys added since the table was made (see begin)
	_        cacheLinePad
}

// maxKeyChurn bounds how many keys a reused table may have seen added: gopher-lua never
// forgets a key once set, so a table refilled with ever-new keys is rebuilt past it.
const maxKeyChurn = 256

func newKWTable(use kwargsUse, forced bool) *kwTable {
	return &kwTable{use: use, forced: forced}
}

// begin starts a fill.
func (k *kwTable) begin(L *lua.LState, hint int) {
	if k.t == nil || k.added > maxKeyChurn {
		k.t, k.keys, k.added = L.CreateTable(0, hint), k.keys[:0], 0
		clear(k.fields)
	}
	if k.forced {
		k.t.Metatable = lua.LNil
	}
}

// set sets field key to v when it differs from what the table holds.
func (k *kwTable) set(key string, v lua.LValue) {
	old := k.t.RawGetString(key)
	if old == v {
		return
	}
	if old == lua.LNil {
		k.added++
	}
	k.t.RawSetString(key, v)
}

// setString is set for a string, without boxing it when it did not change.
func (k *kwTable) setString(key, v string) {
	if old, ok := k.t.RawGetString(key).(lua.LString); ok && string(old) == v {
		return
	}
	k.set(key, lua.LString(v))
}

func (k *kwTable) setNumber(key string, v lua.LNumber) {
	if old, ok := k.t.RawGetString(key).(lua.LNumber); ok && old == v {
		return
	}
	k.set(key, v)
}

// setValue is set for any Go value, converted like toLua. Maps in fields the callback only
// reads are refilled too.
func (k *kwTable) setValue(L *lua.LState, key string, v any) {
	switch x := v.(type) {
	case string:
		k.setString(key, x)
		return
	case bool:
		k.set(key, lua.LBool(x))
		return
	case int:
		k.setNumber(key, lua.LNumber(x))
		return
	case int64:
		k.setNumber(key, lua.LNumber(x))
		return
	case float64:
		k.setNumber(key, lua.LNumber(x))
		return
	case map[string]any:
		if !k.forced && k.use.reuseField(key) {
			f := k.fields[key]
			if f == nil {
				if k.fields == nil {
					k.fields = map[string]*kwTable{}
				}
				// What is read out of a field is not tracked: its own tables are fresh.
				f = newKWTable(kwargsUse{readOnly: true, anyField: true}, false)
				k.fields[key] = f
			}
			f.fillMap(L, x)
			k.set(key, f.t)
			return
		}
	}
	k.set(key, toLua(L, v))
}

// fillMap refills the table with m.
func (k *kwTable) fillMap(L *lua.LState, m map[string]any) {
	k.begin(L, len(m))
	for key, v := range m {
		k.setValue(L, key, v)
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
	}
	k.scrub()
}

// fillTable refills the table with a Table.
func (k *kwTable) fillTable(L *lua.LState, tb Table) {
	k.begin(L, tb.FieldCount())
	k.pos, k.diverged = 0, false
	tb.FillLua(TableWriter{L: L, kw: k})
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
	}
	k.scrub()
}

// note records that a Table fill set key.
func (k *kwTable) note(key string) {
	if !k.diverged {
		if k.pos < len(k.keys) && k.keys[k.pos] == key {
			k.pos++
			return
		}
		k.diverged = true
		k.cur = append(k.cur[:0], k.keys[:k.pos]...)
	}
	k.cur = append(k.cur, key)
}

// scrub removes from a forced table whatever the callback added to it.
func (k *kwTable) scrub() {
	if !k.forced {
		return
	}
	k.t.ForEach(func(key, _ lua.LValue) {
		if s, ok := key.(lua.LString); !ok || !slices.Contains(k.keys, string(s)) {
			k.t.RawSet(key, lua.LNil)
		}
	})
}
