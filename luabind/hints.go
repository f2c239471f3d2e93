package luabind

import (
	"fmt"
	"strings"

	"github.com/hermes-hooks/hermes/luabind/internal/lua/ast"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// Syntax errors that say what C Lua would: gopher-lua's parser says "syntax error near ')'"
// where a block or bracket is not closed, so the message is rewritten from the source's
// tokens. (Runtime errors name the variable where they are raised, in the interpreter:
// internal/lua/debugname.go.)

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
