package limits

import (
	"fmt"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Prefix starts the message of every limit the library and the modules enforce; the core
// reports an error that starts with it as a KindLimit error.
const Prefix = "limit exceeded: "

// ChargeString charges L for a string of n bytes about to be built for Lua.
func ChargeString(L *lua.LState, n int) {
	L.ChargeMemory(int64(n) + 16)
}

// ChargeStrings charges L for the strings of v, a value a host function or the store
// returned, before it is converted: they become strings Lua holds (the tables are charged
// as they are made).
func ChargeStrings(L *lua.LState, v any) {
	switch x := v.(type) {
	case string:
		ChargeString(L, len(x))
		return
	case map[string]any, []any, []string:
	default:
		return
	}
	n, stack := 0, []any{v}
	for len(stack) > 0 {
		v, stack = stack[len(stack)-1], stack[:len(stack)-1]
		switch x := v.(type) {
		case string:
			n += len(x) + 16
		case map[string]any:
			for k, e := range x {
				n += len(k) + 16
				stack = append(stack, e)
			}
		case []any:
			stack = append(stack, x...)
		case []string:
			for _, s := range x {
				n += len(s) + 16
			}
		}
	}
	L.ChargeMemory(int64(n))
}

// What compiling source takes while the compiler runs, per token and per function: its
// syntax tree, and for each function a prototype and the compiler's buffers (about 17 KiB,
// most of it code buffers made with room for 1,024 instructions).
const (
	compileTokenCost    = 160
	compileFunctionCost = 18 << 10
)

// CompileCost estimates the bytes compiling source with that many tokens and functions
// (as the parser counts them) takes at its peak, beyond twice the source's size.
func CompileCost(tokens, functions int) int64 {
	return int64(tokens)*compileTokenCost + int64(functions)*compileFunctionCost
}

// ByteSize formats n for messages: "256 MiB", "1 MiB", "512 bytes".
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
