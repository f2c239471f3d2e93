package lua

import "strings"

// A deny list searched in a loop, the way command guards are written:
//
//	for _, p in ipairs(banned) do
//	  if string.find(cmd, p, 1, true) then ... end
//	end
//
// Each element costs the ipairs step, the function's lookup, the argument moves, the call
// and the test of its result: five dispatches, where the search itself is a few
// nanoseconds. The compiler marks such loops (findLoopsOf, after patchCode), and the
// ipairs step (ipairsStep) runs the elements whose search misses in one Go loop: a miss
// changes nothing but the loop's registers and the body's temporaries, and runs no Lua
// code, no metamethod and no function but the builtin plain find, so that element's
// iteration has no effect a later one could see. The first element whose search would
// hit, or that the loop cannot decide (an element that is not a string, a pattern with
// special characters and no plain flag), is left to the body, which then runs as before:
// its search is done again there. The registers are left as the element-by-element run
// leaves them.

// A findSrc is where one operand of the loop's call comes from.
type findSrc struct {
	kind uint8
	a, b int
}

const (
	srcNone   uint8 = iota
	srcConst        // the constant a
	srcBool         // true when a ~= 0
	srcLocal        // register a (relative to the frame), a local the body does not write
	srcValue        // the loop's value variable: the element
	srcGlobal       // the global of constant a (the first step of srcField)
	srcField        // field of constant b of the global of constant a: `string.find`
	srcUpval        // upvalue a: `local find = string.find` above the function
)

// findLoop is the analysis of one loop over ipairs whose body starts with `if f(args) then`
// and has nothing after that if: its TFORLOOP at pc, the call's register, argument count,
// function and arguments, and the highest register the body's prefix writes.
type findLoop struct {
	pc    int // the TFORLOOP's index in the code
	a     int // the TFORLOOP's A: its control variable is a+2, relative to the frame
	callA int // the call's register, relative to the frame
	nargs int
	fn    findSrc
	args  [4]findSrc
	hi    int // one past the highest register the body's prefix and call use, relative to the frame
}

// findLoopsOf finds the loops of p's code that the ipairs step may run in one Go loop.
func findLoopsOf(p *FunctionProto) []findLoop {
	var out []findLoop
	code := p.Code
	for pc, inst := range code {
		if opGetOpCode(inst) != OP_TFORLOOP || pc+1 >= len(code) || opGetOpCode(code[pc+1]) != OP_JMP {
			continue
		}
		if l, ok := findLoopAt(p, pc); ok {
			out = append(out, l)
		}
	}
	return out
}

