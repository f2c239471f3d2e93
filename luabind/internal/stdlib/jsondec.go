package stdlib

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// json.decode builds Lua values straight from the text (SPEC §6.6): decoding into Go values
// first and converting them took 15s and 2.5 GB for 64 MiB of text, without a look at the
// call's context or its memory limit. The decoder here accepts exactly what encoding/json
// accepts (FuzzJSONModule), with the same values: invalid UTF-8 and lone
// surrogates become U+FFFD, a repeated key keeps its last value, numbers beyond float64 are
// an error. While it works it
//
//   - before it builds anything, scans the text (jsonScan): text longer than the state's
//     memory limit, a value that would take more than the limit (counted as the state's
//     memory account counts tables, keys, slots and strings, a lower bound), and nesting
//     deeper than jsonMaxDepth (encoding/json's limit) are refused;
//   - looks at the call's context every pollEvery values;
//   - builds every table in place, attached to the value being built, which sits on the
//     Lua stack: the state's memory account charges each table and its growth, and sees
//     all of it when it measures what the state holds, so a value larger than the memory
//     limit fails the call with the memory error before it is built; strings are charged
//     before they are made.

// jsonMaxDepth is how deep arrays and objects may nest, as in encoding/json.
const jsonMaxDepth = 10000

// jsonDecoder decodes one text into one state.
type jsonDecoder struct {
	L         *lua.LState
	s         string
	i         int
	depth     int
	null      lua.LValue
	arrayMeta *lua.LTable
	poll      limits.Poller
	buf       []byte // scratch for strings with escapes
}

// jsonSyntaxError is a decoding error; the caller adds "json.decode: ".
type jsonSyntaxError struct{ msg string }

func (e *jsonSyntaxError) Error() string { return e.msg }

// DecodeLua decodes s, exactly one JSON value, into a Lua value. A syntax error is
// returned; a limit (memory, time) is raised as the state's error. limit is the state's
// memory limit (<= 0: none), which s may not be longer than.
func DecodeLua(L *lua.LState, s string, limit int64, null lua.LValue, arrayMeta *lua.LTable) (v lua.LValue, err error) {
	if limit > 0 && int64(len(s)) > limit {
		L.RaiseError("%smemory: json.decode: the text (%s) is larger than the hook's memory limit (%s); decode a smaller text or raise the hook's memory: setting",
			limits.Prefix, mibSize(int64(len(s))), limits.ByteSize(limit))
	}
	d := &jsonDecoder{L: L, s: s, null: null, arrayMeta: arrayMeta, poll: limits.Poller{L: L}}
	if need, deep := jsonScan(s, &d.poll); deep {
		return nil, &jsonSyntaxError{msg: fmt.Sprintf("exceeded max depth (%d levels of arrays and objects)", jsonMaxDepth)}
	} else if limit > 0 && need > limit {
		L.RaiseError("%smemory: json.decode: the value would take at least %s, more than the hook's memory limit (%s); decode a smaller text or raise the hook's memory: setting",
			limits.Prefix, mibSize(need), limits.ByteSize(limit))
	}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*jsonSyntaxError)
			if !ok {
				panic(r)
			}
			v, err = nil, se
		}
	}()
	// The value being built is kept in a slot of the Lua stack, so that what is built so
	// far counts as held by the state.
	top := L.GetTop()
	L.Push(lua.LNil)
	defer L.SetTop(top)
	slot := top + 1
	d.space()
	v = d.value(func(v lua.LValue) { L.Replace(slot, v) })
	if d.space(); d.i < len(s) {
		d.fail("unexpected data after the JSON value (at byte %d)", d.i)
	}
	return v, nil
}

