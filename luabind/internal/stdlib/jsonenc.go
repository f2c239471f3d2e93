package stdlib

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// EncodeLua is json.encode: v written as JSON straight from the Lua values, without
// building Go maps first. Its text, its errors and its limits are those of toGo followed by
// MarshalJSONPolled (TestEncodeLuaJSONLikeToGo, FuzzEncodeLuaJSON): the same arrays and
// objects, keys sorted, integers integral, encoding/json's floats and string escapes
// (without HTML escaping), json.null as null; functions, cycles, non-finite numbers, more
// than 64 levels or 1<<20 values, and text over limits.MaxStringSize are errors.
func EncodeLua(v lua.LValue, poll *limits.Poller) (string, error) {
	e := jsonEncs.Get().(*jsonEnc)
	defer e.release()
	e.poll = poll
	if err := e.value(v, nil, 0); err != nil {
		return "", err
	}
	return string(e.buf), nil
}

// jsonEncs keeps encoders, with the scratch their last use grew, for the next encode.
var jsonEncs = sync.Pool{New: func() any { return new(jsonEnc) }}

// maxKeptJSONBuf bounds the text buffer an encoder keeps between uses.
const maxKeptJSONBuf = 64 << 10

func (e *jsonEnc) release() {
	if cap(e.buf) > maxKeptJSONBuf {
		e.buf = nil
	}
	clear(e.seen[:cap(e.seen)])
	clear(e.pairs[:cap(e.pairs)])
	*e = jsonEnc{buf: e.buf[:0], seen: e.seen[:0], pairs: e.pairs[:0]}
	jsonEncs.Put(e)
}

// jsonPath is where a value is: made for tables and for values that fail, and rendered
// only in an error.
type jsonPath struct {
	parent *jsonPath
	key    string // an object's key; "" for an array's index
	index  int
}

func (p *jsonPath) String() string {
	var parts []string
	for ; p != nil; p = p.parent {
		if p.key != "" || p.index == 0 {
			parts = append(parts, "."+p.key)
		} else {
			parts = append(parts, "["+strconv.Itoa(p.index)+"]")
		}
	}
	slices.Reverse(parts)
	return "value" + strings.Join(parts, "")
}

type jsonEnc struct {
	buf   []byte
	poll  *limits.Poller
	seen  []*lua.LTable // the tables being written (cycles)
	items int
	pairs []jsonPair // scratch for sorting an object's keys
}

// jsonPair is one key of an object and its value.
type jsonPair struct {
	k string
	v lua.LValue
}

func convertError(format string, args ...any) error {
	return &ConvertError{Msg: fmt.Sprintf(format, args...)}
}

func (e *jsonEnc) value(v lua.LValue, path *jsonPath, depth int) error {
	if e.poll != nil {
		e.poll.Tick()
	}
	switch x := v.(type) {
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case lua.LBool:
		e.buf = strconv.AppendBool(e.buf, bool(x))
	case lua.LString:
		if int64(len(e.buf))+JSONStringSize(string(x)) > limits.MaxStringSize {
			return ErrJSONSize
		}
		e.buf = appendJSONString(e.buf, string(x))
	case lua.LNumber:
		return e.number(float64(x))
	case *lua.LTable:
		return e.table(x, path, depth)
	case *lua.LUserData:
		if x.Value != NullValue {
			return convertError("unsupported value of type %s at %s", v.Type(), path.String())
		}
		e.buf = append(e.buf, "null"...)
	default:
		return convertError("unsupported value of type %s at %s", v.Type(), path.String())
	}
	if len(e.buf) > limits.MaxStringSize {
		return ErrJSONSize
	}
	return nil
}

