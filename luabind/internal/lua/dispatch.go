package lua

// The steps mainLoop takes itself for the common operands of a few instructions. Each
// reports false, having changed nothing, when its operands are not that case; the
// instruction then goes through jumpTable as before. Each leaves the registers, the top and
// the program counter as the handler would.

// takeJump is the JMP that follows a test or comparison whose condition did not skip it;
// the compiler always puts one there, and a JMP of any other origin is taken by its own
// handler.
func takeJump(cf *callFrame) {
	if next := cf.Fn.Proto.Code[cf.Pc]; int(next>>26) == OP_JMP {
		cf.Pc += int(next&0x3ffff) - opMaxArgSbx + 1
	}
}

// moveN is OP_MOVEN A B C: R(A) := R(B), then the C MOVE instructions that follow.
func moveN(reg *registry, cf *callFrame, inst uint32) bool {
	lbase, pc := cf.LocalBase, cf.Pc
	code := cf.Fn.Proto.Code
	c := int(inst>>9) & 0x1ff
	if pc+c > len(code) {
		return false
	}
	for _, in := range code[pc-1 : pc+c] { // the MOVEN itself (its A and B), then the MOVEs
		ra := lbase + int(in>>18)&0xff
		if ra >= len(reg.array) {
			reg.resize(ra + 1)
		}
		reg.array[ra] = reg.array[lbase+int(in&0x1ff)]
		if ra >= reg.top {
			reg.top = ra + 1
		}
	}
	cf.Pc = pc + c
	return true
}

// rk is RK(x) of the running frame.
func rk(L *LState, cf *callFrame, x int) LValue {
	if x&opBitRk != 0 {
		return cf.Fn.Proto.Constants[x&^opBitRk]
	}
	return L.reg.array[cf.LocalBase+x]
}

// arithStep is OP_ADD, OP_SUB or OP_MUL A B C for two numbers: R(A) := RK(B) op RK(C),
// boxed as SetNumber boxes it.
func arithStep(L *LState, cf *callFrame, inst uint32, ra int) bool {
	lhs, ok1 := rk(L, cf, int(inst&0x1ff)).(LNumber)
	rhs, ok2 := rk(L, cf, int(inst>>9)&0x1ff).(LNumber)
	if !ok1 || !ok2 {
		return false
	}
	var v LNumber
	switch int(inst >> 26) {
	case OP_ADD:
		v = lhs + rhs
	case OP_SUB:
		v = lhs - rhs
	default:
		v = lhs * rhs
	}
	rg := L.reg
	rg.array[ra] = rg.alloc.LNumber2I(v)
	if ra >= rg.top {
		rg.top = ra + 1
	}
	return true
}

// compareStep is OP_EQ, OP_LT or OP_LE A B C for two numbers, or OP_EQ for two strings:
// if (RK(B) op RK(C)) ~= A then pc++, else the jump that follows is taken.
func compareStep(L *LState, cf *callFrame, inst uint32) bool {
	lhs, rhs := rk(L, cf, int(inst&0x1ff)), rk(L, cf, int(inst>>9)&0x1ff)
	var ret bool
	if a, ok := lhs.(LNumber); ok {
		b, ok := rhs.(LNumber)
		if !ok {
			return false
		}
		switch int(inst >> 26) {
		case OP_EQ:
			ret = a == b
		case OP_LT:
			ret = a < b
		default:
			ret = a <= b
		}
	} else if a, ok := lhs.(LString); ok && int(inst>>26) == OP_EQ {
		b, ok := rhs.(LString)
		if !ok {
			return false
		}
		ret = a == b
	} else {
		return false
	}
	if ret != (int(inst>>18)&0xff != 0) {
		cf.Pc++
	} else {
		takeJump(cf)
	}
	return true
}

// forStep is OP_FORLOOP A sBx when the loop goes on: R(A) += R(A+2); if R(A) <?= R(A+1)
// then { pc += sBx; R(A+3) := R(A) }. The loop's end, and operands that are not numbers, go
// through the handler. The new value is boxed once for both registers.
func forStep(reg *registry, cf *callFrame, inst uint32, ra int) bool {
	if ra+3 >= len(reg.array) {
		return false
	}
	init, ok1 := reg.array[ra].(LNumber)
	limit, ok2 := reg.array[ra+1].(LNumber)
	step, ok3 := reg.array[ra+2].(LNumber)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	init += step
	if !((step > 0 && init <= limit) || (step <= 0 && init >= limit)) {
		return false
	}
	v := reg.alloc.LNumber2I(init)
	reg.array[ra] = v
	reg.array[ra+3] = v
	if ra+3 >= reg.top {
		reg.top = ra + 4
	}
	cf.Pc += int(inst&0x3ffff) - opMaxArgSbx
	return true
}

// The pairs of instructions compilers emit together, taken in one step: the second is run
// only when it is of the kind named and its operands are the common case, and it then
// leaves everything as its own handler would.

