package kwflow

import (
	"fmt"
	"math/bits"
	"slices"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Use is what a function may do with one of its parameters.
type Use struct {
	// ReadOnly: the table never leaves the call, no closure can reach it, and nothing is
	// written into it. It may then be refilled for the next call.
	ReadOnly bool
	// Why the table is not ReadOnly, for a hook author ("line 5: kw is returned").
	Why string
	// Escaping lists the fields (constant keys) whose values may leave the call; AnyField
	// says that a field read with a key known only at run time may. The table in such a
	// field must be new for every call even when the table itself is refilled.
	Escaping []string
	AnyField bool
	// Reads lists the fields (constant keys) the function may look up in the table;
	// ReadsAny says that it may look one up with a key known only at run time. A field
	// neither names is never seen by the function.
	Reads    []string
	ReadsAny bool
	// Guards are the upvalues whose functions the analysis followed the table into
	// (AnalyzeFunc): the answer holds only as long as none of them is written (Holds).
	Guards []Guard
	// Inner says, for a field whose table the function reads in turn (kw.request.system),
	// which of that table's fields it looks up (Field); InnerAny that a field's table was
	// looked up in when the function read the field with a key known only at run time.
	Inner    map[string]Reads
	InnerAny bool
}

// Reads are the fields the function may look up in a table: Keys (constant keys), Any
// (a key known only at run time).
type Reads struct {
	Keys []string
	Any  bool
}

// Field is what the function may do with the table in field key, when it is a table: it
// only reads it when the field's value never leaves the call (Refill), and then it looks up
// only the fields Inner names, so a field it never looks up there is Unread too. Values read
// out of that table are not tracked: they may leave the call (AnyField), so the tables in
// it are never refilled. The zero Use (nothing known) otherwise.
func (u Use) Field(key string) Use {
	if !u.Refill(key) || u.ReadsAny || u.InnerAny {
		return Use{}
	}
	r := u.Inner[key]
	return Use{ReadOnly: true, AnyField: true, Reads: r.Keys, ReadsAny: r.Any}
}

// A Guard is an upvalue holding a function the table is passed to, which the analysis
// read as part of the caller, and how many times it had been written then.
type Guard struct {
	Up     *lua.Upvalue
	Writes uint64
}

// Holds reports whether every function the analysis followed the table into is still
// where it was: no guarded upvalue has been written since. When one has, a call may have
// handed the table to another function, which may keep it: the table must never be
// refilled again.
func (u *Use) Holds() bool {
	for _, g := range u.Guards {
		if g.Up.Writes() != g.Writes {
			return false
		}
	}
	return true
}

// Refill reports whether the table in field key may be refilled rather than rebuilt.
func (u Use) Refill(key string) bool {
	return u.ReadOnly && !u.AnyField && !slices.Contains(u.Escaping, key)
}

// Unread reports whether the function can never see the value of field key: the table is
// read-only and the function looks up neither key nor a key known only at run time. Such a
// field need not be converted for it at all.
func (u Use) Unread(key string) bool {
	return u.ReadOnly && !u.ReadsAny && !slices.Contains(u.Reads, key)
}

const (
	taintTable   = uint64(1) << 63 // the table itself
	taintAnyKey  = uint64(1) << 62 // a field read with a run-time key
	taintKeyBits = 62              // bits below: a field read with constant key number i
	maxCells     = 1 << 20         // registers × instructions analysed before giving up
	maxRegisters = 256             // A is 8 bits wide
)

// Analyze reports what p does with its parameter number param (from 0). Anything it does
// not understand makes the table not ReadOnly; so does passing the table to any function.
func Analyze(p *lua.FunctionProto, param int) Use {
	return analyze(p, nil, param, new(int), 0)
}

// AnalyzeFunc is Analyze for the function fn, which may pass the table to a Lua function
// it holds in an upvalue: the table stays read-only when that function only reads it (by
// the same analysis, to maxDepth calls deep), as long as the upvalue is not written again
// (Use.Guards). The upvalue must be closed (the scope that declared it has ended), so that
// only a write through it can change it.
func AnalyzeFunc(fn *lua.LFunction, param int) Use {
	if fn == nil || fn.IsG || fn.Proto == nil {
		return Use{Why: "the callback is a Go function"}
	}
	return analyze(fn.Proto, fn, param, new(int), 0)
}

// Bounds of AnalyzeFunc's following of calls: how deep, and how many functions in all.
const (
	maxDepth   = 4
	maxFollows = 16
)

// analyze is Analyze, following calls of fn's upvalues when fn is not nil; follows counts
// the functions followed into so far, across the whole analysis, and depth is how many
// calls deep p is.
func analyze(p *lua.FunctionProto, fn *lua.LFunction, param int, follows *int, depth int) Use {
	switch {
	case int(p.NumParameters) <= param && p.IsVarArg == 0: // the function cannot see the table
		return Use{ReadOnly: true}
	case int(p.NumParameters) <= param:
		return Use{Why: "the function takes its arguments through ..."}
	case len(p.Code) == 0:
		return Use{Why: "the callback's bytecode could not be analysed"}
	}
	a := &flow{p: p, fn: fn, param: param, whyPC: -1, follows: follows, depth: depth}
	if !a.scan() {
		return Use{Why: "the callback's bytecode could not be analysed"}
	}
	if a.nreg*len(p.Code) > maxCells {
		return Use{Why: "the callback is too large to analyse"}
	}
	a.in = make([]uint64, a.nreg*len(p.Code))
	a.inFn = make([]int16, a.nreg*len(p.Code))
	a.reached = make([]bool, len(p.Code))
	a.in[param] = taintTable
	for r := range a.nreg {
		a.inFn[r] = notUp
	}
	if a.captured[param] { // the parameter's own register is shared with a closure
		a.pc = a.capturedBy[param]
		a.capture(param, taintTable, a.capturedBy[param])
	}
	a.reached[0] = true
	work := []int{0}
	for len(work) > 0 && !a.failed {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		for _, next := range a.step(pc) {
			if next < 0 || next >= len(p.Code) || a.pseudo[next] {
				a.failed = true
				break
			}
			if a.merge(next) {
				work = append(work, next)
			}
		}
	}
	switch {
	case a.failed:
		return Use{Why: "the callback's bytecode could not be analysed"}
	case a.escaped&taintTable != 0 || a.closed != 0:
		return Use{Why: a.why}
	}
	return a.use()
}

// use is what a finished analysis found. A function followed may be replaced during a
// call, before it is called (the guards then stop the reuse from the next call on): the one
// called instead may look up any field, so every field is converted.
func (a *flow) use() Use {
	p := a.p
	u := Use{ReadOnly: true, AnyField: a.escaped&taintAnyKey != 0, ReadsAny: a.read&taintAnyKey != 0 || len(a.guards) > 0, Guards: a.guards,
		InnerAny: a.innerAny}
	for i := range min(taintKeyBits, len(p.Constants)) {
		s, ok := p.Constants[i].(lua.LString)
		if ok && a.escaped&(1<<i) != 0 {
			u.Escaping = append(u.Escaping, string(s))
		}
		if ok && a.read&(1<<i) != 0 {
			u.Reads = append(u.Reads, string(s))
			r := Reads{Any: a.inner[i]&taintAnyKey != 0}
			for j := range min(taintKeyBits, len(p.Constants)) {
				if k, ok := p.Constants[j].(lua.LString); ok && a.inner[i]&(1<<j) != 0 {
					r.Keys = append(r.Keys, string(k))
				}
			}
			if u.Inner == nil {
				u.Inner = map[string]Reads{}
			}
			u.Inner[string(s)] = r
		}
	}
	for _, k := range a.calleeEscaping {
		if !slices.Contains(u.Escaping, k) {
			u.Escaping = append(u.Escaping, k)
		}
	}
	for _, k := range a.calleeReads {
		if !slices.Contains(u.Reads, k) {
			u.Reads = append(u.Reads, k)
		}
	}
	return u
}

// flow is the state of one analysis.
type flow struct {
	p       *lua.FunctionProto
	fn      *lua.LFunction // the function of p whose upvalues' functions calls are followed into; nil: none
	param   int            // the register of the parameter analysed
	nreg    int            // registers tracked
	pseudo  []bool         // pseudo[pc]: the word is an operand of the instruction before, not one
	in      []uint64
	inFn    []int16 // per instruction and register: the upvalue whose value it holds, or notUp
	reached []bool
	cur     []uint64 // registers while one instruction is interpreted
	curFn   []int16  // and which upvalue's value each holds
	pc      int      // the instruction being interpreted
	failed  bool

	// captured[r]: some OP_CLOSURE of the function captures register r, the first one at
	// instruction capturedBy[r], as its upvalue capturedAs[r].
	captured   [maxRegisters]bool
	capturedBy [maxRegisters]int
	capturedAs [maxRegisters]string

	escaped uint64 // union of the masks of every value that may leave the call
	read    uint64 // the fields looked up in the table (taintAnyKey: with a run-time key)
	closed  uint64 // union of the masks of every value a closure may reach
	why     string // the first reason the table is not read-only, by instruction order
	whyPC   int

	inner    [taintKeyBits]uint64 // inner[i]: the keys looked up in the value of the field of constant i
	innerAny bool                 // a key was looked up in the value of a field read with a run-time key

	depth          int      // how many calls deep the function analysed is
	follows        *int     // functions followed into by the whole analysis
	guards         []Guard  // the upvalues of the functions followed into
	calleeReads    []string // fields those functions may look up
	calleeEscaping []string // fields whose values may leave through them
}

// notUp marks a register that holds no known upvalue's value.
const notUp = -1

// scan reads the code once in order: it marks the words that are operands rather than
// instructions, collects the registers closures capture, and sizes the register file. It
// reports false when the code does not have the shape the invariants describe.
func (a *flow) scan() bool {
	code := a.p.Code
	a.pseudo = make([]bool, len(code))
	n := int(a.p.NumUsedRegisters) + 1
	for pc := 0; pc < len(code); pc++ {
		inst := code[pc]
		A, C := opA(inst), opC(inst)
		switch op(inst) {
		case lua.OP_CLOSURE:
			bx := opBx(inst)
			if bx >= len(a.p.FunctionPrototypes) {
				return false
			}
			child := a.p.FunctionPrototypes[bx]
			ups := int(child.NumUpvalues)
			if pc+ups >= len(code) {
				return false
			}
			for i := 1; i <= ups; i++ {
				up := code[pc+i]
				a.pseudo[pc+i] = true
				switch op(up) {
				case lua.OP_MOVE:
					r := opB(up)
					if r >= maxRegisters {
						return false
					}
					if !a.captured[r] {
						a.captured[r], a.capturedBy[r] = true, pc
						if i-1 < len(child.DbgUpvalues) {
							a.capturedAs[r] = child.DbgUpvalues[i-1]
						}
					}
					n = max(n, r+1)
				case lua.OP_GETUPVAL:
				default:
					return false
				}
			}
			n = max(n, A+1)
			pc += ups
		case lua.OP_SETLIST:
			n = max(n, A+1)
			if C == 0 {
				if pc+1 >= len(code) {
					return false
				}
				a.pseudo[pc+1] = true
				pc++
			}
		case lua.OP_TFORLOOP:
			n = max(n, A+6, A+3+C)
		case lua.OP_FORLOOP, lua.OP_FORPREP:
			n = max(n, A+4)
		case lua.OP_LOADNIL:
			n = max(n, A+1, opB(inst)+1)
		default:
			n = max(n, A+1)
		}
	}
	a.nreg = min(n, maxRegisters)
	return a.param < a.nreg
}

// merge adds the registers after the instruction just interpreted to those before next and
// reports whether that changed anything.
func (a *flow) merge(next int) bool {
	changed := !a.reached[next]
	a.reached[next] = true
	dst := a.in[next*a.nreg : (next+1)*a.nreg]
	dstFn := a.inFn[next*a.nreg : (next+1)*a.nreg]
	first := changed
	for r, m := range a.cur {
		if dst[r]|m != dst[r] {
			dst[r] |= m
			changed = true
		}
		switch f := a.curFn[r]; {
		case first:
			dstFn[r] = f
		case dstFn[r] != f && dstFn[r] != notUp: // two paths disagree: neither is known
			dstFn[r] = notUp
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

// set writes m into register r. A register a closure captures shares what it holds with
// the closure, whenever the closure was or will be made.
func (a *flow) set(r int, m uint64) {
	if r < 0 || r >= a.nreg {
		a.failed = true
		return
	}
	a.cur[r] = m
	a.curFn[r] = notUp
	if m != 0 && a.captured[r] {
		a.capture(r, m, a.capturedBy[r])
	}
}

// capture records that the value m, in register r at instruction a.pc, is reachable by the
// closure made at instruction by.
func (a *flow) capture(r int, m uint64, by int) {
	a.closed |= m
	what := a.value(m) + " is captured by a closure"
	switch name := a.capturedAs[r]; {
	case by == a.pc: // captured there and then
	case name != "":
		what += fmt.Sprintf(" (the closure at line %d captures %s)", a.line(by), name)
	default:
		what += fmt.Sprintf(" (the closure at line %d captures its register)", a.line(by))
	}
	a.note(what)
}

// readInner records that key (a constant's bit, or taintAnyKey) is looked up in the values of
// the fields fields holds.
func (a *flow) readInner(fields, key uint64) {
	if fields&taintAnyKey != 0 {
		a.innerAny = true
	}
	for f := fields &^ taintAnyKey; f != 0; f &= f - 1 {
		a.inner[bits.TrailingZeros64(f)] |= key
	}
}

// escape records that the value in register r may leave the callback's control.
func (a *flow) escape(r int) {
	m := a.reg(r)
	a.escaped |= m
	if m&taintTable != 0 {
		a.note(a.name() + " " + a.how(r))
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

// clearFrom sets every register from r up to values that are none of the table's.
func (a *flow) clearFrom(r int) {
	for ; r < a.nreg; r++ {
		a.cur[r] = 0
		a.curFn[r] = notUp
	}
}

// note keeps why as the reason, unless one found at an earlier instruction is kept already.
func (a *flow) note(why string) {
	if a.whyPC < 0 || a.pc < a.whyPC {
		a.why, a.whyPC = fmt.Sprintf("line %d: %s", a.line(a.pc), why), a.pc
	}
}

func (a *flow) line(pc int) int {
	if pc < len(a.p.DbgSourcePositions) {
		return a.p.DbgSourcePositions[pc]
	}
	return 0
}

// name is the parameter's name in the source, "kw" when the debug information lacks it.
// Parameters are the first locals; the scopes of the others are not reliable (gopher-lua
// records a local's end on the entry numbered by its register).
func (a *flow) name() string {
	if a.param < len(a.p.DbgLocals) && a.p.DbgLocals[a.param].Name != "" {
		return a.p.DbgLocals[a.param].Name
	}
	return "kw"
}

// value names what a mask holds, for a hook author: kw, kw.args, a field of kw.
func (a *flow) value(m uint64) string {
	switch keys := m &^ (taintTable | taintAnyKey); {
	case m&taintTable != 0:
		return a.name()
	case keys != 0:
		i := bits.TrailingZeros64(keys)
		if s, ok := a.p.Constants[i].(lua.LString); ok && isName(string(s)) {
			return a.name() + "." + string(s)
		}
		return fmt.Sprintf("%s[%q]", a.name(), a.p.Constants[i].String())
	default:
		return "a field of " + a.name()
	}
}

func isName(s string) bool {
	for i, c := range s {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// how says how instruction a.pc lets the table (in register r) escape.
func (a *flow) how(r int) string {
	inst := a.p.Code[a.pc]
	switch op(inst) {
	case lua.OP_CALL, lua.OP_TAILCALL:
		if r == opA(inst) {
			return "is called"
		}
		return "is passed to a function"
	case lua.OP_RETURN:
		return "is returned"
	case lua.OP_SETGLOBAL:
		return "is stored in a global"
	case lua.OP_SETUPVAL:
		return "is stored in an upvalue"
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		switch r {
		case opA(inst):
			return "is written into"
		case opB(inst):
			return "is used as a table key"
		}
		return "is stored in a table"
	case lua.OP_SETLIST:
		return "is stored in a table"
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		return "is used as a table key"
	case lua.OP_SELF:
		return "has a method called on it"
	case lua.OP_TFORLOOP:
		return "is iterated by a generic for"
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW, lua.OP_UNM,
		lua.OP_CONCAT, lua.OP_LT, lua.OP_LE, lua.OP_FORLOOP, lua.OP_FORPREP:
		return "is an operand of an operator"
	}
	return "is used in a way that may keep it"
}

// Instruction fields, as gopher-lua lays them out (opcode.go).
const opBitRK = 1 << 8

func op(i uint32) int    { return int(i >> 26) }
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
	a.curFn = slices.Clone(a.inFn[pc*a.nreg : (pc+1)*a.nreg])
	if a.stepData(pc) {
		return []int{pc + 1}
	}
	return a.stepControl(pc)
}

// stepData interprets the instructions that move, read, write or compute values and then
// go on with the next one; it reports false for any other.
func (a *flow) stepData(pc int) bool {
	code := a.p.Code
	inst := code[pc]
	A, B, C := opA(inst), opB(inst), opC(inst)
	switch op(inst) {
	case lua.OP_MOVE:
		f := a.fnOf(B)
		a.set(A, a.reg(B))
		a.holds(A, f)
	case lua.OP_MOVEN: // the MOVEs that follow are then read as such
		for i := 1; i <= C; i++ {
			if pc+i >= len(code) || op(code[pc+i]) != lua.OP_MOVE {
				a.failed = true
			}
		}
		f := a.fnOf(B)
		a.set(A, a.reg(B))
		a.holds(A, f)
	case lua.OP_GETUPVAL:
		a.set(A, 0)
		a.holds(A, int16(B))
	case lua.OP_LOADK, lua.OP_GETGLOBAL, lua.OP_NEWTABLE:
		a.set(A, 0)
	case lua.OP_LOADNIL:
		for r := A; r <= B; r++ {
			a.set(r, 0)
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		a.escapeRK(C)      // a key is passed to the base's __index
		key := taintAnyKey // the key looked up: a constant's bit, or any
		if k := C &^ opBitRK; C&opBitRK != 0 && k < min(taintKeyBits, len(a.p.Constants)) &&
			a.p.Constants[k].Type() == lua.LTString {
			key = 1 << k
		}
		var m uint64
		base := a.reg(B)
		if base&taintTable != 0 { // a field of the table; anything else read is fresh
			m = key
			a.read |= m
		}
		a.readInner(base&^taintTable, key)
		a.set(A, m)
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL:
		a.escape(A)
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		a.escape(A) // writing into the table or a field counts as escaping
		a.escapeRK(B)
		a.escapeRK(C)
	case lua.OP_SELF:
		a.escape(B)
		a.escapeRK(C)
		self := a.reg(B)
		a.set(A, 0)
		a.set(A+1, self)
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
		a.escapeRK(B) // an operand's metamethod receives both
		a.escapeRK(C)
		a.set(A, 0)
	case lua.OP_UNM:
		a.escape(B)
		a.set(A, 0)
	case lua.OP_NOT, lua.OP_LEN: // the engine's tables have no metatable: no __len
		a.reg(B)
		a.set(A, 0)
	case lua.OP_CONCAT:
		for r := B; r <= C; r++ {
			a.escape(r)
		}
		a.set(A, 0)
	default:
		return false
	}
	return true
}

// stepControl interprets the other instructions: jumps, tests, calls, loops, closures.
func (a *flow) stepControl(pc int) []int {
	code := a.p.Code
	inst := code[pc]
	A, B, C := opA(inst), opB(inst), opC(inst)
	next := []int{pc + 1}
	switch op(inst) {
	case lua.OP_LOADBOOL:
		a.set(A, 0)
		if C != 0 {
			next = []int{pc + 2}
		}
	case lua.OP_JMP:
		next = []int{pc + 1 + opSBx(inst)}
	case lua.OP_EQ: // __eq runs only when both operands share it; the engine's tables have none
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
		if !a.call(inst) {
			return nil
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
	case lua.OP_FORLOOP, lua.OP_FORPREP:
		a.escape(A)
		a.escape(A + 1)
		a.escape(A + 2)
		a.set(A, 0)
		if op(inst) == lua.OP_FORPREP {
			next = []int{pc + 1 + opSBx(inst)}
			break
		}
		a.set(A+3, 0)
		next = append(next, pc+1+opSBx(inst))
	case lua.OP_TFORLOOP:
		if !a.tforloop(pc, inst) {
			return nil
		}
		next = append(next, pc+2) // pc+1 is the OP_JMP back into the loop, pc+2 the way out
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
		next = []int{pc + 1 + a.closure(pc, inst)}
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

// call interprets OP_CALL and OP_TAILCALL; false means the function ends there.
func (a *flow) call(inst uint32) bool {
	A, B, C := opA(inst), opB(inst), opC(inst)
	a.escape(A)
	if B == 0 {
		a.escapeFrom(A + 1)
	} else {
		passed := a.followed(A, B)
		for r := A + 1; r < A+B; r++ {
			if r == passed { // only its fields may leave, through the function followed
				a.escaped |= a.reg(r) &^ taintTable
				continue
			}
			a.escape(r)
		}
	}
	if op(inst) == lua.OP_TAILCALL {
		return false
	}
	if C == 0 {
		a.clearFrom(A)
	} else {
		for r := A; r < A+C-1; r++ {
			a.set(r, 0)
		}
	}
	return true
}

// fnOf is the upvalue whose value register r holds, or notUp.
func (a *flow) fnOf(r int) int16 {
	if r < 0 || r >= a.nreg {
		return notUp
	}
	return a.curFn[r]
}

// holds records that register r holds the value of upvalue up (notUp: none known). A
// register a closure captures may be changed by the closure: it is never known.
func (a *flow) holds(r int, up int16) {
	if r >= 0 && r < a.nreg && !a.captured[r] {
		a.curFn[r] = up
	}
}

// followed decides a call of R(A) with the B-1 arguments from R(A+1) that passes the
// table: when R(A) is a Lua function of an upvalue of a.fn and the table is passed once,
// the function is analysed in turn, and when it only reads the table, the table does not
// escape through the call; followed returns the register of the table then (else -1),
// and the fields the function reads or lets escape count as the caller's.
func (a *flow) followed(A, B int) int {
	passed := -1
	for r := A + 1; r < A+B; r++ {
		if a.reg(r)&taintTable != 0 {
			if passed >= 0 { // twice: the function could write through one what it reads through the other
				return -1
			}
			passed = r
		}
	}
	up := a.fnOf(A)
	if passed < 0 || up == notUp || a.fn == nil || int(up) >= len(a.fn.Upvalues) {
		return -1
	}
	uv := a.fn.Upvalues[up]
	if uv == nil || !uv.IsClosed() {
		return -1
	}
	callee, ok := uv.Value().(*lua.LFunction)
	if !ok || callee.IsG || callee.Proto == nil {
		return -1
	}
	name := "a function"
	if int(up) < len(a.p.DbgUpvalues) {
		name = a.p.DbgUpvalues[up]
	}
	if *a.follows >= maxFollows || a.depth >= maxDepth {
		a.note(fmt.Sprintf("%s is passed to %s, too deep in calls to follow", a.name(), name))
		return -1
	}
	*a.follows++
	sub := analyze(callee.Proto, callee, passed-A-1, a.follows, a.depth+1)
	if !sub.ReadOnly {
		a.note(fmt.Sprintf("%s is passed to %s, where %s", a.name(), name, sub.Why))
		return -1
	}
	a.guards = append(append(a.guards, Guard{Up: uv, Writes: uv.Writes()}), sub.Guards...)
	a.calleeReads = append(a.calleeReads, sub.Reads...)
	a.calleeEscaping = append(a.calleeEscaping, sub.Escaping...)
	if sub.ReadsAny {
		a.read |= taintAnyKey
	}
	if sub.AnyField {
		a.escaped |= taintAnyKey
	}
	return passed
}

// tforloop interprets OP_TFORLOOP; false means the bytecode is not of the shape expected.
func (a *flow) tforloop(pc int, inst uint32) bool {
	code := a.p.Code
	A, C := opA(inst), opC(inst)
	if pc+1 >= len(code) || op(code[pc+1]) != lua.OP_JMP {
		a.failed = true
		return false
	}
	a.escape(A)
	a.escape(A + 1)
	a.escape(A + 2)
	gen, state, control := a.reg(A), a.reg(A+1), a.reg(A+2)
	a.set(A+3, gen) // copies for the call, above the results when there are few
	a.set(A+4, state)
	a.set(A+5, control)
	for r := A + 3; r < A+3+C; r++ {
		a.set(r, 0)
	}
	a.set(A+2, control) // or the first result, which is fresh
	return true
}

// closure interprets OP_CLOSURE and returns how many words of upvalue operands follow it.
func (a *flow) closure(pc int, inst uint32) int {
	code := a.p.Code
	A := opA(inst)
	ups := int(a.p.FunctionPrototypes[opBx(inst)].NumUpvalues) // checked by scan
	a.set(A, 0)
	for i := 1; i <= ups; i++ {
		if up := code[pc+i]; op(up) == lua.OP_MOVE {
			if m := a.reg(opB(up)); m != 0 {
				a.capture(opB(up), m, pc)
			}
		}
	}
	return ups
}
