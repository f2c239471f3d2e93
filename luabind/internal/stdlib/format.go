package stdlib

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

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
