package luabind

import (
	"io"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/ast"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// gopher-lua v1.1.2's compiler miscompiles a jump back to a jump. Its last pass threads
// jumps to jumps: for each OP_JMP, in order, it follows the chain of jumps it lands on,
// reading each one's target as a label. A jump earlier in the code has already been
// rewritten to a distance by then, so a jump back onto a jump gets a target computed from a
// distance taken for a label: anywhere, or nowhere (the jump becomes a no-op). That is the
// case when a loop's body (or a while loop's condition) starts with a jump: `if false` (code
// switched off), `while true do break end`, a `while false`, a `break` or a `goto`. The loop
// then ends early, or jumps into other code, without any error. A guard fails open:
//
//	local blocked
//	for _, p in ipairs(banned) do
//	  if false then print(p)                 -- switched off: compiles to a jump
//	  elseif cmd:find(p, 1, true) then blocked = p end
//	end
//	return blocked and { action = "block" }  -- gopher-lua: blocked is nil
//
// fixLoopJumps rewrites the syntax tree before it is compiled so that no jump back lands on
// a jump. Where a loop's body (or a label that a goto may jump back to) starts with a
// statement that may begin with a jump (break, goto, a label, `if false`, `while true do
// break end`, ...), it puts first a `local` that loads nil into a register of its own, which
// no code can name. A while loop whose condition may begin with a jump (false, nil, an
// and/or/not of constants) tests it at the top of its body instead: `while true do if not
// (C) then break end ... end`. That costs one instruction per pass, only in such loops.
// TestLoopJumpsLikeLua51 and TestGeneratedLoopsLikeLua51 check the results against C Lua 5.1.

// compileChunk parses and compiles a chunk as lua.Compile does, with fixLoopJumps between.
func compileChunk(r io.Reader, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(r, name)
	if err != nil {
		return nil, err
	}
	return lua.Compile(fixLoopJumps(chunk), name)
}

// fixLoopJumps rewrites the statements of a chunk, and of every function in it, in place.
func fixLoopJumps(stmts []ast.Stmt) []ast.Stmt {
	for i, s := range stmts {
		stmts[i] = fixStmt(s)
	}
	for i := 0; i < len(stmts); i++ { // a label a goto may jump back to
		if _, ok := stmts[i].(*ast.LabelStmt); ok && i+1 < len(stmts) && mayStartWithJump(stmts[i+1]) {
			stmts = insertNop(stmts, i+1, stmts[i])
			i++
		}
	}
	return stmts
}

func fixStmt(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.WhileStmt:
		fixExpr(s.Condition)
		if condMayStartWithJump(s.Condition) { // while C do B end: while true do if not C then break end B end
			brk := &ast.BreakStmt{}
			brk.SetLine(s.Line())
			test := &ast.IfStmt{Condition: &ast.UnaryNotOpExpr{Expr: s.Condition}, Then: []ast.Stmt{brk}}
			test.SetLine(s.Line())
			s.Stmts = append([]ast.Stmt{test}, s.Stmts...)
			s.Condition = &ast.TrueExpr{}
		}
		s.Stmts = fixBody(s.Stmts, s)
	case *ast.RepeatStmt:
		s.Stmts = fixBody(s.Stmts, s)
		fixExpr(s.Condition)
	case *ast.GenericForStmt:
		fixExprs(s.Exprs)
		s.Stmts = fixBody(s.Stmts, s)
	case *ast.NumberForStmt:
		fixExprs([]ast.Expr{s.Init, s.Limit, s.Step})
		s.Stmts = fixLoopJumps(s.Stmts)
	case *ast.DoBlockStmt:
		s.Stmts = fixLoopJumps(s.Stmts)
	case *ast.IfStmt:
		fixExpr(s.Condition)
		s.Then = fixLoopJumps(s.Then)
		s.Else = fixLoopJumps(s.Else)
	case *ast.AssignStmt:
		fixExprs(s.Lhs)
		fixExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		fixExprs(s.Exprs)
	case *ast.FuncCallStmt:
		fixExpr(s.Expr)
	case *ast.FuncDefStmt:
		fixExpr(s.Func)
	case *ast.ReturnStmt:
		fixExprs(s.Exprs)
	}
	return s
}