// mibSize is n bytes in MiB, to a tenth.
func mibSize(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func (d *jsonDecoder) fail(format string, args ...any) {
	panic(&jsonSyntaxError{msg: fmt.Sprintf(format, args...)})
}

// invalid fails on the byte at d.i (or the end of the text).
func (d *jsonDecoder) invalid(context string) {
	if d.i >= len(d.s) {
		d.fail("unexpected EOF")
	}
	d.fail("invalid character %s %s (at byte %d)", quoteChar(d.s[d.i]), context, d.i)
}

// quoteChar is how encoding/json names a byte in an error.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

func (d *jsonDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// value decodes the value at d.i (after white space). A table is handed to attach as soon
// as it is made, before it is filled; the value is returned too.
func (d *jsonDecoder) value(attach func(lua.LValue)) lua.LValue {
	d.poll.Tick()
	if d.i >= len(d.s) {
		d.fail("unexpected EOF")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(attach)
	case c == '[':
		return d.array(attach)
	case c == '"':
		return d.str()
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	case c == 't':
		d.literal("true")
		return lua.LTrue
	case c == 'f':
		d.literal("false")
		return lua.LFalse
	case c == 'n':
		d.literal("null")
		return d.null
	}
	d.invalid("looking for beginning of value")
	return nil
}

func (d *jsonDecoder) literal(word string) {
	for k := 0; k < len(word); k++ {
		if d.i >= len(d.s) || d.s[d.i] != word[k] {
			d.invalid("in literal " + word + " (expecting " + quoteChar(word[k]) + ")")
		}
		d.i++
	}
}

func (d *jsonDecoder) enter() {
	if d.depth++; d.depth > jsonMaxDepth {
		d.fail("exceeded max depth (%d levels of arrays and objects)", jsonMaxDepth)
	}
}

func (d *jsonDecoder) array(attach func(lua.LValue)) lua.LValue {
	d.enter()
	d.i++ // [
	t := d.L.CreateTable(0, 0)
	t.Metatable = d.arrayMeta
	attach(t)
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		d.depth--
		return t
	}
	for n := 1; ; n++ {
		d.space()
		k := n
		v := d.value(func(v lua.LValue) { t.RawSetInt(k, v) })
		t.RawSetInt(n, v)
		d.space()
		if d.i >= len(d.s) {
			d.fail("unexpected EOF")
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return t
		default:
			d.invalid("after array element")
		}
	}
}

func (d *jsonDecoder) object(attach func(lua.LValue)) lua.LValue {
	d.enter()
	d.i++ // {
	t := d.L.CreateTable(0, 0)
	attach(t)
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		d.depth--
		return t
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			d.invalid("looking for beginning of object key string")
		}
		key := d.str()
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			d.invalid("after object key")
		}
		d.i++
		d.space()
		k := string(key)
		v := d.value(func(v lua.LValue) { t.RawSetString(k, v) })
		t.RawSetString(k, v)
		d.space()
		if d.i >= len(d.s) {
			d.fail("unexpected EOF")
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return t
		default:
			d.invalid("after object key:value pair")
		}
	}
}

// number decodes a number as encoding/json's grammar has it.
func (d *jsonDecoder) number() lua.LValue {
	start := d.i
	if d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case d.i < len(d.s) && '1' <= d.s[d.i] && d.s[d.i] <= '9':
		d.digits()
	default:
		d.invalid("in numeric literal")
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if d.i >= len(d.s) || d.s[d.i] < '0' || d.s[d.i] > '9' {
			d.invalid("after decimal point in numeric literal")
		}
		d.digits()
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if d.i >= len(d.s) || d.s[d.i] < '0' || d.s[d.i] > '9' {
			d.invalid("in exponent of numeric literal")
		}
		d.digits()
	}
	text := d.s[start:d.i]
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		d.fail("number %s is out of range", text)
	}
	return BoxNumber(f)
}

func (d *jsonDecoder) digits() {
	for d.i < len(d.s) && '0' <= d.s[d.i] && d.s[d.i] <= '9' {
		d.i++
	}
}

