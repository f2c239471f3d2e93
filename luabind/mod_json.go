package luabind

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// nullValue is the Go value behind every state's json.null userdata.
var nullValue = &struct{ name string }{"json.null"}

// arrayMarkKey is set in the metatable json.array gives a table.
const arrayMarkKey = "__jsontype"

func isMarkedArray(t *lua.LTable) bool {
	mt, ok := t.Metatable.(*lua.LTable)
	return ok && mt.RawGetString(arrayMarkKey) == lua.LString("array")
}

// jsonValues are one state's json.null and the metatable json.array sets. The json module
// and the http module's decoded responses share them, so `v == json.null` holds for both.
type jsonValues struct {
	null      *lua.LUserData
	arrayMeta *lua.LTable
}

// jsonValues returns the state's json modules.Values, creating them on first use.
func (e *env) jsonValues(L *lua.LState) *jsonValues {
	if e.json == nil {
		null := L.NewUserData()
		null.Value = nullValue
		arrayMeta := L.CreateTable(0, 1)
		arrayMeta.RawSetString(arrayMarkKey, lua.LString("array"))
		e.json = &jsonValues{null: null, arrayMeta: arrayMeta}
	}
	return e.json
}

// openJSON builds the json module: encode, decode, null, array.
func openJSON(L *lua.LState, e *env) lua.LValue {
	jv := e.jsonValues(L)
	null, arrayMeta := jv.null, jv.arrayMeta

	mod := modules.FuncTable(L, map[string]lua.LGFunction{
		"encode": modules.Fn1(func(L *lua.LState, value lua.LValue) (string, error) {
			if value == lua.LNil && L.GetTop() == 0 {
				L.ArgError(1, "value expected")
			}
			text, err := encodeLuaJSON(value, &limits.Poller{L: L})
			if errors.Is(err, errJSONSize) {
				return "", err
			} else if err != nil {
				return "", fmt.Errorf("json.encode: %v", err)
			}
			limits.ChargeString(L, len(text))
			return text, nil
		}),
		"decode": modules.Fn1(func(L *lua.LState, text string) (lua.LValue, error) {
			v, err := decodeJSONLua(L, text, e.MemoryLimit(), null, arrayMeta)
			if err != nil {
				return nil, fmt.Errorf("json.decode: %v", err)
			}
			return v, nil
		}),
		"array": modules.Fn1(func(L *lua.LState, t lua.LValue) (lua.LValue, error) {
			table, ok := t.(*lua.LTable)
			switch {
			case t == lua.LNil:
				table = L.NewTable()
			case !ok:
				L.ArgError(1, "table expected, got "+t.Type().String())
			}
			L.SetMetatable(table, arrayMeta)
			return table, nil
		}),
	})
	mod.RawSetString("null", null)
	return mod
}

// errJSONSize is the error of an encoding larger than limits.MaxStringSize.
var errJSONSize = limits.SizeError("json.encode")

// marshalJSON encodes without HTML escaping, as people expect from a JSON library.
func marshalJSON(v any) ([]byte, error) { return marshalJSONPolled(v, nil) }

// marshalJSONPolled is marshalJSON, ticking poll (if not nil) for every value. It measures
// the text first, and refuses with errJSONSize to build one larger than limits.MaxStringSize.
func marshalJSONPolled(v any, poll *limits.Poller) ([]byte, error) {
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

// jsonSizer adds up the size of the JSON text of modules.Values, as marshalJSON writes it: exact
// for strings and integers, bounded for other numbers. It stops with errJSONSize as soon
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
			return errJSONSize
		}
		z.n += jsonStringSize(x)
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
		return errJSONSize
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

// jsonStringSize is the size of s encoded as a JSON string by encoding/json without HTML
// escaping: quotes, two-byte escapes, \u00XX for other control bytes, \ufffd for each invalid
// UTF-8 byte and \u2028, \u2029 escaped.
func jsonStringSize(s string) int64 {
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
