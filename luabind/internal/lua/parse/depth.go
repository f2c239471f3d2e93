package parse

import (
	"fmt"

	"github.com/hermes-hooks/hermes/luabind/internal/lua/ast"
)

// MaxDepth bounds how deeply a chunk nests, as Lua 5.1 bounds its "syntax levels"
// (LUAI_MAXCCALLS, 200): each block (function, do, while, repeat, if and each elseif,
// for), each bracket (parentheses, table constructors, calls and indexing) and each operator
// is a level inside the ones around it. Statements, table fields and arguments side by
// side do not nest, however many there are. The compiler recurses over the syntax tree, so
// an unbounded depth would overflow the Go stack.
const MaxDepth = 200

// maxStack bounds the parser's stack: a chunk that needs more is deeper than MaxDepth
// levels whatever its shape (each level takes at most a few entries), and refusing it
// while parsing keeps a deep chunk from building its whole stack first.
const maxStack = 16 * MaxDepth

// TooDeep is the message of a chunk nested more than MaxDepth levels deep.
var TooDeep = fmt.Sprintf("chunk has too many syntax levels (more than %d levels of blocks, brackets or operators)", MaxDepth)

// level is a node of the syntax tree and the levels it nests in.
type level struct {
	node  any // ast.Stmt, ast.Expr or []ast.Stmt
	depth int
}

// checkDepth returns the error of a chunk that nests more than MaxDepth levels deep, at the
// line of its first node past the bound; nil when it does not. It walks the tree with a
// stack of its own, so it is safe on a tree of any depth.
func checkDepth(chunk []ast.Stmt, source string) error {
	stack := []level{{chunk, 0}}
	for len(stack) > 0 {
		l := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		d := l.depth
		push := func(nodes ...any) {
			for _, n := range nodes {
				stack = append(stack, level{n, d})
			}
		}
		pushExprs := func(exprs []ast.Expr) {
			for _, e := range exprs {
				stack = append(stack, level{e, d})
			}
		}
		switch n := l.node.(type) {
		case []ast.Stmt:
			for _, s := range n {
				stack = append(stack, level{s, d})
			}
			continue
		case nil:
			continue
		case ast.Expr:
			if p, ok := n.(interface{ ParenCount() int }); ok {
				d += p.ParenCount()
			}
		}
		switch n := l.node.(type) {
		// Leaves.
		case *ast.TrueExpr, *ast.FalseExpr, *ast.NilExpr, *ast.NumberExpr, *ast.StringExpr,
			*ast.Comma3Expr, *ast.IdentExpr, *ast.BreakStmt, *ast.LabelStmt, *ast.GotoStmt:
		// Statements are no level of their own, blocks are.
		case *ast.AssignStmt:
			pushExprs(n.Lhs)
			pushExprs(n.Rhs)
		case *ast.LocalAssignStmt:
			pushExprs(n.Exprs)
		case *ast.FuncCallStmt:
			push(n.Expr)
		case *ast.ReturnStmt:
			pushExprs(n.Exprs)
		case *ast.FuncDefStmt:
			push(n.Name.Func, n.Name.Receiver, n.Func)
		case *ast.DoBlockStmt:
			d++
			push(n.Stmts)
		case *ast.WhileStmt:
			d++
			push(n.Condition, n.Stmts)
		case *ast.RepeatStmt:
			d++
			push(n.Condition, n.Stmts)
		case *ast.IfStmt: // an elseif is an if in the else block: one more level
			d++
			push(n.Condition, n.Then, n.Else)
		case *ast.NumberForStmt:
			d++
			push(n.Init, n.Limit, n.Step, n.Stmts)
		case *ast.GenericForStmt:
			d++
			pushExprs(n.Exprs)
			push(n.Stmts)
		// Every other expression is a level.
		case *ast.AttrGetExpr:
			d++
			push(n.Object, n.Key)
		case *ast.TableExpr:
			d++
			for _, f := range n.Fields {
				push(f.Key, f.Value)
			}
		case *ast.FuncCallExpr:
			d++
			push(n.Func, n.Receiver)
			pushExprs(n.Args)
		case *ast.LogicalOpExpr:
			d++
			push(n.Lhs, n.Rhs)
		case *ast.RelationalOpExpr:
			d++
			push(n.Lhs, n.Rhs)
		case *ast.StringConcatOpExpr:
			d++
			push(n.Lhs, n.Rhs)
		case *ast.ArithmeticOpExpr:
			d++
			push(n.Lhs, n.Rhs)
		case *ast.UnaryMinusOpExpr:
			d++
			push(n.Expr)
		case *ast.UnaryNotOpExpr:
			d++
			push(n.Expr)
		case *ast.UnaryLenOpExpr:
			d++
			push(n.Expr)
		case *ast.FunctionExpr:
			d++
			push(n.Stmts)
		default:
			panic(fmt.Sprintf("checkDepth: unknown node %T", n))
		}
		if d > MaxDepth {
			line := 0
			if p, ok := l.node.(ast.PositionHolder); ok {
				line = p.Line()
			}
			return &Error{Pos: ast.Position{Source: source, Line: line}, Message: TooDeep}
		}
	}
	return nil
}

// tooDeep raises the error of a chunk too deep for the parser's stack, at the line of the
// token read last.
func (lx *Lexer) tooDeep() {
	panic(&Error{Pos: lx.Token.Pos, Message: TooDeep})
}
