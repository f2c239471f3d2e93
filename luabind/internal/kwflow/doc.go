// Package kwflow decides, by reading a Lua function's bytecode once, whether a table the
// engine passes it as a parameter can be refilled for the next call instead of built anew,
// without the function being able to tell.
//
// A table may be refilled when the function only reads it: fields looked up, compared,
// tested for truth, their length taken, the values read passed anywhere. A table that is
// stored, passed to a function, returned, written to, used where a metamethod of another
// value could receive it, or that a closure can reach, may outlive the call or be changed by
// it, and is rebuilt every time. Analyze answers for the table and for each of its fields,
// and says which fields the function may look up at all: a field a function never looks up
// in a read-only table holds a value it can never see, which the engine need not convert.
//
// # Invariants
//
// The analysis is sound only as long as every statement below holds. Each is a fact about
// the interpreter, luabind/internal/lua (its compiler, compile.go, and its interpreter,
// vm.go), or about the engine that calls Analyze. TestOpcodesPinned fails when its opcode
// table changes; a change to the compiler's code generation (PATCHES.md there) must be read
// against this list too.
//
//   - Instruction layout (opcode.go): the opcode is bits 26-31; A is bits 18-25; B bits 0-8;
//     C bits 9-17; Bx bits 0-17; sBx is Bx minus 2^17-1. An RK operand with bit 8 set names
//     constant number (operand &^ 256), else a register.
//   - The opcodes are those of Lua 5.1 plus OP_MOVEN, in the order of opcode.go, with OP_NOP
//     the last. The compiler emits OP_NOP for a jump to the next instruction; it does
//     nothing.
//   - OP_CLOSURE A Bx is followed by NumUpvalues pseudo-instructions of the prototype Bx,
//     which the interpreter consumes: OP_MOVE _ B captures register B of the running function
//     by reference (an open upvalue: later writes to the register are seen by the closure and
//     the closure's writes are seen in the register), OP_GETUPVAL _ B shares upvalue B. R(A)
//     is set before the capture, so a local function can capture itself. Nothing else
//     captures a register. The pseudo-instructions are never jumped to.
//   - OP_MOVEN A B C sets R(A) := R(B) and then runs the next C instructions as MOVEs (only
//     their A and B), skipping them. The compiler emits OP_MOVE there, so reading them as
//     ordinary instructions, in order, is the same.
//   - OP_SETLIST A B C with C == 0 takes C from the next word, which is a number, not an
//     instruction; B == 0 stores every register from A+1 to the top.
//   - OP_LOADBOOL A B C skips the next instruction when C != 0.
//   - OP_EQ, OP_LT, OP_LE, OP_TEST and OP_TESTSET continue at pc+1 or pc+2. OP_TESTSET sets
//     R(A) := R(B) only on the pc+1 path.
//   - OP_TFORLOOP A C copies R(A), R(A+1), R(A+2) to R(A+3), R(A+4), R(A+5), calls R(A+3)
//     with the two others, puts C results from R(A+3) on, sets R(A+2) := R(A+3) when that is
//     not nil and then jumps by the sBx of the OP_JMP that always follows it; else it skips
//     that OP_JMP.
//   - OP_FORPREP A sBx writes R(A) and jumps; OP_FORLOOP A sBx writes R(A) and R(A+3) and
//     jumps back or falls through. Both read R(A)..R(A+2), which must be numbers (no
//     metamethod is consulted).
//   - OP_CALL A B C calls R(A) with R(A+1)..R(A+B-1) (B == 0: to the top) and writes
//     R(A)..R(A+C-2) (C == 0: to the top); OP_VARARG writes from R(A) on, from the extra
//     arguments only: a named parameter is never among them.
//   - Equality (OP_EQ) calls __eq only when both operands share the same metamethod, and
//     length (OP_LEN) consults __len of its own operand; a table with no metatable gives
//     neither a chance to run Lua code. Arithmetic, concatenation, OP_LT and OP_LE may call a
//     metamethod of either operand with both.
//   - A register is only read after the function wrote it in the same call, and a call's
//     registers are gone when it returns; the debug library is not available to handlers.
//   - The engine builds the tables it passes with no metatable, passes a refilled table to
//     one function only, and never refills it while a call that received it runs.
//
// # What is tracked
//
// A forward data-flow pass over the instructions gives each register a mask of what it may
// hold: the table itself, or the value of one of its fields (one bit per constant key, one
// for keys known only at run time). Values read out of a field are not tracked: the engine
// builds the tables nested deeper than the parameter's own fields anew for every call.
//
// A pre-pass collects every register any OP_CLOSURE of the function captures. Such a
// register is shared with a closure for as long as the closure lives, which may be beyond
// the call, so whatever value ever enters it, before or after the capture, is treated as
// reachable by the closure; that includes the parameter itself when its register is
// captured. A table or field value reaching such a register makes the whole table not
// read-only. Nested functions themselves are not analysed: they can only reach the table
// through a captured register, an argument or a global, all of which count as escapes here.
// What the function reads from its own upvalues or globals, or gets back from a call, is
// taken to be none of the table: it could only be if some call had let the table escape,
// and then the answer is "not read-only" for every call.
//
// # Following a call
//
// AnalyzeFunc (the engine's entry) also knows the function's upvalues. A register written
// by OP_GETUPVAL holds that upvalue's value until it is written again (a register a closure
// captures never does: the closure may change it). A call of such a register that passes
// the table once, when the upvalue is closed and holds a Lua function, analyses that
// function in turn with the table as its parameter; when it only reads the table, the call
// is no escape, and the fields it reads or lets out count as the caller's. It goes four
// calls deep and follows sixteen functions in all; a table passed twice to one call, to a
// function in an open upvalue, a global or a Go function is an escape. The answer relies on
// the upvalue still holding that function (Use.Guards): the interpreter counts the writes
// to an upvalue, and the engine checks the counts before every call, dropping the refilled
// table for good once one moved. A call may replace the function and put it back before
// the next, so a function it called instead may have seen the table: the check stops the
// refilling from the next call on, and every field of a table that was followed into is
// converted for every call (ReadsAny), so that the replacement saw the call's whole kwargs.
//
// Anything the analysis does not recognise (an unknown opcode, a jump outside the code or
// into a pseudo-instruction, a register out of range, a function too large) gives "not
// read-only", with a reason.
package kwflow
