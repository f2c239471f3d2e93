package luabind

import (
	"fmt"
	"io"
	"strings"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// gopher-lua parses with an explicit stack but compiles by recursion over the syntax tree,
// one or more Go frames (120 to 950 bytes) per level: nested brackets, blocks (function,
// do, while, for, if, repeat, and each elseif, which nests one more if), unary operators
// (`not not x`, `- - x`, `##t`), chains of binary operators, left- or right-associative
// (`1+1+...`, `a..b..`, `x and y and ...`, `a==b==...`), and chains of suffixes
// (`a.b.c`, `f()()`, `t[1][1]`, `o:m():m()`). Deep enough, any of them overflows the Go
// stack, which kills the process; long before that, compiling them takes time quadratic in
// their depth. So every source text is measured before it is parsed, in handler files and
// in loadstring and load at call time, and refused when it is larger than maxSourceSize or
// nests more than maxNesting levels of brackets, blocks and operators, as C Lua refuses
// more than 200 "syntax levels". Flat lists (statements, table fields, arguments) and
// strings do not nest, whatever their length.
//
// The measure is the height of the tree the compiler will walk, computed from the tokens:
// each bracket or block is a level, and inside one, an expression is as tall as its
// operators make it, by precedence (`a*b + c*d` is two levels, not three).

// Bounds of source text (handler files, loadstring, load).
const (
	maxNesting    = 200     // brackets, blocks and operators nested in one another
	maxSourceSize = 4 << 20 // bytes
)

// nestingMsg is the message of a source that nests too deeply.
var nestingMsg = fmt.Sprintf("nesting too deep (more than %d levels of brackets, blocks or operators)", maxNesting)

// sourceTooLarge is the message of a source larger than maxSourceSize.
var sourceTooLarge = fmt.Sprintf("%ssource larger than %s", limitPrefix, byteSize(maxSourceSize))

// checkSource returns why src may not be compiled, and the line concerned (0 for the
// whole text); "" when it may. Source that gopher-lua's lexer refuses is left to the
// parser, which reports the error.
func checkSource(src string) (line int, msg string) {
	line, msg, _ = measureSource(src)
	return line, msg
}

// measureSource is checkSource, and when src may be compiled, what compiling it takes
// (compileCost).
func measureSource(src string) (line int, msg string, cost int64) {
	if len(src) > maxSourceSize {
		return 0, sourceTooLarge, 0
	}
	n := scanNesting(src, maxNesting)
	if n.over {
		return n.line, nestingMsg, 0
	}
	return 0, "", compileCost(len(src), n.tokens, n.functions)
}

// checkNesting is checkSource for a handler file, as a syntax error (*Error) naming it.
func checkNesting(file string, src []byte) error {
	if len(src) > maxSourceSize {
		return &Error{Kind: KindLimit, File: file, Msg: sourceTooLarge}
	}
	line, msg := checkSource(string(src))
	if msg == "" {
		return nil
	}
	return &Error{Kind: KindSyntax, File: file, Line: line, Msg: msg}
}

// measureNesting scans src and reports whether it nests at most maxNesting deep, and if
// not, the line where it passes the bound.
func measureNesting(src string) (line int, ok bool) {
	n := scanNesting(src, maxNesting)
	return n.line, !n.over
}

// scanNesting measures src until the end or until it nests deeper than limit. It stops
// early, without passing the bound, at what gopher-lua's lexer refuses: the parser reports
// it before anything is compiled. A bracket or block closed that is not open (a syntax
// error too) is skipped, and the measure goes on.
func scanNesting(src string, limit int) *nesting {
	lx := luaLexer{src: src, line: 1}
	n := &nesting{frames: make([]nestFrame, 1, 16), limit: limit}
	for {
		tok := lx.next()
		n.line = tok.line
		switch tok.kind {
		case tokEOF:
			n.endExpr()
			return n
		case tokBad:
			return n
		}
		n.tokens++
		n.token(tok)
		if n.over {
			return n
		}
	}
}

// nesting computes the height of the syntax tree from the tokens.
type nesting struct {
	frames []nestFrame // open brackets and blocks; frames[0] is the chunk
	ops    []pendingOp // operators waiting for their right operand, of every frame
	line   int         // of the current token
	limit  int         // the bound: maxNesting
	peak   int         // deepest level seen
	over   bool        // the bound was passed

	tokens, functions int // seen so far, for compileCost
}

// nestFrame is an open bracket or block and the state of the expression being read in it.
// Its kind is the bracket ('(', '[', '{') or the block: 'f' function, 'd' do, 'i' if, 'r'
// repeat, 'w' while or for before its do.
type nestFrame struct {
	kind   byte
	base   int  // levels above the frame's contents, the frame's own included
	ops    int  // where the frame's pending operators start in nesting.ops
	extra  int  // elseif branches of an if, each one more level
	height int  // tallest expression of the frame so far
	opnd   int  // height of the operand being read (its suffixes)
	after  bool // an operand just ended: a binary operator or a suffix may follow
	member bool // after '.' or ':', where a name follows
	method bool // after ':' and its name: the call's arguments are no further level
}

// pendingOp is an operator waiting for its right operand: its precedence and the height
// of its left operand (0 for a unary operator).
type pendingOp struct{ prec, lhs int }

// Precedences, as in Lua 5.1.
const (
	precUnary = 7
	precPow   = 8
	precCat   = 4
)

// binaryPrec is the precedence of a binary operator.
func binaryPrec(op string) int {
	switch op {
	case "or":
		return 1
	case "and":
		return 2
	case "..":
		return precCat
	case "+", "-":
		return 5
	case "*", "/", "%":
		return 6
	case "^":
		return precPow
	}
	return 3 // comparisons
}

func (n *nesting) top() *nestFrame { return &n.frames[len(n.frames)-1] }

// fits checks an absolute depth against the bound.
func (n *nesting) fits(depth int) {
	n.peak = max(n.peak, depth)
	if depth > n.limit {
		n.over = true
	}
}

// depth is the depth of the operand being read: its frame's base, the operators waiting
// above it, and its own height.
func (n *nesting) depth(f *nestFrame) int {
	return f.base + f.extra + len(n.ops) - f.ops + f.opnd
}

// token moves the measure over one token.
func (n *nesting) token(t luaToken) {
	switch t.kind {
	case tokNumber:
		n.operand()
	case tokString:
		if f := n.top(); f.after { // f "s": a call
			n.suffix()
		} else {
			n.operand()
		}
	case tokName:
		n.name(t.text)
	case tokOp:
		n.punct(t.text)
	}
}

// name handles a name or a keyword.
func (n *nesting) name(s string) {
	switch s {
	case "and", "or":
		n.binary(binaryPrec(s))
	case "not":
		n.unary()
	case "nil", "true", "false":
		n.operand()
	case "function":
		n.functions++
		n.operand()
		n.push('f')
	case "do":
		n.endExpr()
		if f := n.top(); f.kind == 'w' {
			f.kind = 'd'
		} else {
			n.push('d')
		}
	case "while", "for":
		n.endExpr()
		n.push('w')
	case "if":
		n.endExpr()
		n.push('i')
	case "repeat":
		n.endExpr()
		n.push('r')
	default:
		n.keyword(s)
	}
}

// keyword handles the keywords that end an expression, and names.
func (n *nesting) keyword(s string) {
	switch s {
	case "elseif":
		n.endExpr()
		if f := n.top(); f.kind == 'i' {
			f.extra++ // gopher-lua nests an if in the else branch
			n.fits(f.base + f.extra)
		}
	case "until":
		n.endExpr()
		n.pop("r")
	case "end":
		n.endExpr()
		n.pop("fdi")
	case "then", "else", "local", "return", "break", "goto", "in":
		n.endExpr()
	default:
		if f := n.top(); f.member {
			f.member, f.after = false, true
		} else {
			n.operand()
		}
	}
}

// punct handles an operator or a bracket.
func (n *nesting) punct(s string) {
	switch s {
	case "(", "[", "{":
		if n.top().after { // a call or an index
			n.suffix()
		}
		n.push(s[0])
	case ")", "]", "}":
		n.endExpr()
		i := strings.Index(")]}", s)
		n.pop("([{"[i : i+1])
	case ".", ":":
		n.suffix()
		f := n.top()
		f.after, f.member, f.method = false, true, s == ":"
	case ",", ";", "=", "::":
		n.endExpr()
	case "...":
		n.operand()
	case "#":
		n.unary()
	case "-":
		if n.top().after {
			n.binary(binaryPrec(s))
		} else {
			n.unary()
		}
	default:
		n.binary(binaryPrec(s))
	}
}

// operand starts a name, a literal, or a function or bracket that push will open. After a
// complete operand, it starts a new statement.
func (n *nesting) operand() {
	f := n.top()
	if f.after {
		n.endExpr()
	}
	f.after, f.member, f.method, f.opnd = true, false, false, 0
}

// suffix adds one level to the operand being read: a field, a method call, a call, an
// index.
func (n *nesting) suffix() {
	f := n.top()
	if f.method { // o:m(...) is one call
		f.method = false
		return
	}
	f.opnd++
	n.fits(n.depth(f))
}

// unary starts a unary operator.
func (n *nesting) unary() {
	f := n.top()
	n.ops = append(n.ops, pendingOp{prec: precUnary})
	f.after, f.member, f.method, f.opnd = false, false, false, 0
	n.fits(n.depth(f))
}

// binary ends the left operand of an operator of precedence prec: operators of higher
// precedence (and of the same one when left-associative) take their right operand.
func (n *nesting) binary(prec int) {
	f := n.top()
	lhs := n.reduce(f, prec)
	n.ops = append(n.ops, pendingOp{prec: prec, lhs: lhs})
	f.after, f.member, f.method, f.opnd = false, false, false, 0
	n.fits(f.base + f.extra + len(n.ops) - f.ops + lhs)
}

// reduce completes the pending operators of f that bind tighter than prec (all of them
// when prec is 0) and returns the height of what they built.
func (n *nesting) reduce(f *nestFrame, prec int) int {
	h := f.opnd
	for len(n.ops) > f.ops {
		op := n.ops[len(n.ops)-1]
		if op.prec < prec || op.prec == prec && (prec == precPow || prec == precCat) {
			break
		}
		n.ops = n.ops[:len(n.ops)-1]
		h = max(h, op.lhs) + 1
	}
	return h
}

// endExpr completes the expression being read in the current frame.
func (n *nesting) endExpr() {
	f := n.top()
	h := n.reduce(f, 0)
	f.height = max(f.height, h)
	f.after, f.member, f.method, f.opnd = false, false, false, 0
	n.fits(f.base + f.extra + h)
}

// push opens a bracket or block inside the operand being read.
func (n *nesting) push(kind byte) {
	f := n.top()
	base := f.base + f.extra + len(n.ops) - f.ops + 1
	n.frames = append(n.frames, nestFrame{kind: kind, base: base, ops: len(n.ops)})
	n.fits(base)
}

// pop closes the current frame if it is of one of kinds (else the token closes nothing);
// the expression it ended is complete. Its height becomes part of the operand being read
// in the frame around it.
func (n *nesting) pop(kinds string) {
	f := n.top()
	if len(n.frames) == 1 || strings.IndexByte(kinds, f.kind) < 0 {
		return
	}
	h := 1 + f.extra + f.height
	n.frames = n.frames[:len(n.frames)-1]
	p := n.top()
	p.opnd = max(p.opnd, h)
	p.after, p.member, p.method = true, false, false
	n.fits(n.depth(p))
}

// Token kinds of luaLexer.
const (
	tokEOF    = iota
	tokName   // a name or a keyword
	tokNumber // a numeral
	tokString // quoted or long
	tokOp     // an operator or a bracket
	tokBad    // what gopher-lua's lexer refuses
)

type luaToken struct {
	kind int
	text string // names and operators
	line int
}

// luaLexer splits Lua source into tokens as gopher-lua's lexer does: the same tokens, and
// an error (tokBad) where it has one.
type luaLexer struct {
	src  string
	pos  int
	line int
}

func (lx *luaLexer) peek(i int) byte {
	if lx.pos+i < len(lx.src) {
		return lx.src[lx.pos+i]
	}
	return 0
}

// newline skips the line break at pos: "\n", "\r", "\r\n" or "\n\r".
func (lx *luaLexer) newline() {
	c := lx.src[lx.pos]
	lx.pos++
	lx.line++
	if d := lx.peek(0); (d == '\n' || d == '\r') && d != c {
		lx.pos++
	}
}

// next returns the next token.
func (lx *luaLexer) next() luaToken {
	for lx.pos < len(lx.src) {
		switch c := lx.src[lx.pos]; {
		case c == ' ' || c == '\t':
			lx.pos++
		case c == '\n' || c == '\r':
			lx.newline()
		case c == '-' && lx.peek(1) == '-':
			if !lx.comment() {
				return luaToken{kind: tokBad, line: lx.line}
			}
		default:
			return lx.token(c)
		}
	}
	return luaToken{kind: tokEOF, line: lx.line}
}

// token reads the token starting with c.
func (lx *luaLexer) token(c byte) luaToken {
	t := luaToken{line: lx.line}
	start := lx.pos
	ok := true
	switch {
	case lexNameByte(c, true):
		for lx.pos++; lx.pos < len(lx.src) && lexNameByte(lx.src[lx.pos], false); lx.pos++ {
		}
		t.kind, t.text = tokName, lx.src[start:lx.pos]
	case lexDecimal(c) || c == '.' && lexDecimal(lx.peek(1)):
		t.kind, ok = tokNumber, lx.number()
	case c == '"' || c == '\'':
		t.kind, ok = tokString, lx.quoted(c)
	case c == '[' && (lx.peek(1) == '[' || lx.peek(1) == '='):
		lx.pos++
		t.kind, ok = tokString, lx.long()
	default:
		t.kind, t.text = tokOp, lx.operator()
		ok = t.text != ""
	}
	if !ok {
		t.kind = tokBad
	}
	return t
}

func lexNameByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && lexDecimal(c)
}

