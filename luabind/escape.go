package luabind

import (
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Whether a callback's kwargs table can be reused from call to call is decided by reading
// the callback's bytecode once, at load: a table the callback only reads (fields looked
// up, compared, tested for truth or length) can be refilled for the next call without the
// callback being able to tell. A table that is stored, passed to a function, returned,
// captured by a closure, written to, or used where a metamethod of another value could
// receive it, may outlive the call, and is rebuilt every time.
//
// The analysis is a forward data-flow pass over the function's instructions. Each
// register carries a mask of what it may hold: the kwargs table itself, or the value of
// one of its fields (one bit per constant key, one for keys known only at run time).
// Values read out of a field are not tracked: nested tables deeper than kw's own fields
// are always built fresh.

// kwargsUse is what a callback may do with its first parameter.
type kwargsUse struct {
	readOnly  bool     // kw itself never escapes and is never written
	anyField  bool     // a field read with a key known only at run time may escape
	escapeKey []string // fields (constant keys) whose values may escape
	why       string   // when not readOnly: why, for a hook author ("line 5: kw is returned")

	// When readOnly, the keys the callback may read from kw, and from the table in each of
	// its fields (a field missing from fields: none). A key it never reads need not be
	// filled in: it cannot tell, since it never lets the table out.
	reads  keySet
	fields map[string]keySet
}

// keySet is the keys a function may read from a table: all of them, or those listed.
type keySet struct {
	all  bool
	keys []string
}

// fieldReads is the keySet of the table in field k.
func (u kwargsUse) fieldReads(k string) keySet {
	if u.fields == nil {
		return keySet{all: true}
	}
	return u.fields[k] // none when the field's table is never read
}

// reuseField reports whether the table in field k may be refilled rather than rebuilt.
func (u kwargsUse) reuseField(k string) bool {
	return u.readOnly && !u.anyField && !slices.Contains(u.escapeKey, k)
}

const (
	taintKW      = uint64(1) << 63 // the kwargs table
	taintAnyKey  = uint64(1) << 62 // a field read with a run-time key
	taintKeyBits = 62              // bits below: a field read with constant key number i
	maxCells     = 1 << 20         // registers × instructions analysed before giving up
)

// analyzeKwargs reads p's bytecode and reports what it does with its first parameter.
func analyzeKwargs(p *lua.FunctionProto) kwargsUse { return analyzeParam(p, 0) }

// analyzeParam reports what p does with its parameter number i (from 0). Anything it does
// not understand makes the table not reusable.
func analyzeParam(p *lua.FunctionProto, i int) kwargsUse {
	a := flow{p: p, nreg: registers(p), param: i}
	switch {
	case int(p.NumParameters) <= i && p.IsVarArg == 0: // the function cannot see the table
		return kwargsUse{readOnly: true}
	case int(p.NumParameters) <= i:
		return kwargsUse{why: "the function takes its arguments through ..."}
	case len(p.Code) == 0 || a.nreg*len(p.Code) > maxCells:
		return kwargsUse{why: "the callback is too large to analyse"}
	}
	a.in = make([]uint64, a.nreg*len(p.Code))
	a.reached = make([]bool, len(p.Code))
	a.in[i] = taintKW
	a.reached[0] = true
	work := []int{0}
	for len(work) > 0 && !a.failed {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		for _, next := range a.step(pc) {
			if next < 0 || next >= len(p.Code) {
				a.failed = true
				break
			}
			if a.merge(pc, next) {
				work = append(work, next)
			}
		}
	}
	if a.failed {
		return kwargsUse{why: "the callback's bytecode could not be analysed"}
	}
	if a.escaped&taintKW != 0 {
		return kwargsUse{why: a.why}
	}
	u := kwargsUse{readOnly: true, anyField: a.escaped&taintAnyKey != 0}
	u.reads = keySet{all: a.kwReadsAll}
	if !u.reads.all {
		u.reads.keys = []string{}
	}
	u.fields = map[string]keySet{}
	for i := range min(taintKeyBits, len(p.Constants)) {
		s, ok := p.Constants[i].(lua.LString)
		if !ok {
			continue
		}
		if a.escaped&(1<<i) != 0 {
			u.escapeKey = append(u.escapeKey, string(s))
		}
		if a.kwReads&(1<<i) != 0 {
			u.reads.keys = append(u.reads.keys, string(s))
		}
		if fs := (keySet{all: a.fieldReadsAll || a.fieldReadAll&(1<<i) != 0}); fs.all || a.fieldReads[i] != 0 {
			for j := range min(taintKeyBits, len(p.Constants)) {
				if c, ok := p.Constants[j].(lua.LString); ok && a.fieldReads[i]&(1<<j) != 0 && !fs.all {
					fs.keys = append(fs.keys, string(c))
				}
			}
			u.fields[string(s)] = fs
		}
	}
	if a.fieldReadsAll { // a field read with a run-time key may be any field: read them all
		u.fields = nil
	}
	return u
}

// registers is how many registers p's instructions may touch. gopher-lua's
// NumUsedRegisters can be short of it: an empty generic for writes its loop variables above.
func registers(p *lua.FunctionProto) int {
	n := int(p.NumUsedRegisters) + 1
	for _, inst := range p.Code {
		A := opA(inst)
		switch int(inst >> 26) {
		case lua.OP_TFORLOOP:
			n = max(n, A+3+opC(inst)+1)
		case lua.OP_FORLOOP, lua.OP_FORPREP:
			n = max(n, A+4)
		default:
			n = max(n, A+1)
		}
	}
	return min(n, 256)
}

// flow is the state of one analysis.
type flow struct {
	p       *lua.FunctionProto
	nreg    int
	in      []uint64 // in[pc*nreg+r]: what register r may hold before instruction pc
	reached []bool
	cur     []uint64 // registers while one instruction is interpreted
	param   int      // the register of the parameter analysed
	pc      int      // the instruction being interpreted
	escaped uint64   // union of the masks of every value that escapes
	why     string   // where and how kw itself first escaped
	failed  bool

	// The keys read: from kw (constant key numbers as bits; all of them), from the tables
	// in its fields (per field's key number; fields read with a run-time key), and from a
	// field read with a run-time key.
	kwReads       uint64
	kwReadsAll    bool
	fieldReads    [taintKeyBits]uint64
	fieldReadAll  uint64
	fieldReadsAll bool
}

// merge adds the registers after instruction pc to those before next and reports whether
// that changed anything.
func (a *flow) merge(pc, next int) bool {
	changed := !a.reached[next]
	a.reached[next] = true
	dst := a.in[next*a.nreg : (next+1)*a.nreg]
	for r, m := range a.cur {
		if dst[r]|m != dst[r] {
			dst[r] |= m
			changed = true
		}
	}
	return changed
}

// reg is register r's mask, or a failure when the bytecode names a register it should not.
func (a *flow) reg(r int) uint64 {
	if r < 0 || r >= a.nreg {
		a.failed = true
		return 0
	}
	return a.cur[r]
}

func (a *flow) set(r int, m uint64) {
	if r < 0 || r >= a.nreg {
		a.failed = true
		return
	}
	a.cur[r] = m
}

// escape records that the value in register r may leave the callback's control.
func (a *flow) escape(r int) {
	m := a.reg(r)
	a.escaped |= m
	if m&taintKW != 0 && a.why == "" {
		a.why = a.describe(r)
	}
}

// describe says, for a hook author, how instruction pc lets kw (in register r) escape.
func (a *flow) describe(r int) string {
	name := "kw"
	if a.param < len(a.p.DbgLocals) && a.p.DbgLocals[a.param].Name != "" {
		name = a.p.DbgLocals[a.param].Name
	}
	inst := a.p.Code[a.pc]
	how := "is used in a way that may keep it"
	switch int(inst >> 26) {
	case lua.OP_CALL, lua.OP_TAILCALL:
		how = "is passed to a function"
		if r == opA(inst) {
			how = "is called"
		}
	case lua.OP_RETURN:
		how = "is returned"
	case lua.OP_SETGLOBAL:
		how = "is stored in a global"
	case lua.OP_SETUPVAL:
		how = "is stored in an upvalue"
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		how = "is stored in a table"
		switch r {
		case opA(inst):
			how = "is written into"
		case opB(inst):
			how = "is used as a table key"
		}
	case lua.OP_SETLIST:
		how = "is stored in a table"
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		how = "is used as a table key"
	case lua.OP_SELF:
		how = "has a method called on it"
	case lua.OP_CLOSURE:
		how = "is captured by a closure"
	case lua.OP_TFORLOOP:
		how = "is iterated by a generic for"
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW, lua.OP_UNM,
		lua.OP_CONCAT, lua.OP_LT, lua.OP_LE, lua.OP_FORLOOP, lua.OP_FORPREP:
		how = "is an operand of an operator"
	}
	if a.pc < len(a.p.DbgSourcePositions) {
		return fmt.Sprintf("line %d: %s %s", a.p.DbgSourcePositions[a.pc], name, how)
	}
	return name + " " + how
}

// read records that a table the mask base may hold is read with constant key number key
// (-1: a key known only at run time).
func (a *flow) read(base uint64, key int) {
	if base&taintKW != 0 {
		if key >= 0 {
			a.kwReads |= 1 << key
		} else {
			a.kwReadsAll = true
		}
	}
	if base&taintAnyKey != 0 {
		a.fieldReadsAll = true
	}
	for f := range taintKeyBits {
		if base&(1<<f) != 0 {
			if key >= 0 {
				a.fieldReads[f] |= 1 << key
			} else {
				a.fieldReadAll |= 1 << f
			}
		}
	}
}

// escapeRK is escape for an RK operand (a register or a constant).
func (a *flow) escapeRK(rk int) {
	if rk&opBitRK == 0 {
		a.escape(rk)
	}
}

// escapeFrom escapes every register from r up: an operand list that runs to the top.
func (a *flow) escapeFrom(r int) {
	for ; r < a.nreg; r++ {
		a.escape(r)
	}
}

func (a *flow) clearFrom(r int) {
	for ; r < a.nreg; r++ {
		a.cur[r] = 0
	}
}

// Instruction fields, as gopher-lua lays them out (opcode.go).
const opBitRK = 1 << 8

func opA(i uint32) int   { return int(i>>18) & 0xff }
func opB(i uint32) int   { return int(i & 0x1ff) }
func opC(i uint32) int   { return int(i>>9) & 0x1ff }
func opBx(i uint32) int  { return int(i & 0x3ffff) }
func opSBx(i uint32) int { return opBx(i) - (1<<18-1)>>1 }

// step interprets instruction pc on its registers and returns the instructions that may
// run next; the registers after it are left in a.cur.
func (a *flow) step(pc int) []int {
	a.pc = pc
	a.cur = slices.Clone(a.in[pc*a.nreg : (pc+1)*a.nreg])
	inst := a.p.Code[pc]
	A, B, C := opA(inst), opB(inst), opC(inst)
	next := []int{pc + 1}
	switch int(inst >> 26) {
	case lua.OP_MOVE, lua.OP_MOVEN: // the MOVEs that follow a MOVEN are read as such
		a.set(A, a.reg(B))
	case lua.OP_LOADK, lua.OP_GETUPVAL, lua.OP_GETGLOBAL, lua.OP_NEWTABLE:
		a.set(A, 0)
	case lua.OP_LOADBOOL:
		a.set(A, 0)
		if C != 0 {
			next = []int{pc + 2}
		}
	case lua.OP_LOADNIL:
		for r := A; r <= B; r++ {
			a.set(r, 0)
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		a.escapeRK(C) // a key is passed to the base's __index
		key := -1     // the key's constant number, when it is a constant string
		if C&opBitRK != 0 {
			if k := C &^ opBitRK; k < min(taintKeyBits, len(a.p.Constants)) && a.p.Constants[k].Type() == lua.LTString {
				key = k
			}
		}
		base := a.reg(B)
		a.read(base, key)
		var m uint64
		if base&taintKW != 0 {
			m = taintAnyKey
			if key >= 0 {
				m = 1 << key
			}
		}
		a.set(A, m) // what is read out of a field is fresh every call
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL:
		a.escape(A)
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		a.escape(A) // writing into kw or a field counts as escaping
		a.escapeRK(B)
		a.escapeRK(C)
	case lua.OP_SELF:
		a.escape(B)
		a.escapeRK(C)
		a.set(A, 0)
		a.set(A+1, 0)
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
		a.escapeRK(B) // an operand's metamethod receives both
		a.escapeRK(C)
		a.set(A, 0)
	case lua.OP_UNM:
		a.escape(B)
		a.set(A, 0)
	case lua.OP_NOT, lua.OP_LEN: // our tables have no metatable: no __len
		a.reg(B)
		a.set(A, 0)
	case lua.OP_CONCAT:
		for r := B; r <= C; r++ {
			a.escape(r)
		}
		a.set(A, 0)
	case lua.OP_JMP:
		next = []int{pc + 1 + opSBx(inst)}
	case lua.OP_EQ: // __eq runs only when both operands share it; ours have none
		next = append(next, pc+2)
	case lua.OP_LT, lua.OP_LE:
		a.escapeRK(B)
		a.escapeRK(C)
		next = append(next, pc+2)
	case lua.OP_TEST:
		next = append(next, pc+2)
	case lua.OP_TESTSET:
		a.set(A, a.reg(A)|a.reg(B))
		next = append(next, pc+2)
	case lua.OP_CALL, lua.OP_TAILCALL:
		a.escape(A)
		if B == 0 {
			a.escapeFrom(A + 1)
		} else {
			for r := A + 1; r < A+B; r++ {
				a.escape(r)
			}
		}
		if int(inst>>26) == lua.OP_TAILCALL {
			return nil
		}
		if C == 0 {
			a.clearFrom(A)
		} else {
			for r := A; r < A+C-1; r++ {
				a.set(r, 0)
			}
		}
	case lua.OP_RETURN:
		if B == 0 {
			a.escapeFrom(A)
		} else {
			for r := A; r < A+B-1; r++ {
				a.escape(r)
			}
		}
		return nil
	case lua.OP_FORLOOP:
		a.escape(A)
		a.escape(A + 1)
		a.escape(A + 2)
		a.set(A, 0)
		a.set(A+3, 0)
		next = append(next, pc+1+opSBx(inst))
	case lua.OP_FORPREP:
		a.escape(A)
		a.escape(A + 1)
		a.escape(A + 2)
		a.set(A, 0)
		next = []int{pc + 1 + opSBx(inst)}
	case lua.OP_TFORLOOP:
		a.escape(A)
		a.escape(A + 1)
		a.escape(A + 2)
		for r := A + 2; r <= A+2+C; r++ {
			a.set(r, 0)
		}
		next = append(next, pc+2)
	case lua.OP_SETLIST:
		if B == 0 {
			a.escapeFrom(A + 1)
		} else {
			for r := A + 1; r <= A+B; r++ {
				a.escape(r)
			}
		}
		if C == 0 { // the next word is C itself
			next = []int{pc + 2}
		}
	case lua.OP_CLOSE, lua.OP_NOP:
	case lua.OP_CLOSURE:
		if bx := opBx(inst); bx < len(a.p.FunctionPrototypes) {
			n := int(a.p.FunctionPrototypes[bx].NumUpvalues)
			for i := 1; i <= n && pc+i < len(a.p.Code); i++ {
				if up := a.p.Code[pc+i]; int(up>>26) == lua.OP_MOVE {
					a.escape(opB(up)) // captured as an upvalue
				}
			}
			next = []int{pc + 1 + n}
		} else {
			a.failed = true
		}
		a.set(A, 0)
	case lua.OP_VARARG:
		if B == 0 {
			a.clearFrom(A)
		} else {
			for r := A; r < A+B-1; r++ {
				a.set(r, 0)
			}
		}
	default:
		a.failed = true
	}
	return next
}