// findLoopAt reads the body of the loop whose TFORLOOP is at pc.
func findLoopAt(p *FunctionProto, pc int) (findLoop, bool) {
	code := p.Code
	tfor := code[pc]
	a, c := opGetArgA(tfor), opGetArgC(tfor)
	if c < 2 {
		return findLoop{}, false // the value is not bound: nothing to search for
	}
	free := a + 3 + c // the first register the body may use for temporaries
	start := pc + 2 + opGetArgSbx(code[pc+1])
	if start < 0 || start >= pc {
		return findLoop{}, false
	}
	src := map[int]findSrc{}
	read := func(r int) (findSrc, bool) {
		if s, ok := src[r]; ok {
			return s, true
		}
		switch {
		case r == a+4:
			return findSrc{kind: srcValue}, true
		case r < a:
			return findSrc{kind: srcLocal, a: r}, true
		}
		return findSrc{}, false // the loop's hidden state, its key, or a temporary not yet set
	}
	hi := free
	for at := start; at < pc; at++ {
		inst := code[at]
		ra := opGetArgA(inst)
		op := opGetOpCode(inst)
		if op != OP_CALL && ra < free {
			return findLoop{}, false // the body writes a local of the function or of the loop
		}
		hi = max(hi, ra+1)
		switch op {
		case OP_MOVE, OP_MOVEN: // MOVEN is a MOVE followed by the MOVEs it names
			s, ok := read(opGetArgB(inst))
			if !ok {
				return findLoop{}, false
			}
			src[ra] = s
		case OP_LOADK:
			src[ra] = findSrc{kind: srcConst, a: opGetArgBx(inst)}
		case OP_LOADBOOL:
			if opGetArgC(inst) != 0 {
				return findLoop{}, false
			}
			src[ra] = findSrc{kind: srcBool, a: opGetArgB(inst)}
		case OP_GETGLOBAL:
			src[ra] = findSrc{kind: srcGlobal, a: opGetArgBx(inst)}
		case OP_GETUPVAL:
			src[ra] = findSrc{kind: srcUpval, a: opGetArgB(inst)}
		case OP_GETTABLEKS:
			g, k := src[opGetArgB(inst)], opGetArgC(inst)
			if g.kind != srcGlobal || k&opBitRk == 0 || opGetArgB(inst) < free {
				return findLoop{}, false
			}
			src[ra] = findSrc{kind: srcField, a: g.a, b: k &^ opBitRk}
		case OP_CALL:
			// CALL A B C; TEST A 0 0; JMP to the TFORLOOP: `if f(...) then ... end` and
			// nothing after it in the body.
			nargs := opGetArgB(inst) - 1
			if ra < free || nargs < 2 || nargs > 4 || opGetArgC(inst) != 2 || at+2 >= pc {
				return findLoop{}, false
			}
			test, jmp := code[at+1], code[at+2]
			if opGetOpCode(test) != OP_TEST || opGetArgA(test) != ra || opGetArgC(test) != 0 ||
				opGetOpCode(jmp) != OP_JMP || at+3+opGetArgSbx(jmp) != pc {
				return findLoop{}, false
			}
			l := findLoop{pc: pc, a: a, callA: ra, nargs: nargs, hi: max(hi, ra+nargs+1)}
			var ok bool
			if l.fn, ok = src[ra]; !ok || (l.fn.kind != srcField && l.fn.kind != srcUpval && l.fn.kind != srcLocal) {
				return findLoop{}, false
			}
			for i := range nargs {
				s, ok := src[ra+1+i]
				if !ok {
					return findLoop{}, false
				}
				l.args[i] = s
			}
			return l, true
		default:
			return findLoop{}, false
		}
	}
	return findLoop{}, false
}

// findLoopFor is the loop of fn's code whose TFORLOOP is at pc, or nil.
func findLoopFor(p *FunctionProto, pc int) *findLoop {
	for i := range p.findLoops {
		if p.findLoops[i].pc == pc {
			return &p.findLoops[i]
		}
	}
	return nil
}

// value is the operand s for the element v, or nil when it cannot be had without running
// the body (a cache miss).
func (s findSrc) value(L *LState, cf *callFrame, v LValue) LValue {
	switch s.kind {
	case srcConst:
		return cf.Fn.Proto.Constants[s.a]
	case srcBool:
		if s.a != 0 {
			return LTrue
		}
		return LFalse
	case srcLocal:
		return L.reg.array[cf.LocalBase+s.a]
	case srcValue:
		return v
	case srcUpval:
		return cf.Fn.Upvalues[s.a].Value()
	case srcGlobal:
		e, env := cf.Fn.fields.entries, cf.Fn.Env
		if e == nil || env == nil {
			return nil
		}
		if g := &e[s.a]; g.tb == env && g.ver == env.ver {
			return g.v
		}
	case srcField:
		e := cf.Fn.fields.entries
		env := cf.Fn.Env
		if e == nil || env == nil {
			return nil
		}
		g := &e[s.a]
		if g.tb != env || g.ver != env.ver {
			return nil
		}
		tb, ok := g.v.(*LTable)
		if f := &e[s.b]; ok && f.tb == tb && f.ver == tb.ver {
			return f.v
		}
	}
	return nil
}

