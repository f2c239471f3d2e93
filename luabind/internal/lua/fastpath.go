package lua

import (
	"iter"
	"strings"
)

// The interpreter's fast paths: steps some instructions do themselves in the common case,
// with the results the plain way gives (Options.SkipFastPaths turns them off, for
// differential tests). Everything else goes the plain way.

// A Builtin names a step the interpreter can take itself in place of calling a Go function
// (LFunction.Builtin): by setting it, the function's author promises that, for the
// arguments the step takes, the function computes what the step does. The interpreter
// calls the function for any other arguments.
type Builtin uint8

const (
	// NoBuiltin: the function is always called.
	NoBuiltin Builtin = iota
	// BuiltinIpairsIter: ipairs' iterator. Called with a table t and a number i, it returns
	// i+1 and t[i+1] (RawGetInt), or nothing when that is nil. OP_TFORLOOP takes the step
	// itself for a table and a number.
	BuiltinIpairsIter
	// BuiltinStringFind: string.find. Called with strings s and p, an init that is a number
	// or nil (default 1; truncated, then counted from the end when negative, and clamped to
	// the string as C Lua 5.1 does), and a plain search (a true fourth argument, or p free of
	// the pattern characters ^$*+?.([%-), it returns the first and last index of p in s from
	// init, or nil. OP_CALL takes the call itself for such arguments.
	BuiltinStringFind
)

// IntValue is i as a Lua value, boxed once for 0..4095: converting an LNumber to an LValue
// allocates 8 bytes.
func IntValue(i int) LValue {
	if i >= 0 && i < len(boxedInts) {
		return boxedInts[i]
	}
	return LNumber(i)
}

// setTopAfterCall ends a step that stands for a call as the call would have ended: the top
// is set after the results, and the registers from there up to the old top, or to hi (where
// the call's own frame reached), are cleared.
func (rg *registry) setTopAfterCall(top, hi int) {
	// A few registers at most, cleared one by one; to nil, as every register holds a Lua
	// value (PATCHES.md 27).
	for i, end := top, min(max(hi, rg.top), len(rg.array)); i < end; i++ {
		rg.array[i] = LNil
	}
	rg.top = top
}

// ipairsStep is OP_TFORLOOP A C for ipairs' iterator (BuiltinIpairsIter): R(A+3..A+2+C) :=
// R(A)(R(A+1), R(A+2)); if R(A+3) ~= nil then R(A+2) := R(A+3) and the jump back that
// follows is taken, else it is skipped. It reports false, having changed nothing, when the
// instruction is not that.
func (L *LState) ipairsStep(inst uint32) bool {
	if L.Options.SkipFastPaths {
		return false
	}
	cf, rg := L.currentFrame, L.reg
	ra := cf.LocalBase + int(inst>>18)&0xff
	c := int(inst>>9) & 0x1ff
	if c < 1 || ra+3+c > len(rg.array) {
		return false
	}
	fn, ok := rg.array[ra].(*LFunction)
	if !ok || !fn.IsG || fn.Builtin != BuiltinIpairsIter {
		return false
	}
	tb, ok := rg.array[ra+1].(*LTable)
	n, ok2 := rg.array[ra+2].(LNumber)
	if !ok || !ok2 {
		return false
	}
	i := int(n) + 1
	v := tb.RawGetInt(i)
	hi := ra + 6 // the call of the iterator: two arguments above R(A+3), then its results
	if v != LNil {
		hi += 2
	}
	if p := cf.Fn.Proto; v != LNil && p.findLoops != nil {
		if l := findLoopFor(p, cf.Pc-1); l != nil {
			var skipped bool
			if i, v, skipped = L.skipMisses(l, cf, tb, i, v); skipped {
				// The registers as the elements passed over left them: the control at
				// the last one, their calls' temporaries cleared.
				hi = max(hi, cf.LocalBase+max(l.hi, l.callA+2+l.nargs))
				if v == LNil {
					rg.array[ra+2] = IntValue(i)
				}
			}
		}
	}
	out := rg.array[ra+3 : ra+3+c]
	for k := range out {
		out[k] = LNil
	}
	rg.setTopAfterCall(ra+3+c, hi)
	if v == LNil {
		cf.Pc++ // skip the jump back
		return true
	}
	out[0] = IntValue(i)
	if c > 1 {
		out[1] = v
	}
	rg.array[ra+2] = out[0]
	jmp := cf.Fn.Proto.Code[cf.Pc]
	cf.Pc += int(jmp&0x3ffff) - opMaxArgSbx + 1
	return true
}

