package stdlib

import (
	"fmt"
	"math"
	"strconv"
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
	if find && (L.ToBool(4) || !strings.ContainsAny(pat, patSpecials)) {
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

// formatSpec is one conversion of a format string: %[flags][width][.precision]verb.
type formatSpec struct {
	flags       string
	width, prec int  // -1 when absent
	verb        byte // 0 when the format ends first
}

// Size bounds of string.format's conversions.
const (
	formatNumberSize = 512 // %f of 1e308 with 99 decimals is 410 bytes
	formatMaxDigits  = 2   // of a width or a precision, as in C Lua
)

// strFormat is string.format, C Lua 5.1's except that %s and %q take any value (through
// tostring, as gopher-lua's does) and keep the bytes of their string as they are. A first
// pass checks the arguments and bounds the size of the result; the second builds it.
func strFormat(L *lua.LState) int {
	f := L.CheckString(1)
	limits.CheckSize(L, "string.format", formatWalk(L, f, nil))
	out := make([]byte, 0, len(f)+16)
	formatWalk(L, f, &out)
	L.Push((&ResultBuilder{b: out}).Result())
	return 1
}

// formatWalk goes through the conversions of f. Without out, it checks the arguments,
// turning those of %s and %q into strings in place, and returns an upper bound of the
// result's size; with out, it appends the result to *out.
func formatWalk(L *lua.LState, f string, out *[]byte) int64 {
	size, arg := int64(0), 1
	for i := 0; i < len(f); {
		j := strings.IndexByte(f[i:], '%')
		if j < 0 {
			j = len(f) - i
		}
		if out != nil {
			*out = append(*out, f[i:i+j]...)
		}
		size += int64(j)
		if i += j + 1; i > len(f) {
			break
		}
		if i < len(f) && f[i] == '%' {
			if out != nil {
				*out = append(*out, '%')
			}
			size, i = size+1, i+1
			continue
		}
		if arg++; arg > L.GetTop() {
			L.ArgError(arg, "no value")
		}
		var sp formatSpec
		sp, i = scanFormat(L, f, i)
		if out == nil {
			size += formatBound(L, sp, arg)
		} else {
			*out = formatItem(L, *out, sp, arg)
		}
	}
	return size
}

// scanFormat reads the conversion whose flags start at f[i] and returns it and the index
// after it.
func scanFormat(L *lua.LState, f string, i int) (formatSpec, int) {
	sp := formatSpec{width: -1, prec: -1}
	j := i
	for j < len(f) && strings.IndexByte("-+ #0", f[j]) >= 0 {
		j++
	}
	if j-i > 5 {
		L.RaiseError("invalid format (repeated flags)")
	}
	sp.flags = f[i:j]
	sp.width, j = formatDigits(f, j)
	if j < len(f) && f[j] == '.' {
		sp.prec, j = formatDigits(f, j+1)
		sp.prec = max(sp.prec, 0)
	}
	if j < len(f) && isDigit(f[j]) {
		L.RaiseError("invalid format (width or precision too long)")
	}
	if j < len(f) {
		sp.verb = f[j]
		j++
	}
	return sp, j
}

// formatDigits reads at most formatMaxDigits digits at f[j]: their value (-1 if none) and
// the index after them.
func formatDigits(f string, j int) (int, int) {
	n := -1
	for k := 0; k < formatMaxDigits && j < len(f) && isDigit(f[j]); k++ {
		n = max(n, 0)*10 + int(f[j]-'0')
		j++
	}
	return n, j
}

// formatBound checks the argument of one conversion and returns an upper bound of the
// size of its text.
func formatBound(L *lua.LState, sp formatSpec, arg int) int64 {
	switch sp.verb {
	case 'c', 'd', 'i', 'o', 'u', 'x', 'X', 'e', 'E', 'f', 'g', 'G':
		L.CheckNumber(arg)
		return formatNumberSize
	case 's', 'q':
		s := formatString(L, arg)
		if sp.verb == 'q' {
			return 4*int64(len(s)) + 2 // "\0" becomes \000
		}
		return max(int64(len(s)), int64(sp.width))
	}
	verb := ""
	if sp.verb != 0 {
		verb = string(sp.verb)
	}
	L.RaiseError("invalid option '%%%s' to 'format'", verb)
	return 0
}

// formatString converts argument arg to a string in place, as tostring does, and returns
// it.
func formatString(L *lua.LState, arg int) string {
	switch v := L.Get(arg).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		s := v.String()
		L.Replace(arg, lua.LString(s))
		return s
	default:
		s := L.ToStringMeta(v).String()
		L.Replace(arg, lua.LString(s))
		return s
	}
}

// formatItem appends the text of one conversion, whose argument formatBound checked.
func formatItem(L *lua.LState, out []byte, sp formatSpec, arg int) []byte {
	switch sp.verb {
	case 's':
		s := string(L.Get(arg).(lua.LString))
		if sp.prec >= 0 && len(s) > sp.prec {
			s = s[:sp.prec]
		}
		return appendPadded(out, sp, s)
	case 'q':
		return AppendQuoted(out, string(L.Get(arg).(lua.LString)))
	case 'c':
		return appendPadded(out, sp, string([]byte{byte(cInt(float64(L.CheckNumber(arg))))}))
	case 'e', 'E', 'f', 'g', 'G':
		return appendFloat(out, sp, float64(L.CheckNumber(arg)))
	}
	return appendInt(out, sp, float64(L.CheckNumber(arg)))
}

// appendPadded appends s padded with spaces to the conversion's width (on the right with
// the '-' flag).
func appendPadded(out []byte, sp formatSpec, s string) []byte {
	pad := max(sp.width-len(s), 0)
	left := strings.IndexByte(sp.flags, '-') >= 0
	if !left {
		out = append(out, strings.Repeat(" ", pad)...)
	}
	out = append(out, s...)
	if left {
		out = append(out, strings.Repeat(" ", pad)...)
	}
	return out
}

// AppendQuoted appends s between double quotes, readable back by Lua, as C Lua 5.1's %q.
func AppendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			out = append(out, '\\', c)
		case '\r':
			out = append(out, `\r`...)
		case 0:
			out = append(out, `\000`...)
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// goFormat is the Go verb equivalent to sp with the given flags and verb.
func goFormat(sp formatSpec, flags string, verb byte) string {
	b := append([]byte{'%'}, flags...)
	if sp.width >= 0 {
		b = strconv.AppendInt(b, int64(sp.width), 10)
	}
	if sp.prec >= 0 {
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(sp.prec), 10)
	}
	return string(append(b, verb))
}

