package parse

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/luabind/internal/lua/ast"
)

// depthShapes build source nested n levels deep in each way the compiler recurses.
var depthShapes = map[string]func(n int) string{
	"parens":         func(n int) string { return "x = " + rep("(", n) + "1" + rep(")", n) },
	"tables":         func(n int) string { return "x = " + rep("{", n) + rep("}", n) },
	"keyed tables":   func(n int) string { return "x = " + rep("{[1] = ", n) + "1" + rep("}", n) },
	"functions":      func(n int) string { return "x = " + rep("function() return ", n) + "1" + rep(" end", n) },
	"local function": func(n int) string { return rep("local function f() ", n) + rep(" end", n) },
	"if":             func(n int) string { return rep("if x then ", n) + rep(" end", n) },
	"elseif":         func(n int) string { return "if x then " + rep("elseif x then ", n-1) + "end" },
	"do":             func(n int) string { return rep("do ", n) + rep(" end", n) },
	"while":          func(n int) string { return rep("while x do ", n) + rep(" end", n) },
	"for":            func(n int) string { return rep("for i = 1, 2 do ", n) + rep(" end", n) },
	"for in":         func(n int) string { return rep("for k in x do ", n) + rep(" end", n) },
	"repeat":         func(n int) string { return rep("repeat ", n) + rep(" until x", n) },
	"fields":         func(n int) string { return "x = a" + rep(".b", n) },
	"calls":          func(n int) string { return "x = f" + rep("()", n) },
	"call arguments": func(n int) string { return "x = " + rep("f(", n) + rep(")", n) },
	"index":          func(n int) string { return "x = a" + rep("[1]", n) },
	"methods":        func(n int) string { return "x = a" + rep(":b()", n) },
	"string calls":   func(n int) string { return "x = f" + rep(`"a"`, n) },
	"table calls":    func(n int) string { return "x = f" + rep("{}", n-1) }, // the last table is a level too
	"sum":            func(n int) string { return "x = 1" + rep("+1", n) },
	"concat":         func(n int) string { return "x = s" + rep("..s", n) },
	"power":          func(n int) string { return "x = y" + rep("^y", n) },
	"comparisons":    func(n int) string { return "x = y" + rep("==y", n) },
	"and":            func(n int) string { return "x = y" + rep(" and y", n) },
	"not":            func(n int) string { return "x = " + rep("not ", n) + "y" },
	"minus":          func(n int) string { return "x = " + rep("- ", n) + "y" },
	"length":         func(n int) string { return "x = " + rep("#", n) + "t" },
	"function names": func(n int) string { return "function a" + rep(".b", n) + "() end" },
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

// Every shape parses at MaxDepth levels and is refused, at its line, one level deeper and
// 200,000 levels deeper.
func TestMaxDepthEveryShape(t *testing.T) {
	if raceEnabled {
		t.Skip("parses the deepest programs in one goroutine: run without -race")
	}
	for name, gen := range depthShapes {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(strings.NewReader(gen(MaxDepth)), "x"); err != nil {
				t.Fatalf("%d levels: %v", MaxDepth, err)
			}
			for _, n := range []int{MaxDepth + 1, 200_000} {
				_, err := Parse(strings.NewReader("\n"+gen(n)), "x")
				var pe *Error
				if !errors.As(err, &pe) || pe.Message != TooDeep || pe.Pos.Line != 2 {
					t.Fatalf("%d levels: %v, want %q at line 2", n, err, TooDeep)
				}
			}
		})
	}
}

// Flat lists do not nest, however long.
func TestMaxDepthFlat(t *testing.T) {
	for name, src := range map[string]string{
		"statements":      rep("x = 1\n", 100_000),
		"fields":          "x = {" + rep("1, ", 100_000) + "}",
		"arguments":       "f(" + rep("1, ", 100_000) + "1)",
		"values":          "return " + rep("1, ", 100_000) + "1",
		"elseifs in a do": rep("do ", 150) + "if x then " + rep("elseif x then ", 49) + "end" + rep(" end", 150),
	} {
		if _, err := Parse(strings.NewReader(src), "x"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A count callback sees the tokens and functions read, and its panic is not swallowed.
func TestParseCounted(t *testing.T) {
	var tokens, functions int
	_, err := ParseCounted(strings.NewReader("local f = function() end\nfunction g() return f end"), "x", func(t, f int) { tokens, functions = t, f })
	if err != nil || tokens != 14 || functions != 2 {
		t.Errorf("tokens %d, functions %d, err %v", tokens, functions, err)
	}
	defer func() {
		if r := recover(); r != "over" {
			t.Errorf("recovered %v, want the count's panic", r)
		}
	}()
	_, _ = ParseCounted(strings.NewReader(rep("x = 1\n", CountEvery)), "x", func(int, int) { panic("over") })
	t.Error("the count's panic was swallowed")
}

// FuzzParseDepth checks that the parser never panics, and that what it accepts is a tree
// the compiler can walk: at most a few nodes per level of MaxDepth.
func FuzzParseDepth(f *testing.F) {
	for _, gen := range depthShapes {
		f.Add(gen(3))
		f.Add(gen(MaxDepth + 1))
	}
	f.Add("if a then elseif b then else end")
	f.Add("x = ((f))(a)[b]:c{d}'e'")
	f.Fuzz(func(t *testing.T, src string) {
		chunk, err := Parse(strings.NewReader(src), "x")
		if err != nil {
			return
		}
		if d := treeDepth(reflect.ValueOf(chunk)); d > 2*MaxDepth+2 {
			t.Fatalf("accepted a tree %d nodes deep", d)
		}
	})
}

var (
	exprType = reflect.TypeFor[ast.Expr]()
	stmtType = reflect.TypeFor[ast.Stmt]()
)

// treeDepth is the depth of the syntax tree below v, in expressions and statements.
func treeDepth(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			return treeDepth(v.Elem())
		}
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		d := treeDepth(v.Elem())
		if v.Type().Implements(exprType) || v.Type().Implements(stmtType) {
			d++
		}
		return d
	case reflect.Slice:
		d := 0
		for i := range v.Len() {
			d = max(d, treeDepth(v.Index(i)))
		}
		return d
	case reflect.Struct:
		d := 0
		for i := range v.NumField() {
			d = max(d, treeDepth(v.Field(i)))
		}
		return d
	}
	return 0
}