// str decodes the string at d.i, as encoding/json unquotes it.
func (d *jsonDecoder) str() lua.LString {
	d.i++ // "
	start := d.i
	// The common case: no escapes, valid UTF-8; the string is a slice of the text.
	for d.i < len(d.s) {
		c := d.s[d.i]
		if c == '"' {
			s := d.s[start:d.i]
			d.i++
			limits.ChargeString(d.L, len(s))
			return lua.LString(s)
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c < utf8.RuneSelf {
			d.i++
			continue
		}
		r, n := utf8.DecodeRuneInString(d.s[d.i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		d.i += n
	}
	b := append(d.buf[:0], d.s[start:d.i]...)
	for n := 1; ; n++ {
		if d.i >= len(d.s) {
			d.fail("unexpected EOF")
		}
		if n&(1<<10-1) == 0 {
			d.poll.Tick()
		}
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			d.buf = b[:0]
			limits.ChargeString(d.L, len(b))
			return lua.LString(b)
		case c < 0x20:
			d.invalid("in string literal")
		case c == '\\':
			b = d.escape(b)
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, n := utf8.DecodeRuneInString(d.s[d.i:])
			b = utf8.AppendRune(b, r) // an invalid byte becomes U+FFFD
			d.i += n
		}
	}
}

// escape appends the character of the escape at d.i (the backslash) to b and leaves d.i
// after the escape.
func (d *jsonDecoder) escape(b []byte) []byte {
	d.i++
	if d.i >= len(d.s) {
		d.fail("unexpected EOF")
	}
	e := d.s[d.i]
	switch e {
	case '"', '\\', '/':
	case 'b':
		e = '\b'
	case 'f':
		e = '\f'
	case 'n':
		e = '\n'
	case 'r':
		e = '\r'
	case 't':
		e = '\t'
	case 'u':
		r := d.hex4()
		if utf16.IsSurrogate(r) {
			r = utf8.RuneError
			if low, ok := d.lowSurrogate(); ok {
				if dec := utf16.DecodeRune(rune(d.hexAt(d.i-4)), low); dec != utf8.RuneError {
					r = dec
					d.i += 6
				}
			}
		}
		return utf8.AppendRune(b, r)
	default:
		d.invalid("in string escape code")
	}
	d.i++
	return append(b, e)
}

// hex4 reads the four hex digits after \u (d.i at the u) and leaves d.i after them.
func (d *jsonDecoder) hex4() rune {
	d.i++
	for k := 0; k < 4; k++ {
		if d.i+k >= len(d.s) {
			d.i += k
			d.fail("unexpected EOF")
		}
		if !isHex(d.s[d.i+k]) {
			d.i += k
			d.invalid("in \\u hexadecimal character escape")
		}
	}
	d.i += 4
	return rune(d.hexAt(d.i - 4))
}

// lowSurrogate reads, without moving, a \uXXXX right at d.i, as encoding/json looks for the
// second half of a surrogate pair.
func (d *jsonDecoder) lowSurrogate() (rune, bool) {
	if d.i+6 > len(d.s) || d.s[d.i] != '\\' || d.s[d.i+1] != 'u' {
		return 0, false
	}
	for k := 2; k < 6; k++ {
		if !isHex(d.s[d.i+k]) {
			return 0, false
		}
	}
	return rune(d.hexAt(d.i + 2)), true
}

func (d *jsonDecoder) hexAt(i int) int {
	v, _ := strconv.ParseUint(d.s[i:i+4], 16, 32)
	return int(v)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// What the state's memory account charges, at least, for what json.decode builds: a table,
// a key of an object, a slot of an array, a string besides its bytes (internal/lua/memory.go).
const (
	jsonTableCost  = 96
	jsonKeyCost    = 160
	jsonSlotCost   = 16
	jsonStringCost = 16
)

// jsonScan measures, without building anything, what decoding s takes at least in the
// state's memory, and whether its arrays and objects nest deeper than jsonMaxDepth. It does
// not validate s (the decoder does): for text that is not JSON it counts what it can.
func jsonScan(s string, poll *limits.Poller) (need int64, deep bool) {
	var stack []byte // '[' or '{' for each open container
	next := 1 << 16  // where to look at the context next
	for i := 0; i < len(s); i++ {
		if i >= next {
			poll.Check()
			next = i + 1<<16
		}
		switch c := s[i]; c {
		case '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			// An escape is at most six bytes for one (\u0041): a lower bound of the bytes.
			need += jsonStringCost + int64(j-i-1)/6
			if j-i > 1<<16 {
				poll.Check()
			}
			i = j
		case '[', '{':
			if len(stack) >= jsonMaxDepth {
				return need, true
			}
			stack = append(stack, c)
			need += jsonTableCost
			if c == '[' && i+1 < len(s) && s[i+1] != ']' {
				need += jsonSlotCost // the first element (the next ones after commas)
			}
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) > 0 && stack[len(stack)-1] == '[' {
				need += jsonSlotCost
			}
		case ':':
			need += jsonKeyCost
		}
	}
	return need, false
}
