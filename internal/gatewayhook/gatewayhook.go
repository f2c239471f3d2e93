// Package gatewayhook declares what passes between the engine, which loads gateway hooks
// (Engine.LoadGatewayHooks: their manifests, Lua states, store and limits are the
// engine's), and package gateway, which queues their events and runs them. It holds types
// only, so that both can import it and neither reaches into the other.
package gatewayhook

import (
	"context"
	"log/slog"

	"github.com/hermes-hooks/hermes/hookspec"
)

// Hook is a loaded gateway hook: a handler.lua defining handle(event, context). Call is
// safe for concurrent use.
type Hook interface {
	Info() *hookspec.GatewayHookInfo // as it was loaded
	// Call runs handle(event, data) under the hook's timeout; a failure comes with its
	// status (timeout, cancelled, busy or error).
	Call(ctx context.Context, event string, data map[string]any) (any, hookspec.Status, error)
	Close() // releases the Lua state once the call in flight, if any, returns
}

// Options are what gateway hooks get beyond their manifest.
type Options struct {
	Logger    *slog.Logger             // nil discards; each hook logs with hook=<name>
	HostFuncs map[string]hookspec.Func // added to the hooks' hermes module
}
