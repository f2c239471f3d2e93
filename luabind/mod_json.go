package luabind

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
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

// jsonValues returns the state's json values, creating them on first use.
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

// decodeJSON decodes exactly one JSON value.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// openJSON builds the json module: encode, decode, null, array.
func openJSON(L *lua.LState, e *env) lua.LValue {
	jv := e.jsonValues(L)
	null, arrayMeta := jv.null, jv.arrayMeta

	mod := L.CreateTable(0, 4)
	mod.RawSetString("null", null)
	mod.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		v, err := ToGo(L.CheckAny(1))
		if err != nil {
			L.RaiseError("json.encode: %v", err)
		}
		b, err := marshalJSON(v)
		if err != nil {
			L.RaiseError("json.encode: %v", err)
		}
		L.Push(lua.LString(b))
		return 1
	}))
	mod.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		v, err := decodeJSON(L.CheckString(1))
		if err != nil {
			L.RaiseError("json.decode: %v", err)
		}
		L.Push(jsonToLua(L, v, null, arrayMeta))
		return 1
	}))
	mod.RawSetString("array", L.NewFunction(func(L *lua.LState) int {
		t := L.OptTable(1, L.NewTable())
		L.SetMetatable(t, arrayMeta)
		L.Push(t)
		return 1
	}))
	return mod
}

// marshalJSON encodes without HTML escaping, as people expect from a JSON library.
func marshalJSON(v any) ([]byte, error) {
	if err := checkFinite(v); err != nil {
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

// jsonToLua converts decoded JSON; arrays keep their json.array mark so they re-encode as [].
func jsonToLua(L *lua.LState, v any, null lua.LValue, arrayMeta *lua.LTable) lua.LValue {
	switch x := v.(type) {
	case nil:
		return null
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			L.RaiseError("json.decode: number %s is out of range", x)
		}
		return lua.LNumber(f)
	case []any:
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			t.RawSetInt(i+1, jsonToLua(L, e, null, arrayMeta))
		}
		t.Metatable = arrayMeta
		return t
	case map[string]any:
		t := L.CreateTable(0, len(x))
		for k, e := range x {
			t.RawSetString(k, jsonToLua(L, e, null, arrayMeta))
		}
		return t
	}
	return toLua(L, v)
}