// findSpecials are the characters that make string.find match a pattern rather than search
// for a plain string.
const findSpecials = "^$*+?.([%-"

// IntArg is a number argument of a string function as an integer, as luaL_checkinteger
// reads it: truncated, NaN as 0, clamped to ±2^53 so that index arithmetic cannot overflow.
func IntArg(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f > 1<<53:
		return 1 << 53
	case f < -(1 << 53):
		return -(1 << 53)
	}
	return int64(f)
}

// findStart converts a 1-based, possibly negative, init to an offset in a string of n
// bytes, clamped to 0..n as C Lua 5.1 does.
func findStart(init int64, n int) int {
	if init < 0 {
		init += int64(n) + 1
	}
	return int(min(max(init-1, 0), int64(n)))
}

// plainFind is OP_CALL A B C when R(A) is string.find (BuiltinStringFind) called with
// arguments it answers without a pattern: the results go to R(A).. as the call would put
// them. It reports false, having changed nothing, for any other call. Like the call of a Go
// function it stands for, it polls the context first.
func (L *LState) plainFind(inst uint32) bool {
	if L.Options.SkipFastPaths {
		return false
	}
	cf, rg := L.currentFrame, L.reg
	ra := cf.LocalBase + int(inst>>18)&0xff
	b, c := int(inst&0x1ff), int(inst>>9)&0x1ff
	nargs := b - 1
	if nargs < 2 || nargs > 4 || ra+nargs >= len(rg.array) || ra+max(c-1, 2) > len(rg.array) {
		return false
	}
	src, ok := rg.array[ra+1].(LString)
	pat, ok2 := rg.array[ra+2].(LString)
	if !ok || !ok2 {
		return false
	}
	init := int64(1)
	if nargs >= 3 {
		switch n := rg.array[ra+3].(type) {
		case LNumber:
			init = IntArg(float64(n))
		default:
			if n != LNil {
				return false
			}
		}
	}
	if !(nargs == 4 && LVAsBool(rg.array[ra+4])) && strings.ContainsAny(string(pat), findSpecials) {
		return false
	}
	L.pollContext()
	from := findStart(init, len(src))
	var r0, r1 LValue = LNil, LNil
	nres := 1
	if i := strings.Index(string(src[from:]), string(pat)); i >= 0 {
		r0, r1, nres = IntValue(from+i+1), IntValue(from+i+len(pat)), 2
	}
	n := c - 1
	if c == 0 { // all results
		n = nres
	}
	if n > 0 {
		rg.array[ra] = r0
	}
	if n > 1 {
		rg.array[ra+1] = r1
	}
	for k := 2; k < n; k++ {
		rg.array[ra+k] = LNil
	}
	rg.setTopAfterCall(ra+n, ra+1+nargs+nres)
	return true
}

// setStringKey is OP_SETTABLE or OP_SETTABLEKS A B C, R(A)[RK(B)] := RK(C), for a table
// without a metatable and a string key: what RawSetString does, with the key the
// instruction holds (a constant, or the register's value) rather than a new box of it. It
// reports false, having changed nothing, for anything else.
func (L *LState) setStringKey(inst uint32) bool {
	if L.Options.SkipFastPaths {
		return false
	}
	tb, ok := L.reg.array[L.currentFrame.LocalBase+int(inst>>18)&0xff].(*LTable)
	if !ok || tb.Metatable != LNil {
		return false
	}
	key := L.rkValue(int(inst & 0x1ff))
	ks, ok := key.(LString)
	if !ok {
		return false
	}
	tb.setString(key, string(ks), L.rkValue(int(inst>>9)&0x1ff), 4) // a table built key by key: a small map first
	return true
}

