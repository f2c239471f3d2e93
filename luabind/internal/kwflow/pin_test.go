package kwflow

import (
	"regexp"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

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

// reread says what to do when the opcodes change.
const reread = "the analysis relies on facts about the compiler and interpreter (see the invariants " +
	"in doc.go): re-read each against the change, and the opcode handling in kwflow.go"

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