// fieldAfterGlobal takes the GETTABLEKS that follows a GETGLOBAL into register ra and reads
// a field of it (`string.find`, `json.encode`), when the field is in its inline cache.
func fieldAfterGlobal(reg *registry, cf *callFrame, e []fieldCache, ra int) {
	next := cf.Fn.Proto.Code[cf.Pc]
	k := int(next>>9) & 0x1ff
	if int(next>>26) != OP_GETTABLEKS || k&opBitRk == 0 || cf.LocalBase+int(next&0x1ff) != ra {
		return
	}
	rb := cf.LocalBase + int(next>>18)&0xff
	tb, ok := reg.array[ra].(*LTable)
	if c := &e[k&^opBitRk]; ok && rb < len(reg.array) && c.tb == tb && c.ver == tb.ver {
		reg.array[rb] = c.v
		if rb >= reg.top {
			reg.top = rb + 1
		}
		cf.Pc++
	}
}

// constantsAfter takes the LOADK and LOADBOOL (without a skip) that follow a LOADK: the
// constant arguments of a call.
func constantsAfter(reg *registry, cf *callFrame) {
	code, k := cf.Fn.Proto.Code, cf.Fn.Proto.Constants
	for {
		next := code[cf.Pc]
		ra := cf.LocalBase + int(next>>18)&0xff
		if ra >= len(reg.array) {
			return
		}
		switch int(next >> 26) {
		case OP_LOADK:
			reg.array[ra] = k[next&0x3ffff]
		case OP_LOADBOOL:
			if (next>>9)&0x1ff != 0 {
				return
			}
			if next&0x1ff != 0 {
				reg.array[ra] = LTrue
			} else {
				reg.array[ra] = LFalse
			}
		default:
			return
		}
		if ra >= reg.top {
			reg.top = ra + 1
		}
		cf.Pc++
	}
}

// testAfter takes the TEST of register ra that follows a step which set it (a call's
// result), with the JMP that follows the TEST.
func testAfter(reg *registry, cf *callFrame, ra int) {
	next := cf.Fn.Proto.Code[cf.Pc]
	if int(next>>26) != OP_TEST || cf.LocalBase+int(next>>18)&0xff != ra {
		return
	}
	cf.Pc++
	if LVAsBool(reg.array[ra]) == ((next>>9)&0x1ff == 0) {
		cf.Pc++
	} else {
		takeJump(cf)
	}
}

// goCall is OP_CALL A B C of a Go function fn in R(A) (not a metamethod's __call): the
// frame is written into the call stack's slot in place, where the handler builds it, copies
// it in through the stack's interface and looks it up again. It reports done false, having
// changed nothing, when the stack is not one that grows by segments or the call needs a new
// segment (the handler then makes it); stop is the handler's return of 1 (the call yielded
// to another thread): the loop ends. Otherwise it leaves everything as the handler would.
func (L *LState) goCall(fn *LFunction, inst uint32, ra int) (done, stop bool) {
	s, ok := L.stack.(*autoGrowingCallFrameStack)
	if !ok || s.segSp >= FramesPerSegment {
		return false, false
	}
	nargs := int(inst&0x1ff) - 1
	if nargs < 0 {
		nargs = L.reg.top - (ra + 1)
	}
	L.pollContext()
	f := &s.segments[s.segIdx].array[s.segSp]
	*f = callFrame{Idx: int(s.segSp) + FramesPerSegment*int(s.segIdx), Fn: fn, Base: ra, LocalBase: ra + 1,
		ReturnBase: ra, NArgs: nargs, NRet: int(inst>>9)&0x1ff - 1, Parent: L.currentFrame}
	s.segSp++
	L.reg.SetTop(ra + 1 + nargs)
	L.currentFrame = f
	return true, callGFunction(L, false)
}

// The call stack of luabind's states grows by segments (MinimizeStackMemory). Within its
// current segment, a frame is pushed, popped and found without the stack's interface: two
// dynamic calls and a copy of the 80-byte frame fewer per call. At a segment's edge, and on
// the fixed stack, these go through the interface as before.

// pushFrame pushes cf on the call stack and returns its slot, as Push then Last do; a full
// stack raises "stack overflow".
func (ls *LState) pushFrame(cf *callFrame) *callFrame {
	if s, ok := ls.stack.(*autoGrowingCallFrameStack); ok && s.segSp < FramesPerSegment {
		f := &s.segments[s.segIdx].array[s.segSp]
		*f = *cf
		f.Idx = int(s.segSp) + FramesPerSegment*int(s.segIdx)
		s.segSp++
		return f
	}
	if ls.stack.IsFull() {
		ls.RaiseError("stack overflow")
	}
	ls.stack.Push(*cf)
	return ls.stack.Last()
}

// popFrame pops the call stack's last frame, as Pop does, and reports whether the stack is
// then empty.
func (ls *LState) popFrame() (*callFrame, bool) {
	if s, ok := ls.stack.(*autoGrowingCallFrameStack); ok && s.segSp > 1 {
		s.segSp--
		return &s.segments[s.segIdx].array[s.segSp], false
	}
	f := ls.stack.Pop()
	return f, ls.stack.IsEmpty()
}

// lastFrame is the call stack's last frame, as Last gives it.
func (ls *LState) lastFrame() *callFrame {
	if s, ok := ls.stack.(*autoGrowingCallFrameStack); ok && s.segSp > 0 {
		return &s.segments[s.segIdx].array[s.segSp-1]
	}
	return ls.stack.Last()
}
