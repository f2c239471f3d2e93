package hookspec

import "context"

// Func is a Go function a host hands to Lua hooks (engine.Options.HostFuncs, the host
// objects of pre_gateway_dispatch). Arguments arrive converted to Go; the result is
// converted to Lua; a non-nil error is raised as a Lua error in the caller. ctx is the
// context of the Lua call in progress: a Func that blocks must honour it.
type Func func(ctx context.Context, args []any) (any, error)

// Object hands a Go value to Lua as userdata. Only wrap values built as facades for Lua:
// every exported field and method becomes reachable.
type Object struct{ V any }
