package lua

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strings"
)

// genProgram writes a random Lua 5.1 program chosen by data: the same bytes give the same
// program. Every program is valid Lua 5.1, ends after a bounded number of steps and prints
// what it computes (checkpoints, and every variable in scope at its end), so that a
// miscompiled statement shows in its output. The choices are read from data one byte at a
// time and, once data runs out, from a generator seeded with data's hash.
//
// The program never depends on what Lua leaves unspecified or to the platform: pairs is only
// walked in the prelude's show, which sorts the keys; no table is indexed past a border (#);
// no function or table address is printed (show prints tables by content, functions as fn);
// no error message is printed (pcall's first result only); os and io are not used. Every
// loop has a bound the generator knows, and the generator keeps an estimate of the steps a
// program takes, so that each one runs in a few milliseconds.
func genProgram(data []byte, opt genOptions) string {
	g := newGen(data, opt)
	g.program()
	return progPrelude + g.b.String()
}

// genOptions leaves out of the generated programs what a known difference would make fail
// (see pendingFix), so that the generator keeps finding new ones.
type genOptions struct {
	numText      bool // numbers turned into text that is then computed on (#, sub, ...)
	tonumberAll  bool // tonumber of every kind of string, not only of plain decimals
	assignReads  bool // a multiple assignment's values read its targets
	loopJumps    bool // a loop body may start with a statement whose code starts with a jump
	assignMixed  bool // a multiple assignment mixes table fields with other targets
	floatIndexes bool // string.sub, rep, char and format's %d with non-integral numbers
	findInit     bool // string.find's init past the string's end
	ctorNamed    bool // a constructor's last field a named one whose value is a call
	forInTable   bool // for k, v in next, {...} (a constructor last in the explist)
	forInConcat  bool // for x in (f() .. s):gmatch(p) (a method call on such a concat)
	gmatchCall   bool // a gmatch iterator called directly
	mathHuge     bool // math.huge
	modulo       bool // % on numbers that are not small integers
	pcallError   bool // an error raised in pcall
	andValue     bool // a and b without an or after it (its value may be a's)
	assignParen  bool // a value in parentheses (a call's or ...'s first value) assigned
	dupTargets   bool // the same variable twice in an assignment's targets (Lua leaves the result unspecified: never in allOptions)
}

// allOptions is every construct the generator knows.
var allOptions = genOptions{numText: true, tonumberAll: true, assignReads: true, loopJumps: true,
	assignMixed: true, floatIndexes: true, findInit: true, ctorNamed: true, forInTable: true,
	forInConcat: true, gmatchCall: true, mathHuge: true, modulo: true, pcallError: true, andValue: true, assignParen: true}

// progPrelude defines show, which gives a value's text with a table's keys in order, and
// fin, which gives 0 for NaN and for a number out of a C int's range: C Lua 5.1 converts a
// number argument to an integer with a C cast, whose result is undefined for those.
const progPrelude = `local show, fin, nan
do
  nan = function(x) -- the sign of a NaN differs between C's math functions and Go's
    if x ~= x then return "nan" end
    return x
  end
  fin = function(x)
    if x ~= x or x >= 2^31 or x <= -2^31 then return 0 end
    return x
  end
  local rank = {number = 1, string = 2, boolean = 3}
  local function before(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return (rank[ta] or 9) < (rank[tb] or 9) end
    if ta == "boolean" then return (not a) and b end
    return a < b
  end
  show = function(v, d)
    d = d or 0
    local t = type(v)
    if t == "table" then
      if d >= 3 then return "{..}" end
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys, before)
      local parts = {}
      for i = 1, #keys do
        parts[i] = show(keys[i], 3) .. "=" .. show(v[keys[i]], d + 1)
      end
      return "{" .. table.concat(parts, ",") .. "}"
    elseif t == "string" then
      return "'" .. v .. "'"
    elseif t == "function" then
      return "fn"
    end
    return tostring(v)
  end
end
`

// kind is what the generator knows of a variable's value.
type kind uint8

const (
	kInt  kind = iota // an integral number well below 2^53
	kNum              // any number
	kStr              // a short string
	kBool             // true or false
	kAny              // any value but a function, nil included
	kTab              // a record: [1], [2], [3], a and b hold ints, s a string, v anything, sub a leaf
	kList             // a table only walked with ipairs or shown
	kFn               // a function, declared once and never assigned
)

// sig is what the generator knows of a function it declared.
type sig struct {
	params   int    // parameters, each an int
	vararg   bool   // takes ... as well (its parameters are then kAny)
	rets     []kind // the values it returns
	moreRets bool   // and then any number of kAny values
	cost     int    // an estimate of the steps a call takes
}

type variable struct {
	name   string
	k      kind
	global bool
	fixed  bool // a loop's counter or control variable: never assigned
	fn     *sig
}

// funcState is what the generator knows of the function whose body it is writing.
type funcState struct {
	base   int // its first scope
	loops  int // loops open around the current statement, in this function
	vararg bool
}

type gen struct {
	data   []byte
	pos    int
	rng    *rand.Rand
	opt    genOptions
	b      strings.Builder
	ind    int
	scopes [][]*variable
	funcs  []*funcState
	n      int // names given
	left   int // statements still to write
	mult   int // how often the current statement runs per call of its function
	cost   int // steps of the current function so far
	prefer []*variable

	tailKinds []kind        // the kinds of the values tailFor's call gives
	hidden    [][]hiddenVar // variables hideTargets hid
	noCalls   bool          // no function the program declared is called
	oneValue  bool          // values gives as many values as targets, or fewer
}

func newGen(data []byte, opt genOptions) *gen {
	h := fnv.New64a()
	h.Write(data)
	s := h.Sum64()
	return &gen{data: data, rng: rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)), opt: opt, mult: 1}
}

// intn gives a choice in [0, n).
func (g *gen) intn(n int) int {
	if n <= 1 {
		return 0
	}
	if g.pos < len(g.data) {
		c := int(g.data[g.pos])
		g.pos++
		return c % n
	}
	return g.rng.IntN(n)
}

func (g *gen) chance(num, den int) bool { return g.intn(den) < num }

func (g *gen) pick(xs ...string) string { return xs[g.intn(len(xs))] }

