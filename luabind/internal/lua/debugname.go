package lua

// Error messages that name the variable, as Lua 5.1's luaG_typeerror does: "attempt to
// index local 'x' (a nil value)", "attempt to call global 'foo' (a nil value)", "attempt to
// perform arithmetic on field 'n' (a string value)". The error is raised where it happens,
// in the instruction that read the value, so the name is the one of the register that
// instruction read it from (getobjname in ldebug.c).

// typeError raises "attempt to <op> <name> (a <type> value)<suffix>", or without a name
// "attempt to <op> a <type> value<suffix>".
func (ls *LState) typeError(o LValue, op, suffix string) {
	if name := ls.operandName(o); name != "" {
		ls.RaiseError("attempt to %s %s (a %s value)%s", op, name, o.Type().String(), suffix)
	}
	ls.RaiseError("attempt to %s a %s value%s", op, o.Type().String(), suffix)
}

// arithError raises the error of arithmetic on lhs and rhs, naming the first operand that
// is not a number (or a string convertible to one), as luaG_aritherror.
func (ls *LState) arithError(lhs, rhs LValue) {
	bad := lhs
	if _, ok := lhs.(LNumber); ok {
		bad = rhs
	} else if s, ok := lhs.(LString); ok {
		if _, err := parseNumber(string(s)); err == nil {
			bad = rhs
		}
	}
	ls.typeError(bad, "perform arithmetic on", "")
}

// concatError raises the error of concatenating lhs and rhs, naming the operand that is
// not a string or a number, as luaG_concaterror.
func (ls *LState) concatError(lhs, rhs LValue) {
	bad := lhs
	if LVCanConvToString(lhs) {
		bad = rhs
	}
	ls.typeError(bad, "concatenate", "")
}

// compareError raises the error of comparing lhs and rhs, as luaG_ordererror.
func (ls *LState) compareError(lhs, rhs LValue) {
	t1, t2 := lhs.Type().String(), rhs.Type().String()
	if t1 == t2 {
		ls.RaiseError("attempt to compare two %s values", t1)
	}
	ls.RaiseError("attempt to compare %s with %s", t1, t2)
}

// operandName names o when the instruction running in the current Lua function read it
// from a register: "local 'x'", "global 'x'", "field 'x'", "method 'x'", "upvalue 'x'"; ""
// otherwise (a Go function running, a constant, a value met through a metamethod).
func (ls *LState) operandName(o LValue) string {
	cf := ls.currentFrame
	if cf == nil || cf.Fn == nil || cf.Fn.IsG || cf.Pc <= 0 || cf.Pc > len(cf.Fn.Proto.Code) {
		return ""
	}
	p, pc := cf.Fn.Proto, cf.Pc-1
	inst := p.Code[pc]
	a, b, c := int(inst>>18)&0xff, int(inst&0x1ff), int(inst>>9)&0x1ff
	var regs []int
	switch int(inst >> 26) {
	case OP_GETTABLE, OP_GETTABLEKS, OP_SELF, OP_UNM, OP_LEN:
		regs = []int{b}
	case OP_SETTABLE, OP_SETTABLEKS, OP_CALL, OP_TAILCALL, OP_TFORLOOP:
		regs = []int{a}
	case OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_POW, OP_LT, OP_LE:
		for _, rk := range []int{b, c} {
			if rk&opBitRk == 0 {
				regs = append(regs, rk)
			}
		}
	case OP_CONCAT:
		for r := b; r <= c; r++ {
			regs = append(regs, r)
		}
	}
	for _, r := range regs {
		if idx := cf.LocalBase + r; idx < len(ls.reg.array) {
			if v := ls.reg.array[idx]; v == o {
				return varName(p, r, pc)
			}
		}
	}
	return ""
}

// varName names the value in register reg at pc, from the local variable it is or the
// instruction that last put it there: "local 'x'", "global 'x'", "field 'x'",
// "method 'x'", "upvalue 'x'", or "" when it cannot tell.
func varName(p *FunctionProto, reg, pc int) string {
	if n := localName(p, reg, pc); n != "" {
		return "local '" + n + "'"
	}
	for q := pc - 1; q >= 0; q-- {
		inst := p.Code[q]
		op := int(inst >> 26)
		a, b, c := int(inst>>18)&0xff, int(inst&0x1ff), int(inst>>9)&0x1ff
		if op == OP_JMP || op == OP_CLOSE {
			continue
		}
		if a != reg {
			if op == OP_SELF && a+1 == reg { // R(A+1) := R(B): the object itself
				return varName(p, b, q)
			}
			continue
		}
		switch op {
		case OP_GETTABLE, OP_GETTABLEKS:
			if k := constString(p, c); k != "" {
				return "field '" + k + "'"
			}
		case OP_SELF:
			if k := constString(p, c); k != "" {
				return "method '" + k + "'"
			}
		case OP_GETGLOBAL:
			if bx := int(inst & 0x3ffff); bx < len(p.Constants) {
				return "global '" + p.Constants[bx].String() + "'"
			}
		case OP_GETUPVAL:
			if b < len(p.DbgUpvalues) {
				return "upvalue '" + p.DbgUpvalues[b] + "'"
			}
		case OP_MOVE:
			if b < a {
				return varName(p, b, q)
			}
		}
		return ""
	}
	return ""
}

// constString is the string constant an RK operand names, or "".
func constString(p *FunctionProto, rk int) string {
	if rk&opBitRk == 0 {
		return ""
	}
	if k := rk &^ opBitRk; k < len(p.Constants) {
		if s, ok := p.Constants[k].(LString); ok {
			return string(s)
		}
	}
	return ""
}

// localName is the name of the local variable held in register reg at pc, or "".
func localName(p *FunctionProto, reg, pc int) string {
	n := 0
	for _, l := range p.DbgLocals {
		if l.StartPc <= pc && pc < l.EndPc {
			if n == reg {
				return l.Name
			}
			n++
		}
	}
	return ""
}
