package log

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules/modulestest"
)

// convertingVU counts the tables converted for the log.
type convertingVU struct {
	*modulestest.VU
	converted int
}

func (vu *convertingVU) ToGo(v lua.LValue) (any, error) {
	vu.converted++
	return vu.VU.ToGo(v)
}

// TestFieldsOverTheBudgetAreNotConverted: a fields table larger than what is left of the
// call's log budget drops its record, counted, without being converted (a table of a
// million keys took seconds); fields that fit are logged.
func TestFieldsOverTheBudgetAreNotConverted(t *testing.T) {
	vu := &convertingVU{VU: modulestest.New(t)}
	var out bytes.Buffer
	inst := Module{Logger: slog.New(slog.NewTextHandler(&out, nil))}.NewModuleInstance(vu).(*Instance)
	vu.L.SetGlobal("log", inst.Exports())
	err := vu.L.DoString(`
local big, deep = {}, {}
for i = 1, 200000 do big["key" .. i] = i end
for i = 1, 100 do deep[i] = {string.rep("x", 20000)} end
log.info("small", {a = "b"})
log.info("big", big)
log.info("deep", {d = deep})
log.info("after", {c = 1})`)
	if err != nil {
		t.Fatal(err)
	}
	inst.EndCall()
	got := out.String()
	for _, want := range []string{"msg=small a=b", "msg=after c=1", "log budget exceeded: 2 records dropped"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "msg=big") || strings.Contains(got, "msg=deep") {
		t.Errorf("a record over the budget was logged:\n%.500s", got)
	}
	if vu.converted != 2 {
		t.Errorf("%d tables converted, want 2 (the ones logged)", vu.converted)
	}
}