// appendInt appends %d, %i, %o, %u, %x or %X of n, converted to an integer as C Lua does
// on x86-64 (a C cast: truncated, two's complement for the unsigned conversions, and
// 1<<63 or 0 out of range).
func appendInt(out []byte, sp formatSpec, n float64) []byte {
	signed := sp.verb == 'd' || sp.verb == 'i'
	var i int64
	var u uint64
	if signed {
		i = cInt(n)
	} else {
		u = cUnsigned(n)
	}
	if sp.prec == 0 && i == 0 && u == 0 { // C writes no digit, but the sign and the octal 0
		s := ""
		switch {
		case signed && strings.IndexByte(sp.flags, '+') >= 0:
			s = "+"
		case signed && strings.IndexByte(sp.flags, ' ') >= 0:
			s = " "
		case sp.verb == 'o' && strings.IndexByte(sp.flags, '#') >= 0:
			s = "0"
		}
		return appendPadded(out, sp, s)
	}
	if signed {
		return fmt.Appendf(out, goFormat(sp, sp.flags, 'd'), i)
	}
	flags := strings.NewReplacer("+", "", " ", "").Replace(sp.flags) // no sign: unsigned
	verb := sp.verb
	switch {
	case verb == 'u':
		verb = 'd'
	case u == 0 && verb != 'o':
		flags = strings.ReplaceAll(flags, "#", "") // C writes 0, not 0x0
	case verb != 'o' && sp.width > 0 && sp.prec < 0 && strings.Contains(flags, "#") &&
		strings.Contains(flags, "0") && !strings.Contains(flags, "-"):
		// Padding with zeros: C counts the 0x in the width, Go does not.
		out = append(out, '0', verb)
		flags = strings.ReplaceAll(flags, "#", "")
		sp.width = max(sp.width-2, 0)
	}
	return fmt.Appendf(out, goFormat(sp, flags, verb), u)
}

// cInt is C's (long)f on x86-64.
func cInt(f float64) int64 {
	if f != f || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

// cUnsigned is C's (unsigned long)f on x86-64.
func cUnsigned(f float64) uint64 {
	switch {
	case f != f || f >= 1<<64:
		return 0
	case f >= 1<<63:
		return uint64(f)
	}
	return uint64(cInt(f))
}

// appendFloat appends %e, %E, %f, %g or %G of f: precision 6 unless given, and inf or nan
// as C writes them.
func appendFloat(out []byte, sp formatSpec, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := "inf"
		if math.IsNaN(f) {
			s = "nan"
		}
		switch {
		case math.Signbit(f):
			s = "-" + s
		case strings.IndexByte(sp.flags, '+') >= 0:
			s = "+" + s
		case strings.IndexByte(sp.flags, ' ') >= 0:
			s = " " + s
		}
		if sp.verb == 'E' || sp.verb == 'G' {
			s = strings.ToUpper(s)
		}
		return appendPadded(out, sp, s)
	}
	if sp.prec < 0 {
		sp.prec = 6
	}
	return fmt.Appendf(out, goFormat(sp, sp.flags, sp.verb), f)
}