func lexDecimal(c byte) bool { return '0' <= c && c <= '9' }

func lexHex(c byte) bool { return lexDecimal(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// number reads a numeral the way gopher-lua does: 0x and hex digits, or digits, an optional
// fraction and an optional exponent (whose first character is taken whatever it is).
func (lx *luaLexer) number() bool {
	if lx.peek(0) == '0' && (lx.peek(1) == 'x' || lx.peek(1) == 'X') {
		lx.pos += 2
		start := lx.pos
		for lx.pos < len(lx.src) && lexHex(lx.src[lx.pos]) {
			lx.pos++
		}
		return lx.pos > start
	}
	lx.pos++ // a digit, or the '.' of ".5"
	lx.digits()
	if lx.peek(0) == '.' {
		lx.pos++
		lx.digits()
	}
	if c := lx.peek(0); c == 'e' || c == 'E' {
		lx.pos++
		if c := lx.peek(0); c == '-' || c == '+' {
			lx.pos++
		}
		switch {
		case lx.pos >= len(lx.src):
		case lx.src[lx.pos] == '\n' || lx.src[lx.pos] == '\r':
			lx.newline()
		default:
			lx.pos++
		}
		lx.digits()
	}
	return true
}

func (lx *luaLexer) digits() {
	for lx.pos < len(lx.src) && lexDecimal(lx.src[lx.pos]) {
		lx.pos++
	}
}

// quoted reads a string in quotes; a line break must be escaped.
func (lx *luaLexer) quoted(quote byte) bool {
	for lx.pos++; lx.pos < len(lx.src); {
		switch c := lx.src[lx.pos]; c {
		case quote:
			lx.pos++
			return true
		case '\n', '\r':
			return false
		case '\\':
			lx.pos++
			if c := lx.peek(0); c == '\n' || c == '\r' {
				lx.newline()
				continue
			}
			lx.pos++
		default:
			lx.pos++
		}
	}
	return false
}

// long reads a long bracket whose first '[' is just before pos: [[...]], [==[...]==].
func (lx *luaLexer) long() bool {
	level := 0
	for lx.peek(0) == '=' {
		level++
		lx.pos++
	}
	if lx.peek(0) != '[' {
		return false
	}
	lx.pos++
	end := strings.Index(lx.src[lx.pos:], "]"+strings.Repeat("=", level)+"]")
	if end < 0 {
		return false
	}
	stop := lx.pos + end
	for lx.pos < stop {
		if c := lx.src[lx.pos]; c == '\n' || c == '\r' {
			lx.newline()
		} else {
			lx.pos++
		}
	}
	lx.pos = stop + level + 2
	return true
}

// comment skips a comment starting at pos: "--[[...]]", "--[==[...]==]" or to the end of
// the line.
func (lx *luaLexer) comment() bool {
	lx.pos += 2
	if lx.peek(0) == '[' {
		lx.pos++
		if c := lx.peek(0); c == '[' || c == '=' {
			return lx.long()
		}
	}
	for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' && lx.src[lx.pos] != '\r' {
		lx.pos++
	}
	return true
}

// operator reads an operator; "" if there is none at pos (a byte gopher-lua refuses).
func (lx *luaLexer) operator() string {
	rest := lx.src[lx.pos:]
	n := 1
	switch rest[0] {
	case '+', '-', '*', '/', '%', '^', '#', '(', ')', '{', '}', '[', ']', ';', ',':
	case '=', '<', '>':
		if len(rest) > 1 && rest[1] == '=' {
			n = 2
		}
	case '~':
		if len(rest) < 2 || rest[1] != '=' {
			return ""
		}
		n = 2
	case ':':
		if len(rest) > 1 && rest[1] == ':' {
			n = 2
		}
	case '.':
		for n < 3 && n < len(rest) && rest[n] == '.' {
			n++
		}
	default:
		return ""
	}
	lx.pos += n
	return rest[:n]
}

// installLoad bounds the chunks compiled at call time: loadstring(s, name) and load(fn,
// name) refuse source larger than maxSourceSize or nested more than maxNesting deep,
// returning nil and the message as Lua does for a syntax error.
func installLoad(L *lua.LState, _ *env) {
	g := L.G.Global
	if _, ok := g.RawGetString("loadstring").(*lua.LFunction); !ok {
		return
	}
	g.RawSetString("loadstring", L.NewFunction(func(L *lua.LState) int {
		src := L.CheckString(1)
		return loadChecked(L, src, L.OptString(2, "<string>"))
	}))
	g.RawSetString("load", L.NewFunction(func(L *lua.LState) int {
		fn := L.CheckFunction(1)
		name := L.OptString(2, "?")
		src, msg := readChunk(L, fn, name)
		if msg != "" {
			L.Push(lua.LNil)
			L.Push(lua.LString(msg))
			return 2
		}
		return loadChecked(L, src, name)
	}))
}

// loadChecked compiles src as gopher-lua's loadstring does once checkSource accepts it.
func loadChecked(L *lua.LState, src, name string) int {
	line, msg, cost := measureSource(src)
	if msg != "" {
		L.Push(lua.LNil)
		if line > 0 {
			msg = fmt.Sprintf("%s:%d: %s", name, line, msg)
		} else {
			msg = fmt.Sprintf("%s: %s", name, msg)
		}
		L.Push(lua.LString(msg))
		return 2
	}
	L.ChargeMemory(cost)
	// gopher-lua's loadstring (L.Load).
	proto, err := compileChunk(strings.NewReader(src), name)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(L.NewFunctionFromProto(proto))
	return 1
}

// readChunk calls load's reader function until it returns nil or "", as gopher-lua's load
// does, keeping the text at most maxSourceSize long and polling the call's context.
func readChunk(L *lua.LState, fn *lua.LFunction, name string) (string, string) {
	var b strings.Builder
	p := poller{L: L}
	for {
		L.Push(fn)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		if v == lua.LNil {
			break
		}
		if !lua.LVCanConvToString(v) {
			return "", "reader function must return a string"
		}
		s := v.String()
		if s == "" {
			break
		}
		if b.Len()+len(s) > maxSourceSize {
			return "", name + ": " + sourceTooLarge
		}
		b.WriteString(s)
		p.check()
	}
	return b.String(), ""
}

// compileChunk parses and compiles a chunk as lua.Compile does.
func compileChunk(r io.Reader, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(r, name)
	if err != nil {
		return nil, err
	}
	return lua.Compile(chunk, name)
}