// fixBody fixes a loop's body, which its loop jumps back to.
func fixBody(stmts []ast.Stmt, loop ast.Stmt) []ast.Stmt {
	stmts = fixLoopJumps(stmts)
	if len(stmts) > 0 && mayStartWithJump(stmts[0]) {
		stmts = insertNop(stmts, 0, loop)
	}
	return stmts
}

// condMayStartWithJump reports whether a loop condition's code may begin with a jump: a
// false or nil constant does, and so may an and/or/not of constants.
func condMayStartWithJump(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.FalseExpr, *ast.NilExpr:
		return true
	case *ast.LogicalOpExpr:
		return hasConstant(e)
	case *ast.UnaryNotOpExpr:
		return hasConstant(e)
	}
	return false
}

func hasConstant(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.TrueExpr, *ast.FalseExpr, *ast.NilExpr, *ast.NumberExpr, *ast.StringExpr:
		return true
	case *ast.LogicalOpExpr:
		return hasConstant(e.Lhs) || hasConstant(e.Rhs)
	case *ast.UnaryNotOpExpr:
		return hasConstant(e.Expr)
	}
	return false
}

// mayStartWithJump reports whether s's code may begin with a jump. Assignments, calls,
// returns, functions and loops over an expression list begin by loading a value; an if or
// a while begins with its condition's code, which for a truthy constant is none.
func mayStartWithJump(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.AssignStmt, *ast.LocalAssignStmt, *ast.FuncCallStmt, *ast.ReturnStmt,
		*ast.FuncDefStmt, *ast.NumberForStmt, *ast.GenericForStmt:
		return false
	case *ast.IfStmt:
		return condMayStartWithJump(s.Condition) || noCode(s.Condition) && blockMayStartWithJump(s.Then)
	case *ast.WhileStmt:
		return condMayStartWithJump(s.Condition) || noCode(s.Condition) && blockMayStartWithJump(s.Stmts)
	case *ast.RepeatStmt:
		return blockMayStartWithJump(s.Stmts)
	case *ast.DoBlockStmt:
		return blockMayStartWithJump(s.Stmts)
	}
	return true // break, goto, a label (no code: what follows it)
}

// blockMayStartWithJump is mayStartWithJump for a block; an empty one has no code, so what
// follows it comes first.
func blockMayStartWithJump(stmts []ast.Stmt) bool {
	return len(stmts) == 0 || mayStartWithJump(stmts[0])
}

// noCode reports whether a condition compiles to no code: a truthy constant.
func noCode(e ast.Expr) bool {
	switch e.(type) {
	case *ast.TrueExpr, *ast.NumberExpr, *ast.StringExpr:
		return true
	}
	return false
}

// insertNop inserts, at i, `local (nop)`: a LOADNIL into a new register of the block.
func insertNop(stmts []ast.Stmt, i int, at ast.Stmt) []ast.Stmt {
	nop := &ast.LocalAssignStmt{Names: []string{"(nop)"}}
	nop.SetLine(at.Line())
	nop.SetLastLine(at.Line())
	return append(stmts[:i], append([]ast.Stmt{nop}, stmts[i:]...)...)
}

func fixExprs(es []ast.Expr) {
	for _, e := range es {
		fixExpr(e)
	}
}

// fixExpr fixes the functions an expression defines.
func fixExpr(e ast.Expr) {
	switch e := e.(type) {
	case *ast.FunctionExpr:
		e.Stmts = fixLoopJumps(e.Stmts)
	case *ast.AttrGetExpr:
		fixExpr(e.Object)
		fixExpr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			fixExpr(f.Key)
			fixExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		fixExpr(e.Func)
		fixExpr(e.Receiver)
		fixExprs(e.Args)
	case *ast.LogicalOpExpr:
		fixExpr(e.Lhs)
		fixExpr(e.Rhs)
	case *ast.RelationalOpExpr:
		fixExpr(e.Lhs)
		fixExpr(e.Rhs)
	case *ast.StringConcatOpExpr:
		fixExpr(e.Lhs)
		fixExpr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		fixExpr(e.Lhs)
		fixExpr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		fixExpr(e.Expr)
	case *ast.UnaryNotOpExpr:
		fixExpr(e.Expr)
	case *ast.UnaryLenOpExpr:
		fixExpr(e.Expr)
	}
}
