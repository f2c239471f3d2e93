package stdlib

import (
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// decodeLimited decodes text in a bare state with a memory limit, returning the value, the
// syntax error or the raised error.
func decodeLimited(t *testing.T, text string, limit int64) (v lua.LValue, err error) {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	fn := L.NewFunction(func(L *lua.LState) int {
		var derr error
		v, derr = DecodeLua(L, text, limit, lua.LNil, nil)
		if derr != nil {
			L.RaiseError("json.decode: %v", derr)
		}
		return 0
	})
	return v, L.CallByParam(lua.P{Fn: fn, NRet: 0, Protect: true})
}

// TestJSONDecodeRefusesBeforeBuilding: json.decode refuses a text larger than the memory
// limit, a value that would take more than the limit and nesting deeper than encoding/json
// allows, before it builds anything; what is within the limits decodes.
func TestJSONDecodeRefusesBeforeBuilding(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		text  string
		limit int64
		err   string // "" = decodes
	}{
		{`"` + strings.Repeat("x", 2<<20) + `"`, 1 << 20, "limit exceeded: memory: json.decode: the text (2.0 MiB)"},
		{"[" + strings.Repeat("1,", 100_000) + "1]", 1 << 20, "limit exceeded: memory: json.decode: the value would take at least 1.5 MiB"},
		{strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000), 1 << 20, "limit exceeded: memory"},
		{"[" + strings.Repeat("1,", 10_000) + "1]", 1 << 20, ""},
		{deep(jsonMaxDepth), 0, ""},
		{deep(jsonMaxDepth + 1), 0, "exceeded max depth"},
		{`["[[[[", "\"[[[["]`, 0, ""},
	} {
		_, err := decodeLimited(t, c.text, c.limit)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%.40s...: %v", c.text, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%.40s...: error %v, want one with %q", c.text, err, c.err)
		}
	}
}
