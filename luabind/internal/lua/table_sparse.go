package lua

// Integer keys far past the end of a table's array part go to its hash part, as in C Lua.
// gopher-lua extended the array up to any key below MaxArrayIndex, filling the gap with
// nils: `t[67108863] = 1` allocated a gigabyte for one value. The array part now grows by
// at most arraySlack slots past its end at a time; a key further out is kept in the hash
// part (dict, with the other non-string keys) until the array reaches it.
//
// The invariant: no integer key in the hash part lies in 1..len(array)+1, so that the
// array holds every key up to its end and Len's border (the array's last non-nil value)
// is a border of the whole table. Every growth of the array moves into it the keys of the
// hash part it now covers, and the ones that follow it without a gap (grown).

// arraySlack is how far past the end of the array part an integer key may be and still
// extend it, with nils between.
const arraySlack = 64

// setInt sets the integer key 1 <= key < MaxArrayIndex.
func (tb *LTable) setInt(key int, value LValue) {
	index := key - 1
	alen := len(tb.array)
	switch {
	case index < alen:
		tb.array[index] = value
	case index == alen:
		tb.growing(1)
		if tb.array == nil {
			tb.array = make([]LValue, 0, defaultArrayCap)
		}
		tb.array = append(tb.array, value)
		tb.grown()
	case value == LNil: // nothing to store past the end
		if tb.dict != nil {
			tb.RawSetH(LNumber(key), LNil)
		}
	case index-alen < arraySlack:
		tb.growing(key - alen)
		for k := alen + 1; k < key; k++ {
			tb.array = append(tb.array, tb.takeSparse(k))
		}
		tb.array = append(tb.array, value)
		tb.grown()
	default:
		tb.RawSetH(LNumber(key), value)
	}
}

// grown keeps the invariant after the array part has grown by appending: the key at its
// new end, if the hash part had it too, is the array's now, and the keys that follow it in
// the hash part move to the array.
func (tb *LTable) grown() {
	if len(tb.dict) == 0 {
		return
	}
	n := len(tb.array)
	tb.takeSparse(n)
	for {
		v := tb.takeSparse(n + 1)
		if v == LNil {
			return
		}
		tb.growing(1)
		tb.array = append(tb.array, v)
		n++
	}
}

// takeSparse removes the integer key k from the hash part and returns its value (LNil
// when it had none).
func (tb *LTable) takeSparse(k int) LValue {
	if len(tb.dict) == 0 {
		return LNil
	}
	key := LNumber(k)
	v, ok := tb.dict[key]
	if !ok {
		return LNil
	}
	delete(tb.dict, key)
	return v
}

// sparseInt is the value of the integer key k past the end of the array part.
func (tb *LTable) sparseInt(k LNumber) LValue {
	if v, ok := tb.dict[k]; ok {
		return v
	}
	return LNil
}

// sparseMaxN is the largest positive integer key of the hash part, 0 if none.
func (tb *LTable) sparseMaxN() int {
	n := 0
	for k, v := range tb.dict {
		if f, ok := k.(LNumber); ok && v != LNil && isArrayKey(f) && int(f) > n {
			n = int(f)
		}
	}
	return n
}
