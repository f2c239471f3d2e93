package stdlib

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// oldEncode is json.encode as it was: toGo, then encoding/json through MarshalJSONPolled.
func oldEncode(v lua.LValue) (string, error) {
	g, err := ToGo(context.Background(), v)
	if err != nil {
		return "", err
	}
	b, err := MarshalJSONPolled(g, nil)
	return string(b), err
}

// sameEncoding checks that both encoders agree on v; with exactErrors, on the error message
// too (a value with several bad parts may have either one named, as tables have no order).
func sameEncoding(t *testing.T, what string, v lua.LValue, exactErrors bool) {
	t.Helper()
	want, werr := oldEncode(v)
	got, gerr := EncodeLua(v, nil)
	switch {
	case (werr == nil) != (gerr == nil):
		t.Fatalf("%s: error %v, want %v", what, gerr, werr)
	case exactErrors && werr != nil && werr.Error() != gerr.Error() && !errors.Is(werr, ErrJSONSize):
		t.Fatalf("%s: error %q, want %q", what, gerr, werr)
	case werr == nil && string(got) != want:
		t.Fatalf("%s:\n  got  %s\n  want %s", what, got, want)
	}
}

// json.encode writes what toGo and encoding/json wrote: every kind of value, every byte in
// a string, the float formats, and the errors with their paths.
func TestEncodeLuaJSONLikeToGo(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	var all strings.Builder
	for b := range 256 {
		all.WriteByte(byte(b))
	}
	strs := []string{"", "plain", all.String(), "é\u2028\u2029\U0001F600", "\xff\xfe bad utf8 \xc3", `"quoted" \ back`, "<html>&"}
	for _, s := range strs {
		sameEncoding(t, "string "+s, lua.LString(s), true)
	}
	for _, f := range []float64{0, -0.0, 1, -1, 0.1, 1.5, 1e-6, 1e-7, 9.99e-7, 1e20, 1e21, 1e22, 123456789.125,
		1 << 53, 1<<53 + 2, -(1 << 53) - 2, 1e300, -1e-300, 5e-324, math.MaxFloat64, math.NaN(), math.Inf(1)} {
		sameEncoding(t, "number", lua.LNumber(f), true)
	}
	code := `
local t = {}
t.simple = {a = 1, b = "x", c = true, d = {1, 2, 3}, e = {}, [5] = "five", [1.5] = "frac"}
t.nested = {{x = {y = {z = {1, {2, {3}}}}}}}
t.holes = {1, nil, 3}
t.mixed = {1, 2, name = "n"}
t.nulls = {json_null, 1}
t.fn = {ok = 1, bad = {deep = print}}
t.keys = {[true] = 1}
local c = {} c.self = c
t.cycle = {c}
t.deep = {} local d = t.deep for i = 1, 70 do d.n = {} d = d.n end
return t`
	if err := L.DoString(strings.Replace(code, "json_null", "nil", 1)); err != nil {
		t.Fatal(err)
	}
	tbl := L.Get(-1).(*lua.LTable)
	null := L.NewUserData()
	null.Value = NullValue
	tbl.RawGetString("nulls").(*lua.LTable).RawSetInt(1, null)
	tbl.ForEach(func(k, v lua.LValue) { sameEncoding(t, k.String(), v, true) })
	arr := L.NewTable()
	meta := L.NewTable()
	meta.RawSetString(ArrayMarkKey, lua.LString("array"))
	L.SetMetatable(arr, meta)
	sameEncoding(t, "marked empty array", arr, true)
	sameEncoding(t, "userdata", L.NewUserData(), true)
}

// FuzzEncodeLuaJSON builds a Lua value from the input and encodes it both ways.
func FuzzEncodeLuaJSON(f *testing.F) {
	f.Add([]byte{7, 1, 2, 3, 0, 8, 4, 5}, "key\x00\"é")
	f.Add([]byte{8, 8, 8, 1, 6, 2, 3}, "a")
	f.Add([]byte{9, 4, 200, 7, 5, 5, 5}, "\u2028x")
	f.Fuzz(func(t *testing.T, prog []byte, text string) {
		L := lua.NewState()
		defer L.Close()
		g := &luaGen{L: L, prog: prog, text: text}
		sameEncoding(t, "generated", g.value(0), false)
	})
}

// luaGen builds a Lua value by reading its program one byte at a time.
type luaGen struct {
	L    *lua.LState
	prog []byte
	text string
	n    int
}

func (g *luaGen) next() byte {
	if g.n >= len(g.prog) {
		return 0
	}
	b := g.prog[g.n]
	g.n++
	return b
}

func (g *luaGen) value(depth int) lua.LValue {
	switch op := g.next(); op % 10 {
	case 0:
		return lua.LNil
	case 1:
		return lua.LBool(op > 128)
	case 2:
		i := int(g.next()) % (len(g.text) + 1)
		return lua.LString(g.text[:i])
	case 3:
		return lua.LNumber(float64(int8(g.next())) / 4)
	case 4:
		return lua.LNumber(math.Ldexp(float64(g.next()), int(int8(g.next()))))
	case 5:
		return lua.LString(string(rune(g.next()) * 37))
	case 6:
		ud := g.L.NewUserData()
		if op > 100 {
			ud.Value = NullValue
		}
		return ud
	case 7, 8:
		t := g.L.NewTable()
		if depth > 8 {
			return t
		}
		n := int(g.next() % 6)
		for i := 1; i <= n; i++ {
			if op%10 == 7 {
				t.RawSetInt(i, g.value(depth+1))
			} else {
				t.RawSetString(g.text[:int(g.next())%(len(g.text)+1)]+string(rune('a'+i)), g.value(depth+1))
			}
		}
		return t
	}
	return g.L.NewFunction(func(*lua.LState) int { return 0 })
}

// FuzzPlainPrefix: the prefix plainPrefix skips is plain JSON text, and it stops only at a
// block of eight that is not.
func FuzzPlainPrefix(f *testing.F) {
	f.Add("0123456789abcdef\x1fz")
	f.Add(`plain text then a "quote" and a \ backslash`)
	f.Add("ascii \x7f and then ü")
	f.Fuzz(func(t *testing.T, s string) {
		plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
		n := plainPrefix(s)
		if n%8 != 0 || n > len(s) {
			t.Fatalf("plainPrefix(%q) = %d", s, n)
		}
		for i := range n {
			if !plain(s[i]) {
				t.Fatalf("plainPrefix(%q) = %d skips byte %d (%q)", s, n, i, s[i])
			}
		}
		if n+8 <= len(s) && !strings.ContainsFunc(s[n:n+8], func(r rune) bool { return r >= 0x80 || !plain(byte(r)) }) {
			t.Fatalf("plainPrefix(%q) = %d stops at a plain block", s, n)
		}
	})
}