func (g *gen) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *gen) line(format string, args ...any) {
	g.b.WriteString(strings.Repeat("  ", g.ind))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

func (g *gen) declare(v *variable) { g.scopes[len(g.scopes)-1] = append(g.scopes[len(g.scopes)-1], v) }

func (g *gen) open()  { g.scopes = append(g.scopes, nil) }
func (g *gen) close() { g.scopes = g.scopes[:len(g.scopes)-1] }

func (g *gen) fn() *funcState { return g.funcs[len(g.funcs)-1] }

// visible gives the variables in scope of kind k (kNum includes kInt), the innermost last.
func (g *gen) visible(k kind, assignable bool) []*variable {
	var vs []*variable
	for _, sc := range g.scopes {
		for _, v := range sc {
			if assignable && (v.fixed || v.k == kFn) {
				continue
			}
			if v.k == k || k == kNum && v.k == kInt && !assignable {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// varOf gives the name of a variable of kind k, preferring the targets of the assignment
// being written, or "" if there is none.
func (g *gen) varOf(k kind) string {
	var pref []*variable
	for _, v := range g.prefer {
		if v.k == k || k == kNum && v.k == kInt {
			pref = append(pref, v)
		}
	}
	if len(pref) > 0 && g.chance(1, 2) {
		return pref[g.intn(len(pref))].name
	}
	vs := g.visible(k, false)
	if len(vs) == 0 {
		return ""
	}
	// favour the innermost
	if g.chance(1, 2) {
		return vs[len(vs)-1-g.intn(min(3, len(vs)))].name
	}
	return vs[g.intn(len(vs))].name
}

func (g *gen) funcsWith(pred func(*sig) bool) []*variable {
	if g.noCalls {
		return nil
	}
	var fs []*variable
	for _, v := range g.visible(kFn, false) {
		if pred(v.fn) {
			fs = append(fs, v)
		}
	}
	return fs
}

// callable reports whether a call of f may be added where the statement runs mult times.
func (g *gen) callable(f *sig) bool { return g.cost+g.mult*f.cost < 3000 }

// ---- expressions ----

var intLits = []string{"0", "1", "2", "3", "4", "5", "7", "10", "12", "100", "255", "1000",
	"(-1)", "(-3)", "(-7)", "2147483647", "(2^31)", "0x10", "1e3", "3.0"}

var floatLits = []string{"0.5", "0.1", "0.2", "1.5", "(-2.25)", "3.14159", "1e15", "1e100",
	"(1/3)", "(2/3)", "1e-3", "123456.789", "(-0.5)", "100.25", "0.30000000000000004", "1e14",
	"12345678901234567", "(2^53)", "(2^63)", "(0/0)", "(1/0)", "(-1/0)", "(-fin(0))",
	"math.huge", "math.pi", "(-math.huge)"}

var strLits = []string{`""`, `"a"`, `"ab"`, `"abc"`, `"x y"`, `"Hello"`, `"a,b,c"`, `"%d"`,
	`"1e2"`, `" 12 "`, `"0x1F"`, `"10"`, `"-3"`, `"1.5"`, `"abcabc"`, `"a b c"`, `"zz"`, `"A"`,
	`"%"`, `"tab\tx"`, `"q\"q"`, `"back\\"`}

// numStrs are strings tonumber reads alike everywhere; tonumberStrs the rest.
var numStrs = []string{`"12"`, `"-3"`, `"0"`, `"255"`, `"10"`, `"7"`}

var tonumberStrs = []string{`"1e2"`, `"1.5"`, `" 12 "`, `"0x1F"`, `"0x"`, `"abc"`, `""`, `"5 5"`,
	`"1e"`, `".5"`, `"5."`, `"-0"`, `"1E+2"`, `"\t7\n"`, `"0X10"`, `"-0x10"`, `"inf"`, `"nan"`,
	`"1e500"`, `"0x1p4"`, `"  "`, `"+5"`, `"12a"`, `"1 "`}

// extraKeys are keys a record has besides its fixed fields; no positive integer, so that
// the record's length (#) has one border only.
var extraKeys = []string{`"k1"`, `"k2"`, `"x y"`, `(-100)`, `(-1)`, `0`, `2.5`, `true`, `false`}

func (g *gen) expr(k kind, d int) string {
	switch k {
	case kInt:
		return g.intExpr(d)
	case kNum:
		return g.numExpr(d)
	case kStr:
		return g.strExpr(d)
	case kBool:
		return g.boolExpr(d)
	case kAny:
		return g.anyExpr(d)
	case kTab:
		return g.tabExpr(d)
	case kList:
		return g.listExpr(d)
	}
	panic("no expression of that kind")
}

func (g *gen) intExpr(d int) string {
	if d <= 0 || g.chance(1, 4) {
		if v := g.varOf(kInt); v != "" && g.chance(2, 3) {
			return v
		}
		return g.pick(intLits...)
	}
	d--
	switch g.intn(22) {
	case 0:
		return "(" + g.intExpr(d) + " + " + g.intExpr(d) + ")"
	case 1:
		return "(" + g.intExpr(d) + " - " + g.intExpr(d) + ")"
	case 2:
		return "(" + noFold(g.intExpr(d)) + " * " + g.pick("2", "3", "(-1)", "0", "7") + ")"
	case 3:
		return "(" + g.intExpr(d) + " % " + g.pick("2", "3", "5", "10", "7") + ")"
	case 4:
		return "(-" + noFold(g.intExpr(d)) + ")"
	case 5:
		return "#" + g.strAtom(d)
	case 6:
		if t := g.varOf(kTab); t != "" {
			return "#" + t
		}
	case 7:
		if g.fn().vararg {
			return "select('#', ...)"
		}
		return "select(" + joinArgs("'#'", g.args(d)) + ")"
	case 8:
		if !g.opt.modulo {
			return "math.floor(fin(math.fmod(" + g.numExpr(d) + ", 1e6)) / " + g.pick("2", "3", "0.5", "10") + ")"
		}
		return "math.floor(fin(" + g.numExpr(d) + ") / " + g.pick("2", "3", "0.5", "10") + ")"
	case 9:
		return g.pick("math.max", "math.min") + "(" + g.intExpr(d) + ", " + g.intExpr(d) + ")"
	case 10:
		return "math.abs(" + g.intExpr(d) + ")"
	case 11, 12:
		if t := g.varOf(kTab); t != "" {
			switch g.intn(7) {
			case 0:
				return t + ".a"
			case 1:
				return t + `["b"]`
			case 2:
				return t + "[" + g.pick("1", "2", "3") + "]"
			case 3:
				return t + "[" + g.index(d) + "]"
			case 4:
				return t + ".sub.a"
			case 5:
				return t + ".sub[1]"
			case 6:
				return t + "[2.0]"
			}
		}
	case 13:
		return "(" + g.boolExpr(d) + " and " + g.intExpr(d) + " or " + g.intExpr(d) + ")"
	case 14, 15:
		if f := g.callOf(kInt, d); f != "" {
			return f
		}
	case 16:
		return "(string.byte(" + g.strAtom(d) + ", " + g.intExpr(d) + ") or 0)"
	case 17:
		return "string.len(" + g.strExpr(d) + ")"
	case 18:
		return "(string.find(" + g.strAtom(d) + ", " + g.pick(`"a"`, `"b"`, `"."`, `"%%"`, `""`, `"x y"`) + ", " + g.findInit(d) + ", true) or 0)"
	case 19:
		return "tonumber(" + g.pick(numStrs...) + ")"
	case 20:
		if !g.opt.modulo {
			return "math.floor(fin(math.fmod(" + g.numExpr(d) + ", 1e6)))"
		}
		return "math.floor(fin(" + g.numExpr(d) + "))"
	case 21:
		return "(" + g.intExpr(d) + " + " + g.pick(numStrs...) + ")"
	}
	return g.intExpr(0)
}

// findInit gives string.find's init argument.
func (g *gen) findInit(d int) string {
	if g.opt.findInit {
		return g.intExpr(d)
	}
	return g.pick("1", "0", "(-100)")
}

// index gives an int expression in 1..3.
func (g *gen) index(d int) string {
	return "(" + g.intExpr(d) + " % 3 + 1)"
}

func (g *gen) numExpr(d int) string {
	if d <= 0 || g.chance(1, 4) {
		if v := g.varOf(kNum); v != "" && g.chance(1, 2) {
			return v
		}
		if g.chance(1, 2) {
			lit := g.pick(floatLits...)
			if !g.opt.mathHuge {
				lit = strings.ReplaceAll(lit, "math.huge", "(1/0)")
			}
			return lit
		}
		return g.pick(intLits...)
	}
	d--
	switch g.intn(12) {
	case 0:
		return "(" + noFold(g.numExpr(d)) + " / " + g.numExpr(d) + ")"
	case 1:
		return "(" + noFold(g.numExpr(d)) + " * " + g.numExpr(d) + ")"
	case 2:
		return "(" + g.numExpr(d) + " + " + g.numExpr(d) + ")"
	case 3:
		return "(" + g.numExpr(d) + " - " + g.numExpr(d) + ")"
	case 4:
		// not ^ 2, ^ 3 or ^ 0.5: C's pow and Go's math.Pow may differ in the last bit
		// (glibc's pow(x, 2) is not always x*x, and its pow(x, 0.5) is not always the
		// correctly rounded sqrt(x) Go gives), which a floor or a loop of x = x^2 % m shows
		return "(" + g.numExpr(d) + " ^ " + g.pick("(-1)", "1", "0") + ")"
	case 5:
		if !g.opt.modulo {
			return "math.fmod(" + g.numExpr(d) + ", " + g.pick("1", "1.5", "(-2)", "3", "0.25", "(-0.5)") + ")"
		}
		return "(" + g.numExpr(d) + " % " + g.pick("1", "1.5", "(-2)", "3", "0.25", "(-0.5)", "math.huge", "(1/0)") + ")"
	case 6:
		return "math.sqrt(math.abs(" + g.numExpr(d) + "))"
	case 7:
		return "(-" + noFold(g.numExpr(d)) + ")"
	case 8:
		if g.opt.tonumberAll {
			return "(tonumber(" + g.pick(tonumberStrs...) + ") or 0)"
		}
		return "(tonumber(" + g.pick(`"1.5"`, `"0.25"`, `"-2.5"`) + ") or 0)"
	case 9:
		return g.pick("math.floor", "math.ceil", "math.abs") + "(" + g.numExpr(d) + ")"
	case 10:
		return "(" + g.numExpr(d) + " + " + g.pick(`"1.5"`, `"10"`, `"-2"`, `"0.1"`) + ")"
	case 11:
		return "(" + g.pick("math.fmod", "math.max", "math.min") + "(" + g.numExpr(d) + ", " + g.pick("1", "3", "0.5", "(-2)") + "))"
	}
	return g.intExpr(d)
}

// strAtom gives a string expression that may be indexed (a method call's receiver).
func (g *gen) strAtom(d int) string {
	if v := g.varOf(kStr); v != "" && g.chance(1, 2) {
		return v
	}
	return "(" + g.strExpr(d) + ")"
}

// numText gives an expression turning an int into text, alike in Lua 5.1 and here whatever
// the number formatting unless opt.numText.
func (g *gen) numText(d int) string {
	if g.opt.numText {
		switch g.intn(3) {
		case 0:
			return "tostring(nan(" + g.numExpr(d) + "))"
		case 1:
			return "(nan(" + g.numExpr(d) + ") .. " + g.pick(`""`, `"s"`) + ")"
		}
		return "(\"n\" .. " + g.intExpr(d) + ")"
	}
	return `string.format("%d", ` + g.intExpr(d) + ")"
}

func (g *gen) strExpr(d int) string {
	if d <= 0 || g.chance(1, 4) {
		if v := g.varOf(kStr); v != "" && g.chance(2, 3) {
			return v
		}
		return g.pick(strLits...)
	}
	d--
	switch g.intn(17) {
	// Strings that may grow from a variable are cut (here, and string.rep and format
	// below): a loop of s = s .. s would double s on every pass, past any time bound.
	case 0: // grows by a literal at most
		return "(" + g.strExpr(d) + " .. " + g.pick(strLits...) + ")"
	case 1:
		return "string.sub(" + g.strExpr(d) + " .. " + g.strExpr(d) + ", 1, 60)"
	case 2:
		return g.numText(d)
	case 3:
		return g.strAtom(d) + ":sub(" + g.intExpr(d) + ", " + g.intExpr(d) + ")"
	case 4:
		return "string.sub(" + g.strExpr(d) + ", " + g.intExpr(d) + ")"
	case 5:
		return g.strAtom(d) + ":" + g.pick("upper", "lower", "reverse") + "()"
	case 6:
		return "string.sub(string.rep(" + g.strExpr(d) + ", " + g.pick("0", "1", "2", "3", "(-1)") + "), 1, 40)"
	case 7:
		return `string.sub(string.format("%d %s", ` + g.intExpr(d) + ", " + g.strExpr(d) + "), 1, 60)"
	case 8:
		return "string.char(65 + " + g.intExpr(d) + " % 26)"
	case 9:
		return "tostring(" + g.boolExpr(d) + ")"
	case 10:
		return "type((" + g.anyExpr(d) + "))"
	case 11:
		if t := g.varOf(kTab); t != "" {
			return t + ".s"
		}
	case 12:
		return "(" + g.boolExpr(d) + " and " + g.strExpr(d) + " or " + g.strExpr(d) + ")"
	case 13:
		if f := g.callOf(kStr, d); f != "" {
			return f
		}
	case 14:
		return `string.format("[%5s|%-3d|%x]", ` + g.strExpr(d) + ", " + g.intExpr(d) + ", " + g.pick("255", "10", "0", "4096") + ")"
	case 15:
		if g.opt.floatIndexes {
			switch g.intn(3) {
			case 0:
				return g.strAtom(d) + ":sub(fin(" + g.numExpr(d) + "), fin(" + g.numExpr(d) + "))"
			case 1:
				return "string.sub(string.rep(" + g.strExpr(d) + ", " + g.pick("1.5", "2.9", "(-0.5)") + "), 1, 40)"
			}
			return `string.format("%d", fin(` + g.numExpr(d) + "))"
		}
	case 16:
		return "table.concat({" + g.strExpr(d) + ", " + g.strExpr(d) + "}, " + g.pick(`","`, `""`, `" - "`) + ")"
	}
	return g.strExpr(0)
}

func (g *gen) boolExpr(d int) string {
	if d <= 0 || g.chance(1, 5) {
		if v := g.varOf(kBool); v != "" && g.chance(2, 3) {
			return v
		}
		return g.pick("true", "false")
	}
	d--
	switch g.intn(10) {
	case 0, 1:
		return "(" + g.intExpr(d) + " " + g.pick("<", "<=", ">", ">=", "==", "~=") + " " + g.intExpr(d) + ")"
	case 2:
		return "(" + g.numExpr(d) + " " + g.pick("<", "<=", "==", "~=") + " " + g.numExpr(d) + ")"
	case 3:
		return "(" + g.strExpr(d) + " " + g.pick("<", "<=", ">", "==", "~=") + " " + g.strExpr(d) + ")"
	case 4:
		return "not " + g.anyAtom(d)
	case 5:
		if op := g.pick("and", "or"); op == "or" || g.opt.andValue {
			return "(" + g.boolExpr(d) + " " + op + " " + g.boolExpr(d) + ")"
		}
		return "(" + g.boolExpr(d) + " and " + g.boolExpr(d) + " or false)"
	case 6:
		return "(" + g.anyExpr(d) + " " + g.pick("==", "~=") + " " + g.anyExpr(d) + ")"
	case 7:
		return "(" + g.anyExpr(d) + " == nil)"
	case 8:
		return "(" + g.intExpr(d) + " % 2 == 0)"
	case 9:
		if f := g.callOf(kBool, d); f != "" {
			return f
		}
	}
	return g.boolExpr(0)
}

// anyAtom gives an expression of any value that may follow not.
func (g *gen) anyAtom(d int) string {
	if v := g.varOf(kAny); v != "" && g.chance(1, 2) {
		return v
	}
	return "(" + g.anyExpr(d) + ")"
}

func (g *gen) anyExpr(d int) string {
	if d <= 0 || g.chance(1, 4) {
		if v := g.varOf(kAny); v != "" && g.chance(2, 3) {
			return v
		}
		return g.pick("nil", "false", "true", "0", `"s"`)
	}
	d--
	switch g.intn(16) {
	case 0:
		return g.intExpr(d)
	case 1:
		return g.strExpr(d)
	case 2:
		return g.boolExpr(d)
	case 3:
		return g.numExpr(d)
	case 4:
		if t := g.varOf(kTab); t != "" {
			if g.chance(1, 2) {
				return t + ".v"
			}
			return t + "[" + g.pick(extraKeys...) + "]"
		}
	case 5:
		if g.fn().vararg {
			return g.pick("(...)", "select(2, ...)", "({...})[2]")
		}
	case 6:
		if g.opt.tonumberAll {
			return "tonumber(" + g.pick(append(tonumberStrs, numStrs...)...) + ")"
		}
		return "tonumber(" + g.pick(numStrs...) + ")"
	case 7:
		if op := g.pick("and", "or"); op == "or" || g.opt.andValue {
			return "(" + g.anyExpr(d) + " " + op + " " + g.anyExpr(d) + ")"
		}
		return "(" + g.anyExpr(d) + " and " + g.anyExpr(d) + " or nil)"
	case 8:
		return "string.find(" + g.strAtom(d) + ", " + g.pick(`"b"`, `"a"`, `"c"`, `"x"`, `""`) + ", " + g.findInit(d) + ", " + g.pick("true", "false", "nil") + ")"
	case 9:
		return "string.byte(" + g.strAtom(d) + ", " + g.intExpr(d) + ")"
	case 10:
		return "(" + g.boolExpr(d) + " and " + g.anyExpr(d) + " or nil)"
	case 11:
		if f := g.callOf(kAny, d); f != "" {
			return f
		}
	case 12:
		return g.tabExpr(d)
	case 13:
		return "select(" + joinArgs(g.pick("1", "2", "3"), g.args(d)) + ")"
	case 14:
		if t := g.varOf(kTab); t != "" {
			return t
		}
	case 15:
		return "(false and " + g.anyExpr(d) + " or " + g.anyExpr(d) + ")"
	}
	return g.anyExpr(0)
}

// leaf gives a record's sub table: {a = int, [1] = int}.
func (g *gen) leaf(d int) string {
	if g.chance(1, 2) {
		if !g.opt.ctorNamed {
			return "{" + g.intExpr(d) + ", a = (" + g.intExpr(d) + ")}"
		}
		return "{" + g.intExpr(d) + ", a = " + g.intExpr(d) + "}"
	}
	return "{a = " + g.intExpr(d) + ", [1] = " + g.intExpr(d) + "}"
}

func (g *gen) tabExpr(d int) string {
	if d <= 0 || g.chance(1, 3) {
		if v := g.varOf(kTab); v != "" && g.chance(1, 2) {
			return v
		}
	}
	if d < 1 {
		d = 1
	}
	d--
	var fields []string
	pos := g.chance(1, 2) // the array part positionally
	if pos {
		fields = append(fields, g.intExpr(d), g.intExpr(d), g.intExpr(d))
	} else {
		fields = append(fields, "[1] = "+g.intExpr(d), "[2] = "+g.intExpr(d), "[3.0] = "+g.intExpr(d))
	}
	named := func(e string) string {
		if !g.opt.ctorNamed {
			return "(" + e + ")"
		}
		return e
	}
	fields = append(fields, g.pick("a = ", `["a"] = `)+named(g.intExpr(d)), "b = "+named(g.intExpr(d)),
		"s = "+named(g.strExpr(d)), "sub = "+g.leaf(d))
	if g.chance(1, 2) {
		fields = append(fields, "v = "+named(g.anyExpr(d)))
	}
	if g.chance(1, 3) {
		fields = append(fields, "["+g.pick(extraKeys...)+"] = "+named(g.anyExpr(d)))
	}
	// shuffle, keeping the positional fields in their order
	for i := len(fields) - 1; i > 0; i-- {
		j := g.intn(i + 1)
		fields[i], fields[j] = fields[j], fields[i]
	}
	if pos && g.chance(1, 3) {
		// positional values after the others, then a call's values
		if f := g.multiCall(kInt, d); f != "" {
			fields = append(fields, f)
		}
	}
	return "{" + strings.Join(fields, g.pick(", ", "; ")) + "}"
}

func (g *gen) listExpr(d int) string {
	if v := g.varOf(kList); v != "" && g.chance(1, 3) {
		return v
	}
	switch g.intn(4) {
	case 0:
		if g.fn().vararg {
			return "{...}"
		}
	case 1:
		if f := g.multiCall(kAny, d); f != "" {
			return "{" + f + "}"
		}
	case 2:
		return "{" + g.args(d) + "}"
	}
	return "{" + g.intExpr(d) + ", " + g.strExpr(d) + ", " + g.anyExpr(d) + "}"
}

// args gives an argument list of values of any kind (maybe ending with a call's values).
func (g *gen) args(d int) string {
	var as []string
	for range g.intn(4) {
		as = append(as, g.anyExpr(d))
	}
	if g.chance(1, 4) {
		if g.fn().vararg {
			as = append(as, "...")
		} else if f := g.multiCall(kAny, d); f != "" {
			as = append(as, f)
		}
	}
	return strings.Join(as, ", ")
}

// callOf gives a call whose first value is of kind k, truncated to that value, or "".
func (g *gen) callOf(k kind, d int) string {
	fs := g.funcsWith(func(s *sig) bool {
		return len(s.rets) > 0 && (s.rets[0] == k || k == kNum && s.rets[0] == kInt || k == kAny && s.rets[0] != kFn) && g.callable(s)
	})
	if len(fs) == 0 {
		return ""
	}
	return "(" + g.call(fs[g.intn(len(fs))], d) + ")"
}

// multiCall gives a call of a function whose values are all of kind k (kAny: any), or "".
func (g *gen) multiCall(k kind, d int) string {
	fs := g.funcsWith(func(s *sig) bool {
		if !g.callable(s) || s.moreRets && k != kAny {
			return false
		}
		for _, r := range s.rets {
			if r != k && k != kAny {
				return false
			}
		}
		return true
	})
	if len(fs) == 0 {
		return ""
	}
	return g.call(fs[g.intn(len(fs))], d)
}

// call gives a call of f, and counts its cost.
func (g *gen) call(f *variable, d int) string {
	g.cost += g.mult * f.fn.cost
	var as []string
	for range f.fn.params {
		if f.fn.vararg {
			as = append(as, g.anyExpr(d-1))
		} else {
			as = append(as, g.intExpr(d-1))
		}
	}
	if f.fn.vararg {
		for range g.intn(4) {
			as = append(as, g.anyExpr(d-1))
		}
		if g.chance(1, 4) && g.fn().vararg {
			as = append(as, "...")
		}
	}
	return f.name + "(" + strings.Join(as, ", ") + ")"
}

// cond gives a loop's or an if's condition, often a constant one.
func (g *gen) cond(d int) string {
	switch g.intn(12) {
	case 0:
		return g.pick("false", "nil", "true", "not nil", "not true", "1", `"s"`, "0")
	case 1:
		return g.pick("false and ", "nil and ", "true or ", "false or ", "nil or ", "not ") + g.anyAtom(d)
	case 2:
		return g.anyAtom(d) + g.pick(" and false", " or true", " and nil", " or false", " and true")
	case 3:
		return "(false and " + g.anyExpr(d) + " or " + g.boolExpr(d) + ")"
	case 4:
		return g.anyExpr(d)
	}
	return g.boolExpr(d)
}

// ---- statements ----

func (g *gen) program() {
	g.left = 10 + g.intn(30)
	g.funcs = []*funcState{{vararg: true}}
	g.open()
	for range g.intn(3) {
		v := &variable{name: g.name("G"), k: []kind{kInt, kStr, kTab, kAny}[g.intn(4)], global: true}
		g.line("%s = %s", v.name, g.expr(v.k, 2))
		g.declare(v)
	}
	for g.left > 0 {
		g.stmt(0)
	}
	g.dumpAll()
	g.close()
}

// dumpAll prints every variable in scope, one a line.
func (g *gen) dumpAll() {
	seen := map[string]bool{}
	for i := len(g.scopes) - 1; i >= 0; i-- {
		for j := len(g.scopes[i]) - 1; j >= 0; j-- {
			v := g.scopes[i][j]
			if seen[v.name] || v.k == kFn {
				continue
			}
			seen[v.name] = true
			g.line("print(%q, %s)", v.name, g.showVar(v))
		}
	}
}

func (g *gen) showVar(v *variable) string {
	switch v.k {
	case kInt, kNum, kStr, kBool:
		if g.chance(1, 4) {
			return "show(" + v.name + ")"
		}
		return v.name
	}
	return "show(" + v.name + ")"
}

// block writes a block of statements in a new scope. A loop's body is first when the loop
// jumps back to its start; brk allows a break at its end.
func (g *gen) block(depth int, first, brk bool) {
	g.ind++
	g.open()
	n := 1 + g.intn(4)
	for i := 0; i < n && (g.left > 0 || i == 0); i++ {
		if i == 0 && first && !g.opt.loopJumps {
			// a statement whose code starts with no jump
			v := &variable{name: g.name("v"), k: kInt}
			g.line("local %s = %s", v.name, g.pick(intLits...))
			g.declare(v)
			continue
		}
		g.stmt(depth)
	}
	if brk && g.fn().loops > 0 && g.chance(1, 8) {
		g.line("break")
	}
	g.close()
	g.ind--
}

func (g *gen) stmt(depth int) {
	g.left--
	g.cost += g.mult
	if depth >= 3 || g.cost > 2500 {
		g.simpleStmt(depth)
		return
	}
	switch g.intn(20) {
	case 0, 1:
		g.ifStmt(depth)
	case 2:
		g.numFor(depth)
	case 3:
		g.genericFor(depth)
	case 4:
		g.whileStmt(depth)
	case 5:
		g.repeatStmt(depth)
	case 6:
		g.line("do")
		g.block(depth+1, false, true)
		g.line("end")
	case 7, 8:
		g.funcDef(depth)
	case 9:
		g.closures(depth)
	case 10:
		g.pcallStmt(depth)
	default:
		g.simpleStmt(depth)
	}
}

// simpleStmt writes a statement that is no block: an assignment, a local, a call or a print.
func (g *gen) simpleStmt(depth int) {
	switch g.intn(13) {
	case 0, 1, 2:
		g.localStmt()
	case 3, 4, 5, 6:
		g.assign()
	case 7:
		fs := g.funcsWith(g.callable)
		if len(fs) > 0 {
			g.line("%s", g.call(fs[g.intn(len(fs))], 2))
			return
		}
		g.assign()
	case 8:
		g.checkpoint()
	case 12:
		if g.opt.gmatchCall {
			it := g.name("it")
			g.line("local %s = (%s):gmatch(%s)", it, g.strExpr(2), g.pick(`"%a+"`, `"."`, `"(%a)(%a)"`))
			g.line("print(%q, %s(), %s())", it, it, it)
			return
		}
		g.localStmt()
	case 9:
		// a local holding a jump-compiled constant expression
		v := &variable{name: g.name("j"), k: kAny}
		g.line("local %s = %s", v.name, g.pick("false and print or nil", "nil and 1", "false or nil",
			"nil or false", "true and nil", "false and 1 or 2", "not nil and 3"))
		g.declare(v)
	case 10:
		if g.opt.loopJumps || g.fn().loops == 0 {
			g.line("if %s then %s end", g.pick("false", "nil", "false and true"), g.pick("print(1)", "G0 = 1"))
			return
		}
		g.localStmt()
	case 11:
		v := g.visible(kList, false)
		if t := g.visible(kTab, false); len(t) > 0 && g.chance(1, 2) {
			g.line("%s[%s] = %s", t[g.intn(len(t))].name, g.pick(extraKeys...), g.anyExpr(2))
			return
		}
		if len(v) > 0 {
			g.line("print(%q, show(%s))", "list", v[g.intn(len(v))].name)
			return
		}
		g.localStmt()
	}
}

func (g *gen) checkpoint() {
	var parts []string
	parts = append(parts, fmt.Sprintf("%q", g.name("cp")))
	for _, sc := range g.scopes {
		for _, v := range sc {
			if v.k != kFn && g.chance(1, 3) {
				parts = append(parts, g.showVar(v))
			}
		}
	}
	if g.chance(1, 3) {
		if k := kind(g.intn(5)); k == kAny {
			parts = append(parts, "show("+g.anyExpr(2)+")")
		} else {
			parts = append(parts, g.expr(k, 2))
		}
	}
	g.line("print(%s)", strings.Join(parts, ", "))
}

// localStmt declares one or more locals.
func (g *gen) localStmt() {
	n := 1 + g.intn(3)
	var kinds []kind
	for range n {
		kinds = append(kinds, g.valueKind())
	}
	vals, kinds := g.values(kinds, true)
	var vs []*variable
	var names []string
	for _, k := range kinds {
		v := &variable{name: g.name("v"), k: k}
		if g.chance(1, 10) {
			// shadow a variable of the same kind
			if olds := g.visible(k, true); len(olds) > 0 {
				if o := olds[g.intn(len(olds))]; !o.global {
					v.name = o.name
				}
			}
		}
		vs = append(vs, v)
		names = append(names, v.name)
	}
	if vals == "" {
		g.line("local %s", strings.Join(names, ", "))
	} else {
		g.line("local %s = %s", strings.Join(names, ", "), vals)
	}
	for _, v := range vs {
		g.declare(v)
	}
}

func (g *gen) valueKind() kind {
	return []kind{kInt, kInt, kNum, kStr, kStr, kBool, kAny, kTab, kList}[g.intn(9)]
}

// values gives a list of expressions for targets of the given kinds: one for each, fewer
// (the rest get nil), more, or ending with a call's or ...'s values. It gives the kinds
// the targets get (a target that may get nil becomes kAny when free, for a local).
func (g *gen) values(kinds []kind, free bool) (string, []kind) {
	n := len(kinds)
	out := append([]kind(nil), kinds...)
	var es []string
	shape := g.intn(6)
	switch {
	case shape == 0 && (free || anyTail(kinds) < n):
		// fewer values: the rest get nil
		m := g.intn(n)
		if !free {
			m = max(1, anyTail(kinds)+g.intn(n-anyTail(kinds)))
		}
		for i := range m {
			es = append(es, g.value(kinds[i]))
		}
		for i := m; i < n; i++ {
			out[i] = kAny
		}
		return strings.Join(es, ", "), out
	case shape == 1 || shape == 2:
		// the last values from a call or ...
		for j := 0; j < n; j++ {
			if tail := g.tailFor(kinds[j:], free); tail != "" {
				for i := 0; i < j; i++ {
					es = append(es, g.value(kinds[i]))
				}
				es = append(es, tail)
				if free {
					for i := j; i < n; i++ {
						if g.tailKinds != nil && i-j < len(g.tailKinds) {
							out[i] = g.tailKinds[i-j]
						} else {
							out[i] = kAny
						}
					}
				}
				return strings.Join(es, ", "), out
			}
		}
	case shape == 3 && !g.oneValue:
		// more values: the rest are evaluated and dropped
		for i := range n {
			es = append(es, g.value(kinds[i]))
		}
		for range 1 + g.intn(2) {
			if f := g.funcsWith(g.callable); len(f) > 0 && g.chance(1, 2) {
				es = append(es, g.call(f[g.intn(len(f))], 2))
			} else {
				es = append(es, g.anyExpr(2))
			}
		}
		return strings.Join(es, ", "), out
	}
	for i := range n {
		es = append(es, g.value(kinds[i]))
	}
	return strings.Join(es, ", "), out
}

// value gives an expression for a target of kind k, bounding ints, numbers and strings that
// may grow when assigned again and again.
func (g *gen) value(k kind) string {
	e := g.valueOf(k)
	if !g.opt.assignParen && fullyParenthesised(e) {
		e = "nil or " + e // the same value, not in parentheses
	}
	return e
}

func (g *gen) valueOf(k kind) string {
	e := g.expr(k, 3)
	if strings.ContainsAny(e, "(") && !strings.HasPrefix(e, "{") {
		switch k {
		case kInt:
			return "(" + e + ") % " + g.pick("1000", "7", "65536", "101") + g.pick("", " - 50")
		case kNum:
			if !g.opt.modulo {
				return "math.fmod(" + e + ", " + g.pick("1000", "2.5", "1e6") + ")"
			}
			return "(" + e + ") % " + g.pick("1000", "2.5", "1e6")
		case kStr:
			return "string.sub(" + e + ", 1, " + g.pick("8", "20") + ")"
		}
	}
	return e
}

// fullyParenthesised reports whether e is one parenthesised expression.
func fullyParenthesised(e string) bool {
	if !strings.HasPrefix(e, "(") || !strings.HasSuffix(e, ")") {
		return false
	}
	depth := 0
	for i, c := range e {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(e)-1 {
				return false
			}
		}
	}
	return true
}

// tailFor gives a call, or ..., whose values suit targets of kinds ks, or "". It leaves the
// kinds the values have in g.tailKinds.
func (g *gen) tailFor(ks []kind, free bool) string {
	g.tailKinds = nil
	if g.fn().vararg && g.chance(1, 3) && !g.noCalls {
		if free || allAny(ks) {
			return "..."
		}
	}
	fs := g.funcsWith(func(s *sig) bool {
		if !g.callable(s) {
			return false
		}
		for i, k := range ks {
			var r kind = kAny
			if i < len(s.rets) {
				r = s.rets[i]
			} else if !free && k != kAny {
				return false
			}
			if !free && !fits(r, k) {
				return false
			}
		}
		return len(s.rets) > 0 || free
	})
	if len(fs) == 0 {
		return ""
	}
	f := fs[g.intn(len(fs))]
	g.tailKinds = f.fn.rets
	return g.call(f, 2)
}

// anyTail gives the index from which every kind in ks is kAny.
func anyTail(ks []kind) int {
	i := len(ks)
	for i > 0 && ks[i-1] == kAny {
		i--
	}
	return i
}

func allAny(ks []kind) bool {
	for _, k := range ks {
		if k != kAny {
			return false
		}
	}
	return true
}

// fits reports whether a value of kind v may be stored where kind t is expected.
func fits(v, t kind) bool {
	return v == t || t == kAny && v != kFn || t == kNum && v == kInt
}

// target is an assignment's target.
type target struct {
	code  string
	k     kind
	v     *variable // a variable, or nil for a table field
	field bool      // a table field (a global through _G is one)
}

func (g *gen) targets() []target {
	n := 1 + g.intn(4)
	var ts []target
	for range n {
		if g.chance(1, 3) {
			if t := g.visible(kTab, false); len(t) > 0 {
				tv := t[g.intn(len(t))].name
				if g.chance(1, 4) && g.fn().loops == 0 && g.chance(1, 2) {
					// the table variable itself
					if tt := g.visible(kTab, true); len(tt) > 0 {
						v := tt[g.intn(len(tt))]
						ts = append(ts, target{v.name, kTab, v, false})
						continue
					}
				}
				switch g.intn(9) {
				case 0:
					ts = append(ts, target{tv + ".a", kInt, nil, true})
				case 1:
					ts = append(ts, target{tv + "[" + g.index(1) + "]", kInt, nil, true})
				case 2:
					ts = append(ts, target{tv + `["b"]`, kInt, nil, true})
				case 3:
					ts = append(ts, target{tv + ".sub.a", kInt, nil, true})
				case 4:
					ts = append(ts, target{tv + ".s", kStr, nil, true})
				case 5:
					ts = append(ts, target{tv + ".v", kAny, nil, true})
				case 6:
					ts = append(ts, target{tv + "[" + g.pick(extraKeys...) + "]", kAny, nil, true})
				case 7:
					ts = append(ts, target{tv + ".sub", kTab, nil, true})
				case 8:
					ts = append(ts, target{tv + "[" + g.pick("1", "2", "3", "2.0") + "]", kInt, nil, true})
				}
				if ts[len(ts)-1].k == kTab {
					ts[len(ts)-1].k = kList // a leaf, not a record
				}
				continue
			}
		}
		vs := g.visible(g.valueKind(), true)
		if len(vs) == 0 {
			vs = g.visible(kInt, true)
		}
		if len(vs) == 0 {
			continue
		}
		v := vs[g.intn(len(vs))]
		code := v.name
		if v.global && g.chance(1, 3) {
			code = g.pick("_G."+v.name, `_G["`+v.name+`"]`)
		}
		ts = append(ts, target{code, v.k, v, code != v.name})
	}
	return ts
}

// assign writes an assignment of one or more targets.
func (g *gen) assign() {
	ts := g.targets()
	if len(ts) == 0 {
		g.localStmt()
		return
	}
	if len(ts) > 1 && !g.opt.assignMixed {
		// only variables, or only fields
		var keep []target
		for _, t := range ts {
			if (t.v == nil || t.field) == (ts[0].v == nil || ts[0].field) {
				keep = append(keep, t)
			}
		}
		ts = keep
	}
	if !g.opt.dupTargets {
		// each variable once
		var keep []target
		seen := map[string]bool{}
		for _, t := range ts {
			if t.v != nil && seen[t.v.name] {
				continue
			}
			if t.v != nil {
				seen[t.v.name] = true
			}
			keep = append(keep, t)
		}
		ts = keep
	}
	var lhs []string
	var kinds []kind
	g.prefer = nil
	for _, t := range ts {
		lhs = append(lhs, t.code)
		k := t.k
		if k == kList {
			k = kTab // a leaf: any table with a and [1]
		}
		kinds = append(kinds, k)
		if t.v != nil {
			g.prefer = append(g.prefer, t.v)
		}
	}
	if !g.opt.assignReads {
		// no value reads a target, or calls a function that might; one target gets one value
		g.prefer = nil
		if len(ts) > 1 {
			g.hideTargets(ts)
			defer g.unhide()
		}
		g.noCalls, g.oneValue = len(ts) > 1, len(ts) == 1
		defer func() { g.noCalls, g.oneValue = false, false }()
	}
	vals := g.assignValues(ts, kinds)
	g.prefer = nil
	g.line("%s = %s", strings.Join(lhs, ", "), vals)
}

// assignValues gives the values of an assignment; a leaf target gets a leaf.
func (g *gen) assignValues(ts []target, kinds []kind) string {
	hasLeaf := false
	for _, t := range ts {
		if t.k == kList {
			hasLeaf = true
		}
	}
	if !hasLeaf {
		vals, _ := g.values(kinds, false)
		return vals
	}
	var es []string
	for _, t := range ts {
		if t.k == kList {
			if tv := g.visible(kTab, false); len(tv) > 0 && g.chance(1, 2) {
				es = append(es, tv[g.intn(len(tv))].name+".sub")
			} else {
				es = append(es, g.leaf(2))
			}
			continue
		}
		es = append(es, g.value(t.k))
	}
	return strings.Join(es, ", ")
}

// hideTargets keeps the targets' variables from being read by the values.
func (g *gen) hideTargets(ts []target) {
	g.hidden = append(g.hidden, nil)
	for _, t := range ts {
		if t.v != nil {
			for _, sc := range g.scopes {
				for i, v := range sc {
					if v.name == t.v.name {
						g.hidden[len(g.hidden)-1] = append(g.hidden[len(g.hidden)-1], hiddenVar{sc, i, v})
					}
				}
			}
		}
	}
	for _, h := range g.hidden[len(g.hidden)-1] {
		h.scope[h.i] = &variable{name: h.v.name, k: kFn, fn: &sig{cost: 1 << 30}} // never picked
	}
}

func (g *gen) unhide() {
	for _, h := range g.hidden[len(g.hidden)-1] {
		h.scope[h.i] = h.v
	}
	g.hidden = g.hidden[:len(g.hidden)-1]
}

type hiddenVar struct {
	scope []*variable
	i     int
	v     *variable
}

func (g *gen) ifStmt(depth int) {
	g.line("if %s then", g.cond(2))
	g.block(depth+1, false, true)
	for range g.intn(3) {
		g.line("elseif %s then", g.cond(2))
		g.block(depth+1, false, true)
	}
	if g.chance(1, 2) {
		g.line("else")
		g.block(depth+1, false, true)
	}
	g.line("end")
}

// loop writes a loop's body, run at most n times a pass, in which vars are declared.
func (g *gen) loop(depth, n int, first bool, vars ...*variable) {
	saved := g.mult
	g.mult *= n
	g.fn().loops++
	g.open()
	for _, v := range vars {
		g.declare(v)
	}
	g.block(depth+1, first, true)
	g.close()
	g.fn().loops--
	g.mult = saved
}

func (g *gen) numFor(depth int) {
	v := &variable{name: g.name("i"), k: kInt, fixed: true}
	var head string
	n := 4
	switch g.intn(6) {
	case 0:
		head = fmt.Sprintf("%s = 1, %s", v.name, g.pick("0", "1", "3", "4"))
	case 1:
		head = fmt.Sprintf("%s = %s, 1, -1", v.name, g.pick("3", "4", "0"))
	case 2:
		head = fmt.Sprintf("%s = 1, %s %% 4", v.name, g.intExpr(2))
	case 3:
		head = fmt.Sprintf("%s = %s, %s, 2", v.name, g.pick("(-3)", "0", "1"), g.pick("3", "4"))
	case 4:
		v.k = kNum
		head = fmt.Sprintf("%s = 0, %s, %s", v.name, g.pick("1", "1.5", "0.3"), g.pick("0.5", "0.1", "0.25"))
		n = 16
	case 5:
		head = fmt.Sprintf("%s = %s %% 3, 3", v.name, g.intExpr(2))
		n = 6
	}
	g.line("for %s do", head)
	g.loop(depth, n, true, v)
	g.line("end")
}

func (g *gen) genericFor(depth int) {
	i := &variable{name: g.name("k"), k: kInt, fixed: true}
	x := &variable{name: g.name("x"), k: kInt, fixed: true}
	switch g.intn(6) {
	case 5:
		// next over a constructor's array
		tail := ""
		if !g.opt.forInTable {
			tail = ", nil"
		}
		g.line("for %s, %s in next, {%s, %s}%s do", i.name, x.name, g.intExpr(2), g.intExpr(2), tail)
		g.loop(depth, 2, true, i, x)
	case 0:
		if t := g.varOf(kTab); t != "" {
			g.line("for %s, %s in ipairs(%s) do", i.name, x.name, t)
			g.loop(depth, 6, true, i, x)
			g.line("end")
			return
		}
		fallthrough
	case 1:
		g.line("for %s, %s in %s({%s, %s, %s}) do", i.name, x.name, g.pick("ipairs", "pairs"), g.intExpr(2), g.intExpr(2), g.intExpr(2))
		g.loop(depth, 3, true, i, x)
	case 2:
		x.k = kAny
		if l := g.varOf(kList); l != "" {
			g.line("for %s, %s in ipairs(%s) do", i.name, x.name, l)
		} else {
			g.line("for %s, %s in ipairs(%s) do", i.name, x.name, g.listExpr(2))
		}
		g.loop(depth, 8, true, i, x)
	case 3:
		x.k = kStr
		pat := g.pick(`"%S+"`, `"%a"`, `"[^,]+"`, `"."`)
		if g.opt.forInConcat {
			g.line("for %s in (%s):sub(1, 12):gmatch(%s) do", x.name, g.strExpr(2), pat)
		} else {
			g.line("for %s in string.gmatch(string.sub(%s, 1, 12), %s) do", x.name, g.strExpr(2), pat)
		}
		g.loop(depth, 12, true, x)
	case 4:
		// a stateful iterator
		c := g.name("c")
		g.line("local %s = 0", c)
		g.line("for %s in function() if %s < %s then %s = %s + 1 return %s * 2 end end do", x.name, c, g.pick("0", "2", "3"), c, c, c)
		g.loop(depth, 3, true, x)
	}
	g.line("end")
}

func (g *gen) counter() *variable {
	c := &variable{name: g.name("w"), k: kInt, fixed: true}
	g.line("local %s = 0", c.name)
	g.declare(c)
	return c
}

func (g *gen) whileStmt(depth int) {
	switch g.intn(4) {
	case 0:
		if !g.opt.loopJumps {
			g.line("while %s do", g.pick("true and false", "1 == 2"))
		} else {
			g.line("while %s do", g.pick("false", "nil", "false and true", "nil and 1", "not true"))
		}
		g.loop(depth, 1, true)
	case 1:
		c := g.counter()
		n := 1 + g.intn(4)
		g.line("while true do")
		g.ind++
		g.line("%s = %s + 1", c.name, c.name)
		g.line("if %s > %d then break end", c.name, n)
		g.ind--
		g.loop(depth, n, false)
	default:
		c := g.counter()
		n := 1 + g.intn(4)
		cond := fmt.Sprintf("%s < %d", c.name, n)
		if g.chance(1, 2) {
			cond += " and (" + g.cond(1) + ")"
		}
		g.line("while %s do", cond)
		g.ind++
		g.line("%s = %s + 1", c.name, c.name)
		g.ind--
		g.loop(depth, n, false)
	}
	g.line("end")
}

func (g *gen) repeatStmt(depth int) {
	c := g.counter()
	n := 1 + g.intn(4)
	g.line("repeat")
	saved := g.mult
	g.mult *= n
	g.fn().loops++
	g.ind++
	g.open()
	g.line("%s = %s + 1", c.name, c.name)
	g.ind--
	g.block(depth+1, false, false)
	// the condition may read the body's locals: declare one to read
	l := g.name("u")
	g.ind++
	g.line("local %s = %s", l, g.intExpr(2))
	g.ind--
	g.line("until %s >= %d or %s == %s", c.name, n, l, g.intExpr(1))
	g.close()
	g.fn().loops--
	g.mult = saved
}

// funcDef declares a function: its parameters are ints (kAny for a vararg function), and
// it returns values of kinds it chooses.
func (g *gen) funcDef(depth int) {
	if len(g.funcs) > 3 {
		g.simpleStmt(depth)
		return
	}
	s := &sig{params: g.intn(3), vararg: g.chance(1, 3)}
	for range g.intn(4) {
		s.rets = append(s.rets, []kind{kInt, kInt, kStr, kBool, kAny, kNum}[g.intn(6)])
	}
	if s.vararg && g.chance(1, 2) {
		s.moreRets = true
	}
	f := &variable{name: g.name("f"), k: kFn, fn: s}
	var params []string
	var pvars []*variable
	for range s.params {
		p := &variable{name: g.name("p"), k: kInt}
		if s.vararg {
			p.k = kAny
		}
		params = append(params, p.name)
		pvars = append(pvars, p)
	}
	if s.vararg {
		params = append(params, "...")
	}
	switch g.intn(3) {
	case 0:
		g.line("local function %s(%s)", f.name, strings.Join(params, ", "))
	case 1:
		g.line("local %s = function(%s)", f.name, strings.Join(params, ", "))
	case 2:
		// a global function: declared as a global, never assigned
		f.global = true
		g.line("function %s(%s)", f.name, strings.Join(params, ", "))
	}
	savedCost, savedMult, savedLeft := g.cost, g.mult, g.left
	g.cost, g.mult = 1, 1
	g.left = 2 + g.intn(6)
	g.funcs = append(g.funcs, &funcState{base: len(g.scopes), vararg: s.vararg})
	g.ind++
	g.open()
	for _, p := range pvars {
		g.declare(p)
	}
	for g.left > 0 {
		g.stmt(depth + 1)
	}
	if g.chance(1, 3) {
		g.dumpLocals()
	}
	var rs []string
	for _, k := range s.rets {
		rs = append(rs, g.expr(k, 2))
	}
	if s.moreRets {
		rs = append(rs, "...")
	}
	if len(rs) > 0 || g.chance(1, 2) {
		g.line("return %s", strings.Join(rs, ", "))
	}
	g.close()
	g.ind--
	g.funcs = g.funcs[:len(g.funcs)-1]
	s.cost = g.cost
	g.cost, g.mult, g.left = savedCost, savedMult, savedLeft-1
	g.line("end")
	g.declare(f)
}

// dumpLocals prints the current function's variables.
func (g *gen) dumpLocals() {
	var parts []string
	parts = append(parts, fmt.Sprintf("%q", g.name("in")))
	for _, sc := range g.scopes[g.fn().base:] {
		for _, v := range sc {
			if v.k != kFn {
				parts = append(parts, g.showVar(v))
			}
		}
	}
	g.line("print(%s)", strings.Join(parts, ", "))
}

// closures writes a loop that makes a closure a pass, capturing the loop's variable and a
// local of the body, and then calls each closure twice.
func (g *gen) closures(depth int) {
	fs := g.name("fs")
	g.line("local %s = {}", fs)
	i := g.name("i")
	j := g.name("l")
	switch g.intn(3) {
	case 0:
		g.line("for %s = 1, %s do", i, g.pick("2", "3"))
	case 1:
		g.line("for %s, _ in ipairs({%s, %s, %s}) do", i, g.intExpr(1), g.intExpr(1), g.intExpr(1))
	case 2:
		w := g.name("w")
		g.line("local %s = 0", w)
		g.line("while %s < 3 do", w)
		g.line("  %s = %s + 1", w, w)
		g.line("  local %s = %s", i, w)
	}
	g.ind++
	g.open()
	g.declare(&variable{name: i, k: kInt, fixed: true})
	if g.opt.loopJumps {
		g.line("local %s = %s", j, g.intExpr(1))
	} else {
		g.line("local %s = %s", j, g.pick(intLits...))
	}
	g.declare(&variable{name: j, k: kInt})
	body := fmt.Sprintf(g.pick("%[1]s = %[1]s + %[2]s return %[1]s", "return %[2]s * 10 + %[1]s",
		"%[1]s = %[1]s * 2 return %[1]s - %[2]s"), j, i)
	g.line("%s[#%s + 1] = function() %s end", fs, fs, body)
	if g.chance(1, 2) {
		g.line("%s = %s + 1", j, j)
	}
	g.close()
	g.ind--
	g.line("end")
	g.line("for n = 1, #%s do print(%q, n, %s[n](), %s[n]()) end", fs, fs, fs, fs)
}

// pcallStmt runs a block in pcall, maybe ending with an error, and prints whether it did.
func (g *gen) pcallStmt(depth int) {
	g.line("print(%q, (pcall(function()", g.name("pc"))
	saved := g.fn().loops
	g.fn().loops = 0
	g.funcs = append(g.funcs, &funcState{base: len(g.scopes)})
	g.block(depth+1, false, true)
	g.funcs = g.funcs[:len(g.funcs)-1]
	g.fn().loops = saved
	if g.opt.pcallError && g.chance(1, 2) {
		g.line("  %s", g.pick(`error("x")`, "error({})", "local _ = nil + 1", "local _ = #nil", `local _ = {} .. "x"`, "error()"))
	}
	g.line("end)))")
}

var numLiteral = regexp.MustCompile(`^\(?-?[0-9.xe]+(\^[0-9]+)?\)?$`)

// noFold keeps a number literal that is an operand of *, / or unary minus from being folded
// into a constant: C Lua 5.1 and this package give 0 and -0 one slot in a function's
// constants (the first of them to be folded), so a folded -0 may turn a later 0 into -0, or
// the other way round, each in its own way.
func noFold(e string) string {
	if numLiteral.MatchString(e) {
		return "fin(" + e + ")"
	}
	return e
}

// joinArgs joins a first argument and a list of further ones, which may be empty.
func joinArgs(first, rest string) string {
	if rest == "" {
		return first
	}
	return first + ", " + rest
}
