package kwflow

import (
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

const (
	gopherLua       = "github.com/yuin/gopher-lua"
	pinnedGopherLua = "v1.1.2"
	reread          = "the analysis relies on facts about gopher-lua's compiler and interpreter " +
		"(see the invariants in doc.go): re-read each against the new gopher-lua, and the " +
		"opcode handling in kwflow.go, before changing the pin"
)

// TestGopherLuaPinned fails when gopher-lua changes version: the analysis is only sound for
// the bytecode of the version it was written against.
func TestGopherLuaPinned(t *testing.T) {
	got := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == gopherLua {
				got = m.Version
				if m.Replace != nil {
					got = "replaced by " + m.Replace.Path + " " + m.Replace.Version
				}
			}
		}
	}
	if got == "" { // no module information in this test binary: read go.mod
		src, err := os.ReadFile("../../../go.mod")
		if err != nil {
			t.Fatalf("cannot tell which gopher-lua is used: %v", err)
		}
		if m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(gopherLua) + `\s+(\S+)`).FindSubmatch(src); m != nil {
			got = string(m[1])
		}
		if regexp.MustCompile(`(?m)^\s*replace\s.*` + regexp.QuoteMeta(gopherLua)).Match(src) {
			got = "replaced"
		}
	}
	if got != pinnedGopherLua {
		t.Errorf("gopher-lua is %q, the analysis was written against %s: %s", got, pinnedGopherLua, reread)
	}
}

// opcodes is gopher-lua v1.1.2's opcode table, in order: every lua.OP_* constant, its
// value, and the name its disassembler prints.
var opcodes = []struct {
	value int
	name  string
}{
	{lua.OP_MOVE, "MOVE"}, {lua.OP_MOVEN, "MOVEN"}, {lua.OP_LOADK, "LOADK"}, {lua.OP_LOADBOOL, "LOADBOOL"},
	{lua.OP_LOADNIL, "LOADNIL"}, {lua.OP_GETUPVAL, "GETUPVAL"}, {lua.OP_GETGLOBAL, "GETGLOBAL"},
	{lua.OP_GETTABLE, "GETTABLE"}, {lua.OP_GETTABLEKS, "GETTABLEKS"}, {lua.OP_SETGLOBAL, "SETGLOBAL"},
	{lua.OP_SETUPVAL, "SETUPVAL"}, {lua.OP_SETTABLE, "SETTABLE"}, {lua.OP_SETTABLEKS, "SETTABLEKS"},
	{lua.OP_NEWTABLE, "NEWTABLE"}, {lua.OP_SELF, "SELF"}, {lua.OP_ADD, "ADD"}, {lua.OP_SUB, "SUB"},
	{lua.OP_MUL, "MUL"}, {lua.OP_DIV, "DIV"}, {lua.OP_MOD, "MOD"}, {lua.OP_POW, "POW"}, {lua.OP_UNM, "UNM"},
	{lua.OP_NOT, "NOT"}, {lua.OP_LEN, "LEN"}, {lua.OP_CONCAT, "CONCAT"}, {lua.OP_JMP, "JMP"}, {lua.OP_EQ, "EQ"},
	{lua.OP_LT, "LT"}, {lua.OP_LE, "LE"}, {lua.OP_TEST, "TEST"}, {lua.OP_TESTSET, "TESTSET"},
	{lua.OP_CALL, "CALL"}, {lua.OP_TAILCALL, "TAILCALL"}, {lua.OP_RETURN, "RETURN"}, {lua.OP_FORLOOP, "FORLOOP"},
	{lua.OP_FORPREP, "FORPREP"}, {lua.OP_TFORLOOP, "TFORLOOP"}, {lua.OP_SETLIST, "SETLIST"},
	{lua.OP_CLOSE, "CLOSE"}, {lua.OP_CLOSURE, "CLOSURE"}, {lua.OP_VARARG, "VARARG"}, {lua.OP_NOP, "NOP"},
}

// TestOpcodesPinned fails when an opcode changes number or name, or one is added after
// OP_NOP: the analysis refuses opcodes it does not know, but one renumbered would be read
// as another.
func TestOpcodesPinned(t *testing.T) {
	for i, o := range opcodes {
		if o.value != i {
			t.Errorf("lua.OP_%s = %d, was %d: %s", o.name, o.value, i, reread)
		}
	}
	// The disassembler names each opcode from gopher-lua's own table, and prints nothing for
	// a number past the last.
	for i := range len(opcodes) + 1 {
		want := ""
		if i < len(opcodes) {
			want = opcodes[i].name
		}
		p := &lua.FunctionProto{Code: []uint32{uint32(i) << 26}, DbgSourcePositions: []int{1},
			FunctionPrototypes: []*lua.FunctionProto{{}}}
		m := regexp.MustCompile(`\[001\] (\S*)`).FindStringSubmatch(p.String())
		if m == nil || strings.TrimSpace(m[1]) != want && !(want == "" && strings.HasPrefix(m[1], "(line")) {
			t.Errorf("opcode %d disassembles as %q, want %q (OP_NOP = %d must be the last): %s", i, m, want, lua.OP_NOP, reread)
		}
	}
	if lua.OP_NOP != len(opcodes)-1 {
		t.Errorf("lua.OP_NOP = %d, want %d, the last opcode: %s", lua.OP_NOP, len(opcodes)-1, reread)
	}
}
