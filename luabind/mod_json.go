package luabind

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

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

// openJSON builds the json module: encode, decode, null, array.
func openJSON(L *lua.LState, _ *env) lua.LValue {
	null := L.NewUserData()
	null.Value = nullValue
	arrayMeta := L.CreateTable(0, 1)
	arrayMeta.RawSetString(arrayMarkKey, lua.LString("array"))

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
		s := L.CheckString(1)
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			L.RaiseError("json.decode: %v", err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			L.RaiseError("json.decode: unexpected data after the JSON value")
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
		f, _ := x.Float64()
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
