package limits

import (
	"fmt"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// What no library function may do to the host (SPEC §6.6): build a value larger than
// MaxStringSize, or run for long without looking at the call's context. The interpreter
// (internal/lua/vm.go, mainLoop) polls the context every 1024 instructions and before every
// call of a Go function; a Go function called from Lua runs as one instruction, so every
// library function that may allocate in proportion to its input, or loop, checks the size
// of what it will build before building it (CheckSize) and polls the context while it works
// (poller).

// MaxStringSize is the largest string a call may build: with string.rep, `..`,
// table.concat, string.format, gsub, json.encode, file reads, and the like.
const MaxStringSize = 64 << 20

// CheckSize raises a limit error, naming what, when a result of n bytes would be larger
// than MaxStringSize, and charges the state's memory account with it (internal/lua/memory.go), which
// raises the memory error when the state would hold too much. Call it before allocating.
func CheckSize(L *lua.LState, what string, n int64) {
	if n > MaxStringSize || n < 0 {
		L.RaiseError("%s%s result larger than %s", Prefix, what, ByteSize(MaxStringSize))
	}
	ChargeString(L, int(n))
}

// SizeError is CheckSize's message, for code that returns an error rather than raising.
func SizeError(what string) error {
	return fmt.Errorf("%s%s result larger than %s", Prefix, what, ByteSize(MaxStringSize))
}

// pollEvery is how many steps a poller lets pass between two looks at the context: a look
// takes a lock (about 20ns); a step of a pattern match takes a few ns.
const pollEvery = 1 << 12

// A Poller lets a long-running library function stop when its call is cancelled or times
// out. Call Tick once per unit of work (a pattern-matching step, a replacement, an element
// encoded); every pollEvery ticks it checks the call's context and raises its error.
type Poller struct {
	L *lua.LState
	n int
}

// Tick counts one unit of work.
func (p *Poller) Tick() {
	p.n++
	if p.n&(pollEvery-1) == 0 {
		p.Check()
	}
}

// Check looks at the context now.
func (p *Poller) Check() {
	if err := Context(p.L).Err(); err != nil {
		p.L.RaiseError("%s", err.Error())
	}
}
