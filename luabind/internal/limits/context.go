package limits

import (
	"context"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// HostContexter is a context the interpreter polls that hands host functions another one
// to wait on: the core's poll context, whose Done is nil until the call is cancelled.
type HostContexter interface {
	HostContext() context.Context
}

// Context is the context a host function called from Lua should honour: the call's, with
// its timeout, the host's cancellation and Close.
func Context(L *lua.LState) context.Context {
	switch ctx := L.Context().(type) {
	case nil:
		return context.Background()
	case HostContexter:
		return ctx.HostContext()
	default:
		return ctx
	}
}