// findLoopPoll is how many elements the loop searches between two polls of the context.
const findLoopPoll = 64

// skipMisses is called by the ipairs step of l's TFORLOOP (A at ra, C loop variables) when
// element i of tb, v, is about to enter the body. It searches that element and the ones
// after it while the body's search misses, and returns the first element the body must
// run for (its index and value), or v == LNil when every element left misses: the loop
// ends. skipped reports whether any element was passed over.
func (L *LState) skipMisses(l *findLoop, cf *callFrame, tb *LTable, i int, v LValue) (int, LValue, bool) {
	fn, ok := l.fn.value(L, cf, nil).(*LFunction)
	if !ok || !fn.IsG || fn.Builtin != BuiltinStringFind {
		return i, v, false
	}
	var args [4]LValue
	for k := range l.nargs {
		if l.args[k].kind != srcValue {
			if args[k] = l.args[k].value(L, cf, nil); args[k] == nil {
				return i, v, false
			}
		}
	}
	if l.args[0].kind != srcValue && l.args[1].kind == srcValue && (l.nargs < 3 || l.args[2].kind != srcValue) &&
		(l.nargs < 4 || l.args[3].kind != srcValue) {
		return L.skipPatterns(l, cf, tb, i, v, args[:l.nargs])
	}
	skipped := false
	for n := 1; ; n++ {
		for k := range l.nargs {
			if l.args[k].kind == srcValue {
				args[k] = v
			}
		}
		if !plainMiss(args[:l.nargs]) {
			return i, v, skipped
		}
		if n%findLoopPoll == 0 {
			L.reg.array[cf.LocalBase+l.a+2] = IntValue(i) // where the loop is, should the poll stop it
			L.pollContext()
		}
		skipped = true
		i++
		if v = tb.RawGetInt(i); v == LNil {
			return i - 1, LNil, true
		}
	}
}

// plainMiss reports whether string.find(args...) is a plain search (BuiltinStringFind's
// case) that finds nothing.
func plainMiss(args []LValue) bool {
	s, ok := args[0].(LString)
	p, ok2 := args[1].(LString)
	if !ok || !ok2 {
		return false
	}
	init := int64(1)
	if len(args) >= 3 {
		switch n := args[2].(type) {
		case LNumber:
			init = IntArg(float64(n))
		default:
			if n != LNil {
				return false
			}
		}
	}
	if !(len(args) == 4 && LVAsBool(args[3])) && strings.ContainsAny(string(p), findSpecials) {
		return false
	}
	from := findStart(init, len(s))
	return !strings.Contains(string(s[from:]), string(p))
}

// skipPatterns is skipMisses for the common case, where only the pattern is the loop's
// value: the string searched, where the search starts and whether it is plain are decided
// once for the whole loop.
func (L *LState) skipPatterns(l *findLoop, cf *callFrame, tb *LTable, i int, v LValue, args []LValue) (int, LValue, bool) {
	s, ok := args[0].(LString)
	if !ok {
		return i, v, false
	}
	init := int64(1)
	if len(args) >= 3 {
		switch n := args[2].(type) {
		case LNumber:
			init = IntArg(float64(n))
		default:
			if n != LNil {
				return i, v, false
			}
		}
	}
	plain := len(args) == 4 && LVAsBool(args[3])
	hay := string(s[findStart(init, len(s)):])
	skipped := false
	for n := 1; ; n++ {
		p, ok := v.(LString)
		if !ok || !plain && strings.ContainsAny(string(p), findSpecials) || strings.Contains(hay, string(p)) {
			return i, v, skipped
		}
		if n%findLoopPoll == 0 {
			L.reg.array[cf.LocalBase+l.a+2] = IntValue(i) // where the loop is, should the poll stop it
			L.pollContext()
		}
		skipped = true
		i++
		if v = tb.RawGetInt(i); v == LNil {
			return i - 1, LNil, true
		}
	}
}
