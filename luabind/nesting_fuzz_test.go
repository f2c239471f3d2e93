package luabind

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/luabind/internal/lua/ast"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// FuzzNesting checks that the nesting measure never panics, splits source into the tokens
// gopher-lua's lexer finds, and never refuses a program that gopher-lua parses into a
// shallow tree with few brackets and blocks.
func FuzzNesting(f *testing.F) {
	for _, s := range trickySnippets {
		f.Add(s)
	}
	for _, gen := range nestingShapes {
		f.Add(gen(3))
	}
	f.Add("x = 1e+")
	f.Add("--[==x\n(")
	f.Add("s = \"a\\\r\nb\" .. [=[\r\n]=]")
	f.Fuzz(func(t *testing.T, src string) {
		n := scanNesting(src, maxNesting)
		toks, ok := gopherTokens(src)
		if !ok {
			return
		}
		if got := ourTokens(src); !slices.Equal(got, toks) {
			t.Fatalf("tokens differ from gopher-lua's:\n got %q\nwant %q", got, toks)
		}
		if !n.over {
			return
		}
		chunk, err := parse.Parse(strings.NewReader(src), "x")
		if err != nil {
			return
		}
		tree, blocks := astDepth(reflect.ValueOf(chunk)), blockDepth(toks)
		if tree <= 40 && blocks <= 40 {
			t.Fatalf("refused at line %d, but the tree is %d deep and brackets and blocks %d", n.line, tree, blocks)
		}
	})
}

var (
	exprType = reflect.TypeFor[ast.Expr]()
	stmtType = reflect.TypeFor[ast.Stmt]()
)

// astDepth is the depth of gopher-lua's syntax tree below v, in expressions and statements.
func astDepth(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			return astDepth(v.Elem())
		}
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		d := astDepth(v.Elem())
		if v.Type().Implements(exprType) || v.Type().Implements(stmtType) {
			d++
		}
		return d
	case reflect.Slice:
		d := 0
		for i := range v.Len() {
			d = max(d, astDepth(v.Index(i)))
		}
		return d
	case reflect.Struct:
		d := 0
		for i := range v.NumField() {
			d = max(d, astDepth(v.Field(i)))
		}
		return d
	}
	return 0
}

// blockDepth is how deeply the brackets and blocks of gopherTokens' tokens nest.
func blockDepth(toks []string) int {
	depth, deepest, loops := 0, 0, 0
	for _, tok := range toks {
		switch tok {
		case "while", "for":
			loops++
			depth++
		case "do":
			if loops > 0 {
				loops--
			} else {
				depth++
			}
		case "(", "[", "{", "function", "if", "repeat":
			depth++
		case ")", "]", "}", "end", "until":
			depth--
		}
		deepest = max(deepest, depth)
	}
	return deepest
}
