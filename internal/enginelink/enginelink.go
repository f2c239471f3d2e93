// Package enginelink hands package gateway and hermesctl the parts of the engine they need
// but an embedder must not touch: the loader of gateway hooks (which shares the engine's
// directory loader, store and limits), the webhooks gateway events go to, the tracer, and
// a home's store opened without loading any hook. Package engine sets every variable in its
// init, so they are set whenever a package that can name an *engine.Engine runs.
//
// Each function that takes eng takes an *engine.Engine (as any: this package cannot import
// engine) and panics on anything else.
package enginelink

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/store"
	"github.com/hermes-hooks/hermes/webhook"
)

// GatewayHookInfo describes one directory under <home>/hooks, loaded or not.
type GatewayHookInfo struct {
	Name        string               `json:"name"`
	Dir         string               `json:"dir"`
	Description string               `json:"description,omitempty"`
	Events      []string             `json:"events"`
	Timeout     float64              `json:"timeout_s"`
	Memory      int64                `json:"memory_bytes"` // each Lua state may hold (memory:; default 256 MiB)
	Enabled     bool                 `json:"enabled"`
	Status      string               `json:"status"` // "loaded", "disabled" or "error"
	Error       string               `json:"error,omitempty"`
	Permissions hookspec.Permissions `json:"permissions"`
}

// GatewayHook is a loaded gateway hook: a handler.lua defining handle(event, context).
// Call is safe for concurrent use.
type GatewayHook interface {
	Info() *GatewayHookInfo // as it was loaded
	// Call runs handle(event, data) under the hook's timeout; a failure's status is
	// StatusOf(err).
	Call(ctx context.Context, event string, data map[string]any) (any, error)
	Close() // releases the Lua state once the call in flight, if any, returns
}

// GatewayHookOptions are what gateway hooks get beyond their manifest.
type GatewayHookOptions struct {
	Logger    *slog.Logger             // nil discards; each hook logs with hook=<name>
	HostFuncs map[string]hookspec.Func // added to the hooks' hermes module
}

// Set by package engine.
var (
	// LoadGatewayHooks loads <home>/hooks/* in directory order. A hook of running whose
	// files did not change is returned as it is, and so is one whose new version fails to
	// load (with a warning). Broken hooks are listed with status "error" and one warning
	// each. A config.yaml or hooks directory that cannot be read is an error.
	LoadGatewayHooks func(eng any, ctx context.Context, opts GatewayHookOptions, running []GatewayHook) ([]GatewayHook, []*GatewayHookInfo, []hookspec.Warning, error)
	// StatusOf is the status of a Lua hook's failure.
	StatusOf func(err error) hookspec.Status
	// NotifyWebhooks queues a gateway event for the webhooks that want it; it never blocks.
	NotifyWebhooks func(eng any, event string, data map[string]any)
	// Tracer is the engine's tracer, from its Options.TracerProvider (nil: nothing is
	// traced).
	Tracer func(eng any) trace.Tracer
	// StoreBackend is the store the engine's hooks use.
	StoreBackend func(eng any) (store.Backend, error)
	// OpenStore opens the store config.yaml of home names, without loading any hook.
	// exists is false when it is the database in the home and there is none yet (nothing
	// is then created, and the backend is nil).
	OpenStore func(home string) (b store.Backend, exists bool, err error)
	// TestWebhook sends one sample delivery of event with data to the webhook named name.
	TestWebhook func(eng any, ctx context.Context, name, event string, data map[string]any) (webhook.Attempt, error)
)