// ReserveKeys gives tb, a table that has never held a key outside its array part, a key
// list with room for n keys, which RawSetString would otherwise grow key by key. It does
// nothing to a table that has held such a key.
func (tb *LTable) ReserveKeys(n int) {
	if tb.isSmall() && n <= smallMax {
		if n > cap(tb.small) {
			tb.charge(int64(n-cap(tb.small)) * memSmallField)
			small := make([]smallField, len(tb.small), n)
			copy(small, tb.small)
			tb.small = small
		}
		return
	}
	tb.promote(n)
	if tb.keys == nil && n > 0 {
		tb.charge(int64(n) * memKey)
		tb.keys, tb.k2i = make([]LValue, 0, n), make(map[LValue]int, n)
	}
}

// ReplaceString is RawSetString(key, value) for a key tb probably holds already: when it
// does, the value is replaced without looking the key up in the key list (where
// RawSetString boxes the key, an allocation, to look it up).
func (tb *LTable) ReplaceString(key string, value LValue) {
	if value != LNil && tb.isSmall() {
		for i := range tb.small {
			if tb.small[i].s == key {
				tb.ver++
				tb.small[i].v = value
				return
			}
		}
	}
	if value != LNil && tb.strdict != nil && tb.k2i != nil {
		tb.ver++
		n := len(tb.strdict)
		tb.strdict[key] = value
		if len(tb.strdict) == n {
			return // a key strdict held is in the key list
		}
		var lkey LValue = LString(key) // boxed once, for the lookup and the key list
		if _, ok := tb.k2i[lkey]; !ok {
			tb.addKey(lkey)
		}
		return
	}
	tb.RawSetString(key, value)
}

// Pairs walks tb's pairs in the order Next gives them: the array part, then the other keys
// in the order they were first set. Next finds where it was on every step (a lookup of the
// key in the key list, then of its value: two hash lookups per pair, and a box for every
// array index); this walk keeps its place, and boxes no index below 4096. The table must
// not change during the walk.
func (tb *LTable) Pairs() iter.Seq2[LValue, LValue] {
	return func(yield func(k, v LValue) bool) {
		for i, v := range tb.array {
			if v != LNil && v != nil && !yield(IntValue(i+1), v) {
				return
			}
		}
		for i := range tb.small {
			if f := &tb.small[i]; f.v != LNil && !yield(f.key(), f.v) {
				return
			}
		}
		for _, k := range tb.keys {
			var v LValue
			if s, ok := k.(LString); ok {
				v = tb.strdict[string(s)]
			} else {
				v = tb.dict[k]
			}
			if v != LNil && v != nil && !yield(k, v) {
				return
			}
		}
	}
}

// concatPollSize is the length from which a result of `..` is followed by a poll of the
// context: building it took far longer than a poll.
const concatPollSize = 1 << 16

// concat is OP_CONCAT's R(rb) .. ... .. R(rc). A result longer than Options.MaxStringSize is
// refused before it is built; strings are joined into one buffer the result then uses (the
// plain way, stringConcat, makes a list of them, joins it and copies); numbers and
// metamethods go the plain way. A long result is followed by a poll of the context.
func (L *LState) concat(rb, rc int) LValue {
	rg := L.reg
	n, strs := int64(0), true
	for r := rb; r <= rc; r++ {
		var v LValue = LNil
		if r < rg.top {
			v = rg.array[r]
		}
		if s, ok := v.(LString); ok {
			n += int64(len(s))
		} else {
			n += 32 // a number's text
			strs = false
		}
	}
	if max := L.Options.MaxStringSize; max > 0 && n > int64(max) {
		msg := L.Options.StringSizeError
		if msg == "" {
			msg = "string too large"
		}
		L.RaiseError("%s", msg)
	}
	var v LValue
	if strs && !L.Options.SkipFastPaths {
		L.mem.charge(stringMemory(int(n)))
		var b strings.Builder
		b.Grow(int(n))
		for _, s := range rg.array[rb : rc+1] {
			b.WriteString(string(s.(LString)))
		}
		v = LString(b.String())
	} else {
		v = stringConcat(L, rc-rb+1, rc)
	}
	if n >= concatPollSize {
		L.pollContext()
	}
	return v
}
