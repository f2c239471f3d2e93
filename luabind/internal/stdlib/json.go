package stdlib

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// NullValue is the Go value behind every state's json.null userdata.
var NullValue = &struct{ name string }{"json.null"}

// ArrayMarkKey is set in the metatable json.array gives a table.
const ArrayMarkKey = "__jsontype"

func IsMarkedArray(t *lua.LTable) bool {
	mt, ok := t.Metatable.(*lua.LTable)
	return ok && mt.RawGetString(ArrayMarkKey) == lua.LString("array")
}

// ErrJSONSize is the error of an encoding larger than limits.MaxStringSize.
var ErrJSONSize = limits.SizeError("json.encode")

// MarshalJSON encodes without HTML escaping, as people expect from a JSON library.
func MarshalJSON(v any) ([]byte, error) { return MarshalJSONPolled(v, nil) }

// MarshalJSONPolled is MarshalJSON, ticking poll (if not nil) for every value. It measures
// the text first, and refuses with ErrJSONSize to build one larger than limits.MaxStringSize.
func MarshalJSONPolled(v any, poll *limits.Poller) ([]byte, error) {
	z := jsonSizer{poll: poll}
	if err := z.add(v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func checkFinite(v any) error {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("cannot encode %v as JSON", x)
		}
	case []any:
		for _, e := range x {
			if err := checkFinite(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range x {
			if err := checkFinite(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonSizer adds up the size of the JSON text of values, as MarshalJSON writes it: exact
// for strings and integers, bounded for other numbers. It stops with ErrJSONSize as soon
// as the total passes limits.MaxStringSize, and refuses NaN and the infinities as checkFinite
// does.
type jsonSizer struct {
	n    int64
	poll *limits.Poller
}

func (z *jsonSizer) add(v any) error {
	if z.poll != nil {
		z.poll.Tick()
	}
	switch x := v.(type) {
	case nil:
		z.n += 4 // null
	case bool:
		z.n += 5 // false
	case string:
		if z.n+int64(len(x))+2 > limits.MaxStringSize {
			return ErrJSONSize
		}
		z.n += JSONStringSize(x)
	case int64:
		var buf [24]byte
		z.n += int64(len(strconv.AppendInt(buf[:0], x, 10)))
	case float64:
		if err := checkFinite(x); err != nil {
			return err
		}
		z.n += 32 // at most 25: -0.0000012345678901234567
	case []any:
		return z.addArray(x)
	case map[string]any:
		return z.addObject(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		z.n += int64(len(b))
	}
	if z.n > limits.MaxStringSize {
		return ErrJSONSize
	}
	return nil
}

func (z *jsonSizer) addArray(a []any) error {
	z.n += int64(len(a)) + 1 // brackets and commas
	for _, e := range a {
		if err := z.add(e); err != nil {
			return err
		}
	}
	return nil
}

func (z *jsonSizer) addObject(m map[string]any) error {
	z.n += 2*int64(len(m)) + 1 // braces, colons and commas
	for k, e := range m {
		if err := z.add(k); err != nil {
			return err
		}
		if err := z.add(e); err != nil {
			return err
		}
	}
	return nil
}

// JSONStringSize is the size of s encoded as a JSON string by encoding/json without HTML
// escaping: quotes, two-byte escapes, \u00XX for other control bytes, \ufffd for each invalid
// UTF-8 byte and \u2028, \u2029 escaped.
func JSONStringSize(s string) int64 {
	i := plainPrefix(s)
	n := int64(2 + i)
	for i < len(s) {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b >= 0x20 && b != '"' && b != '\\':
				n++
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 || c == '\u2028' || c == '\u2029' {
			n += 6
		} else {
			n += int64(size)
		}
		i += size
	}
	return n
}
