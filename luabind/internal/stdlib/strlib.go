package stdlib

import (
	"math"
	"strings"
	"unsafe"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// The string functions that allocate in proportion to their input or loop over it,
// rebuilt so that none escapes the limits of internal/limits: find, match, gmatch and gsub use
// the matcher of lpattern.go, which polls the call's context; gsub, format, rep and
// table.concat check the size of their result before building it. Their results are C Lua
// 5.1's, which gopher-lua's own follow except where noted (see strlib_test.go).

// InstallString replaces the functions of the sandbox's string and table libraries
// that could crash or hang the host. String methods (s:find) reach the same table through
// the string metatable's __index.
func InstallString(L *lua.LState) {
	str := L.GetGlobal("string").(*lua.LTable)
	for name, fn := range map[string]lua.LGFunction{
		"find":   strFind,
		"match":  strMatch,
		"gmatch": strGmatch,
		"gsub":   strGsub,
		"format": strFormat,
		"rep":    strRep,
	} {
		str.RawSetString(name, L.NewFunction(fn))
	}
	// A plain find, the usual deny-list test, is answered by the interpreter itself: strFind
	// gives what the fork's builtin step gives (FuzzFastFind).
	str.RawGetString("find").(*lua.LFunction).Builtin = lua.BuiltinStringFind
	str.RawSetString("gfind", str.RawGetString("gmatch")) // gopher-lua's alias
	tbl := L.GetGlobal("table").(*lua.LTable)
	tbl.RawSetString("concat", L.NewFunction(tableConcat))
}

// intArg reads argument n as an integer the way luaL_checkinteger does (numeric strings
// too), truncated toward zero and clamped to ±2^53 so that index arithmetic cannot overflow.
func intArg(L *lua.LState, n int) int64 { return lua.IntArg(float64(L.CheckNumber(n))) }

// optIntArg is intArg with a default for a missing or nil argument.
func optIntArg(L *lua.LState, n int, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return intArg(L, n)
}

// startIndex converts a 1-based, possibly negative, init argument to an offset in a string
// of n bytes, clamped to 0..n as C Lua 5.1 does.
func startIndex(init int64, n int) int {
	if init < 0 {
		init += int64(n) + 1
	}
	return int(min(max(init-1, 0), int64(n)))
}

func strFind(L *lua.LState) int  { return strFindAux(L, true) }
func strMatch(L *lua.LState) int { return strFindAux(L, false) }

// strFindAux is string.find (find) or string.match.
func strFindAux(L *lua.LState, find bool) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	init := startIndex(optIntArg(L, 3, 1), len(src))
	// As C Lua 5.1's strpbrk, the test for specials stops at a "\0"; a plain search is of
	// the whole pattern.
	if find && (L.ToBool(4) || !strings.ContainsAny(cPattern(pat), patSpecials)) {
		if i := strings.Index(src[init:], pat); i >= 0 {
			L.Push(lua.LNumber(init + i + 1))
			L.Push(lua.LNumber(init + i + len(pat)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	m := newMatcher(L, src, pat)
	s, e := m.find(init)
	switch {
	case s < 0:
		L.Push(lua.LNil)
		return 1
	case find:
		L.Push(lua.LNumber(s + 1))
		L.Push(lua.LNumber(e))
		return 2 + m.pushCaptures(L, s, e, false)
	}
	return m.pushCaptures(L, s, e, true)
}

// strGmatch returns an iterator over the matches of a pattern. As in C Lua 5.1, a leading
// '^' is an ordinary character here, and an empty match moves the next search one byte on.
func strGmatch(L *lua.LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	m := newMatcher(L, src, pat)
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		m.poll.L = L
		for s := pos; s <= len(src); s++ {
			if s = m.next(s); s > len(src) {
				break
			}
			m.reset()
			if e := m.match(s, 0); e >= 0 {
				pos = e
				if e == s {
					pos++
				}
				return m.pushCaptures(L, s, e, true)
			}
		}
		pos = len(src) + 1
		return 0
	}))
	return 1
}

// strGsub is string.gsub. Its result grows match by match, each piece checked against
// limits.MaxStringSize before it is added.
func strGsub(L *lua.LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	repl := L.Get(3)
	switch repl.(type) {
	case lua.LString, lua.LNumber, *lua.LTable, *lua.LFunction:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxN := optIntArg(L, 4, int64(len(src))+1)
	m := newMatcher(L, src, pat)
	out := ResultBuilder{L: L, What: "string.gsub"}
	if n := m.replace(&out, repl, maxN); n == 0 {
		L.Push(lua.LString(src))
		L.Push(lua.LNumber(0))
	} else {
		L.Push(out.Result())
		L.Push(lua.LNumber(n))
	}
	return 2
}

// replace writes to out the subject with its first maxN matches replaced by repl, as C
// Lua 5.1's gsub (an empty match moves on one byte, keeping it), and returns how many
// matches it replaced; out is left empty when there are none.
func (m *matcher) replace(out *ResultBuilder, repl lua.LValue, maxN int64) int64 {
	src := m.src
	p, anchor := 0, len(m.pat) > 0 && m.pat[0] == '^'
	if anchor {
		p = 1
	}
	s, kept, n := 0, 0, int64(0)
	for n < maxN && s <= len(src) {
		if !anchor {
			if s = m.next(s); s > len(src) {
				break
			}
		}
		m.reset()
		e := m.match(s, p)
		if e >= 0 {
			n++
			out.grow(len(src))
			out.Add(src[kept:s])
			m.addValue(out, repl, s, e)
			kept = e
		}
		if e > s {
			s = e
		} else {
			s++
		}
		if anchor {
			break
		}
	}
	if n > 0 {
		out.Add(src[kept:])
	}
	return n
}

// addValue adds the replacement of the match src[s:e] to out: repl expanded, called or
// indexed; a false or nil result keeps the match.
func (m *matcher) addValue(out *ResultBuilder, repl lua.LValue, s, e int) {
	L := m.poll.L
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LString:
		m.addString(out, string(r), s, e)
		return
	case lua.LNumber:
		m.addString(out, r.String(), s, e)
		return
	case *lua.LFunction:
		L.Push(r)
		L.Call(m.pushCaptures(L, s, e, true), 1)
		v = L.Get(-1)
		L.Pop(1)
	case *lua.LTable:
		v = L.GetTable(r, m.captureValue(0, s, e))
	}
	switch x := v.(type) {
	case lua.LString:
		out.Add(string(x))
	case lua.LNumber:
		out.Add(x.String())
	default:
		if lua.LVAsBool(v) {
			L.RaiseError("invalid replacement value (a %s)", v.Type().String())
		}
		out.Add(m.src[s:e])
	}
}

// addString adds the replacement string repl for the match src[s:e]: %0 is the match,
// %1-%9 its captures, %% a '%'; any other use of '%' is an error (as in Lua 5.2 and later).
func (m *matcher) addString(out *ResultBuilder, repl string, s, e int) {
	for repl != "" {
		i := strings.IndexByte(repl, '%')
		if i < 0 {
			out.Add(repl)
			return
		}
		out.Add(repl[:i])
		if i+1 == len(repl) {
			m.raise("invalid use of '%' in replacement string")
		}
		switch c := repl[i+1]; {
		case c == '%':
			out.Add("%")
		case c == '0':
			out.Add(m.src[s:e])
		case isDigit(c):
			out.Add(lua.LVAsString(m.captureValue(int(c-'1'), s, e)))
		default:
			m.raise("invalid use of '%' in replacement string")
		}
		repl = repl[i+2:]
	}
}

// ResultBuilder builds a string of at most limits.MaxStringSize bytes, raising a limit error
// naming what before an addition would make it larger. Its buffer never grows beyond
// limits.MaxStringSize either.
type ResultBuilder struct {
	L    *lua.LState
	What string // the function building it, for the limit error
	b    []byte
}

// grow makes room for n more bytes (at most up to limits.MaxStringSize), once, before the first
// addition: a hint, not a promise.
func (r *ResultBuilder) grow(n int) {
	if r.b == nil {
		r.b = make([]byte, 0, min(n, limits.MaxStringSize))
	}
}

func (r *ResultBuilder) Add(s string) {
	if need := len(r.b) + len(s); need > cap(r.b) {
		limits.CheckSize(r.L, r.What, int64(need))
		r.reserve(len(s))
	}
	r.b = append(r.b, s...)
}

// reserve makes room for n more bytes, growing the buffer no larger than limits.MaxStringSize.
func (r *ResultBuilder) reserve(n int) {
	if need := len(r.b) + n; need > cap(r.b) {
		grown := make([]byte, len(r.b), min(max(2*cap(r.b), need, 64), limits.MaxStringSize))
		copy(grown, r.b)
		r.b = grown
	}
}

// Result returns the result, without copying it; r must not be used afterwards.
func (r *ResultBuilder) Result() lua.LString {
	if len(r.b) == 0 {
		return ""
	}
	return lua.LString(unsafe.String(unsafe.SliceData(r.b), len(r.b)))
}

// strRep is string.rep(s, n), refused before allocating when the result would be larger
// than limits.MaxStringSize.
func strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := intArg(L, 2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	size := int64(len(s)) * n
	if n > limits.MaxStringSize {
		size = math.MaxInt64
	}
	limits.CheckSize(L, "string.rep", size)
	L.Push(lua.LString(strings.Repeat(s, int(n))))
	return 1
}

// tableConcat is table.concat(t, sep, i, j), C Lua 5.1's: every element from i to j must
// be a string or a number. The size of the result is known before it is built.
func tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = L.CheckString(2) // a number too, as in C Lua
	}
	i := optIntArg(L, 3, 1)
	j := optIntArg(L, 4, int64(t.Len()))
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	poll := limits.Poller{L: L}
	size := int64(0)
	for k := i; k <= j && size <= limits.MaxStringSize; k++ {
		poll.Tick()
		switch v := t.RawGetInt(int(k)).(type) {
		case lua.LString:
			size += int64(len(v))
		case lua.LNumber:
			size += 24 // the longest number text: -1.2345678901234567e-308
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
		}
		if k < j {
			size += int64(len(sep))
		}
	}
	limits.CheckSize(L, "table.concat", size)
	b := make([]byte, 0, size)
	for k := i; k <= j; k++ {
		poll.Tick()
		b = append(b, lua.LVAsString(t.RawGetInt(int(k)))...)
		if k < j {
			b = append(b, sep...)
		}
	}
	out := ResultBuilder{b: b}
	L.Push(out.Result())
	return 1
}
