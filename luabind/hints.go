package luabind

import (
	"fmt"
	"regexp"
	"strings"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/ast"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// Error messages that say what C Lua would. gopher-lua's messages are terse where C Lua's
// help: "attempt to call a non-function object" does not say what was nil, and a missing
// `end` is a "syntax error near ')'". The messages are rewritten at the boundary, from the
// source's tokens (syntax) and from the bytecode and debug information gopher-lua keeps
// (runtime).

// syntaxHint rewrites a syntax error of src at line, near the token near ("" at the end of
// the file), or returns msg as it is.
func syntaxHint(src []byte, line int, near, msg string) string {
	if near == "!" {
		return "'!=' is not Lua: write ~= for \"not equal\" (and `not x` for !x)"
	}
	open := unclosedAt(string(src), line, near)
	if open == nil || !closesSomething(near) && !(isBracket(open.text) && startsStatement(near)) {
		return msg
	}
	where := fmt.Sprintf("near '%s'", near)
	if near == "" {
		where = "at end of file"
	}
	return fmt.Sprintf("'%s' expected (to close '%s' at line %d) %s", closerOf(open.text), open.text, open.line, where)
}

// unclosedAt scans src up to the token near on line (or to its end) and returns the block
// or bracket still open there that near does not close, or nil.
func unclosedAt(src string, line int, near string) *openToken {
	var stack []openToken
	var found *openToken
	stopped := false
	atError := func() {
		if len(stack) > 0 && closerOf(stack[len(stack)-1].text) != near {
			found = &stack[len(stack)-1]
		}
	}
	_ = parse.Tokens(strings.NewReader(src), "", func(tok ast.Token) bool {
		text := tok.Str
		if tok.Type == parse.TString || tok.Type == parse.TNumber {
			text = "" // a string "end" closes nothing
		}
		if tok.Pos.Line > line || tok.Pos.Line == line && text == near && near != "" {
			atError()
			stopped = true
			return false
		}
		t := openToken{text: text, line: tok.Pos.Line}
		switch text {
		case "do":
			if len(stack) > 0 && (stack[len(stack)-1].text == "while" || stack[len(stack)-1].text == "for") {
				return true // the do of a loop opened with it
			}
			stack = append(stack, t)
		case "function", "if", "repeat", "(", "[", "{", "while", "for":
			stack = append(stack, t)
		case "end", "until", ")", "]", "}":
			if len(stack) > 0 && closerOf(stack[len(stack)-1].text) == text {
				stack = stack[:len(stack)-1]
			}
		}
		return true
	})
	if !stopped {
		atError() // the end of the file, or a lexical error
	}
	return found
}

// openToken is a block or a bracket open at a line.
type openToken struct {
	text string
	line int
}

// closesSomething reports whether a token ends a block or a bracket ("" is the end of file).
func closesSomething(tok string) bool {
	switch tok {
	case "", ")", "]", "}", "end", "until", "else", "elseif":
		return true
	}
	return false
}

func isBracket(tok string) bool { return tok == "(" || tok == "[" || tok == "{" }

// startsStatement reports whether a keyword can only start a statement.
func startsStatement(tok string) bool {
	switch tok {
	case "return", "local", "if", "for", "while", "repeat", "do", "break":
		return true
	}
	return false
}

// closerOf is what closes an opener.
func closerOf(open string) string {
	switch open {
	case "(":
		return ")"
	case "[":
		return "]"
	case "{":
		return "}"
	case "repeat":
		return "until"
	}
	return "end"
}

// callHint rewrites gopher-lua's "attempt to call a non-function object" at line of the
// file compiled into p with the name of what was called, as C Lua says it: "attempt to call
// field 'encod' (a nil value)". When several calls on the line could be it, it names them
// all; when none can be named, msg is returned as it is.
func callHint(p *lua.FunctionProto, line int, msg string) string {
	if !strings.HasPrefix(msg, "attempt to call a non-function object") {
		return msg
	}
	var names []string
	eachProto(p, func(p *lua.FunctionProto) {
		for pc, inst := range p.Code {
			if op := int(inst >> 26); (op == lua.OP_CALL || op == lua.OP_TAILCALL) && pc < len(p.DbgSourcePositions) && p.DbgSourcePositions[pc] == line {
				if n := nameOf(p, int(inst>>18)&0xff, pc); n != "" && !contains(names, n) {
					names = append(names, n)
				}
			}
		}
	})
	switch len(names) {
	case 0:
		return msg
	case 1:
		return "attempt to call " + names[0] + " (not a function)"
	}
	return "attempt to call a value that is not a function: one of " + strings.Join(names, ", ")
}

// indexRE reads gopher-lua's index error: the type of what was indexed and the key.
var indexRE = regexp.MustCompile(`^attempt to index a non-table object\((\w+)\) with key '(.*)'$`)

// indexHint rewrites "attempt to index a non-table object(nil) with key 'y'" at line with the
// name of what was indexed: "attempt to index local 'x' (a nil value) with key 'y'".
func indexHint(p *lua.FunctionProto, line int, msg string) string {
	m := indexRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	var names []string
	eachProto(p, func(p *lua.FunctionProto) {
		for pc, inst := range p.Code {
			if pc >= len(p.DbgSourcePositions) || p.DbgSourcePositions[pc] != line {
				continue
			}
			a, b, c := int(inst>>18)&0xff, int(inst&0x1ff), int(inst>>9)&0x1ff
			base, key := -1, ""
			switch int(inst >> 26) {
			case lua.OP_GETTABLEKS, lua.OP_GETTABLE, lua.OP_SELF:
				base, key = b, keyName(p, c, pc)
			case lua.OP_SETTABLEKS, lua.OP_SETTABLE:
				base, key = a, keyName(p, b, pc)
			}
			if base >= 0 && key == m[2] {
				if n := nameOf(p, base, pc); n != "" && !contains(names, n) {
					names = append(names, n)
				}
			}
		}
	})
	if len(names) != 1 {
		return msg
	}
	return fmt.Sprintf("attempt to index %s (a %s value) with key '%s'", names[0], m[1], m[2])
}

func eachProto(p *lua.FunctionProto, f func(*lua.FunctionProto)) {
	f(p)
	for _, c := range p.FunctionPrototypes {
		eachProto(c, f)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// nameOf names the value in register reg at pc, from the instruction that last put it
// there: "field 'x'", "method 'x'", "global 'x'", "upvalue 'x'", "local 'x'", or "" when it
// cannot tell.
func nameOf(p *lua.FunctionProto, reg, pc int) string {
	if n := localName(p, reg, pc); n != "" {
		return "local '" + n + "'"
	}
	for q := pc - 1; q >= 0; q-- {
		inst := p.Code[q]
		a, b, c := int(inst>>18)&0xff, int(inst&0x1ff), int(inst>>9)&0x1ff
		if a != reg {
			continue
		}
		switch int(inst >> 26) {
		case lua.OP_GETTABLEKS, lua.OP_GETTABLE:
			if k := constName(p, c); k != "" {
				return "field '" + k + "'"
			}
		case lua.OP_SELF:
			if k := constName(p, c); k != "" {
				return "method '" + k + "'"
			}
		case lua.OP_GETGLOBAL:
			if bx := int(inst & 0x3ffff); bx < len(p.Constants) {
				return "global '" + p.Constants[bx].String() + "'"
			}
		case lua.OP_GETUPVAL:
			if b < len(p.DbgUpvalues) {
				return "upvalue '" + p.DbgUpvalues[b] + "'"
			}
		case lua.OP_MOVE:
			if n := localName(p, b, q); n != "" {
				return "local '" + n + "'"
			}
		}
		return ""
	}
	return ""
}

// constName is the string constant an RK operand names, or "".
func constName(p *lua.FunctionProto, rk int) string {
	const bitRK = 1 << 8
	if rk&bitRK == 0 {
		return ""
	}
	if k := rk &^ bitRK; k < len(p.Constants) {
		if s, ok := p.Constants[k].(lua.LString); ok {
			return string(s)
		}
	}
	return ""
}

// keyName is the string key an RK operand of the instruction at pc names: a constant, or a
// register a LOADK just before filled with one; "" otherwise.
func keyName(p *lua.FunctionProto, rk, pc int) string {
	if k := constName(p, rk); k != "" || rk&(1<<8) != 0 {
		return k
	}
	for q := pc - 1; q >= 0; q-- {
		inst := p.Code[q]
		if int(inst>>18)&0xff != rk {
			continue
		}
		if int(inst>>26) == lua.OP_LOADK {
			if bx := int(inst & 0x3ffff); bx < len(p.Constants) {
				if s, ok := p.Constants[bx].(lua.LString); ok {
					return string(s)
				}
			}
		}
		return ""
	}
	return ""
}

// localName is the name of the local variable held in register reg at pc, or "".
func localName(p *lua.FunctionProto, reg, pc int) string {
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