// number writes f as toGo and encoding/json would: integral values within 2^53 as
// integers, others in encoding/json's float format.
func (e *jsonEnc) number(f float64) error {
	if f == math.Trunc(f) && f >= -(1<<53) && f <= 1<<53 {
		e.buf = strconv.AppendInt(e.buf, int64(f), 10)
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("cannot encode %v as JSON", f)
	}
	format := byte('f')
	if a := math.Abs(f); a < 1e-6 || a >= 1e21 {
		format = 'e'
	}
	e.buf = strconv.AppendFloat(e.buf, f, format, -1, 64)
	if format == 'e' { // 1e-07 -> 1e-7, as encoding/json writes it
		n := len(e.buf)
		if n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
			e.buf[n-2] = e.buf[n-1]
			e.buf = e.buf[:n-1]
		}
	}
	return nil
}

func (e *jsonEnc) table(t *lua.LTable, path *jsonPath, depth int) error {
	if depth >= MaxConvertDepth {
		return convertError("table nested deeper than %d levels at %s", MaxConvertDepth, path.String())
	}
	if slices.Contains(e.seen, t) {
		return convertError("table contains itself (a cycle) at %s", path.String())
	}
	e.seen = append(e.seen, t)
	defer func() { e.seen = e.seen[:len(e.seen)-1] }()

	if n, isArray, _ := arrayLen(t, nil); isArray && (n > 0 || IsMarkedArray(t)) {
		e.buf = append(e.buf, '[')
		for i := 1; i <= n; i++ {
			if i > 1 {
				e.buf = append(e.buf, ',')
			}
			if err := e.item(t.RawGetInt(i), path, "", i, depth); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
		return nil
	}
	return e.object(t, path, depth)
}

// object writes a table as an object with its keys sorted, as encoding/json sorts a map's.
func (e *jsonEnc) object(t *lua.LTable, path *jsonPath, depth int) error {
	mark := len(e.pairs)
	defer func() { e.pairs = e.pairs[:mark] }()
	for k, v := range t.Pairs() { // see converter.table
		switch kk := k.(type) {
		case lua.LString:
			e.pairs = append(e.pairs, jsonPair{string(kk), v})
		case lua.LNumber:
			e.pairs = append(e.pairs, jsonPair{kk.String(), v})
		default:
			return convertError("unsupported key of type %s in %s", k.Type(), path.String())
		}
	}
	pairs := e.pairs[mark:]
	slices.SortFunc(pairs, func(a, b jsonPair) int { return strings.Compare(a.k, b.k) })
	e.buf = append(e.buf, '{')
	for i, p := range pairs {
		if i > 0 && p.k == pairs[i-1].k { // [1] and ["1"]: one key, as in a Go map
			continue
		}
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if int64(len(e.buf))+JSONStringSize(p.k) > limits.MaxStringSize {
			return ErrJSONSize
		}
		e.buf = appendJSONString(e.buf, p.k)
		e.buf = append(e.buf, ':')
		if err := e.item(p.v, path, p.k, 0, depth); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// item writes the value at key (an object's) or index (an array's) of the table at path.
func (e *jsonEnc) item(v lua.LValue, path *jsonPath, key string, index int, depth int) error {
	e.items++
	if e.items > maxConvertItems {
		return convertError("more than %d values to convert", maxConvertItems)
	}
	var here *jsonPath
	if _, nested := v.(*lua.LTable); nested || !isPlain(v) {
		here = &jsonPath{parent: path, key: key, index: index}
	}
	return e.value(v, here, depth+1)
}

// isPlain reports whether v can be written without an error that names its path.
func isPlain(v lua.LValue) bool {
	switch x := v.(type) {
	case *lua.LNilType, lua.LBool, lua.LString:
		return true
	case lua.LNumber:
		return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
	}
	return false
}

// appendJSONString writes s as encoding/json does without HTML escaping: \" \\ \b \f \n
// \r \t, other control characters as \u00XX, U+2028 and U+2029 escaped, invalid UTF-8 as
// \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := plainPrefix(s); i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainPrefix is the length of s's longest prefix, a multiple of 8 bytes, that JSON text
// holds as it is: ASCII from 0x20 on, without '"' and '\\'. Eight bytes are tested at once,
// so a long plain string (a log, a file) costs an eighth of a byte-by-byte scan.
func plainPrefix(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if (x|(x-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			break // a byte >= 0x80, < 0x20, '"' or '\\' in these eight
		}
	}
	return i
}
