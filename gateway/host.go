package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/hermes-hooks/hermes/engine"
)

// Host owns an engine and the gateway built on it: what a gateway process embeds. It
// reloads both, watches their home, and closes both in the right order.
type Host struct {
	Engine  *engine.Engine
	Gateway *Gateway
}

// HostOptions configure a Host. A nil Logger or Metrics of the gateway is the engine's,
// so one logger and one Metrics serve both.
type HostOptions struct {
	Engine  engine.Options
	Gateway Options
}

// NewHost loads the engine, then the gateway on it. It fails when either fails; nothing is
// left running then.
func NewHost(ctx context.Context, opts HostOptions) (*Host, error) {
	if opts.Gateway.Logger == nil {
		opts.Gateway.Logger = opts.Engine.Logger
	}
	if opts.Gateway.Metrics == nil {
		opts.Gateway.Metrics = opts.Engine.Metrics
	}
	eng, err := engine.New(ctx, opts.Engine)
	if err != nil {
		return nil, err
	}
	gw, err := New(ctx, eng, opts.Gateway)
	if err != nil {
		eng.Close(ctx)
		return nil, err
	}
	return &Host{Engine: eng, Gateway: gw}, nil
}

// Reload reloads the engine, then the gateway. Each keeps its running hooks when its own
// reload fails; the error joins both failures.
func (h *Host) Reload(ctx context.Context) error {
	return errors.Join(h.Engine.Reload(ctx), h.Gateway.Reload(ctx))
}

// Watch reloads both whenever the home's hooks, config or allowlist change (see
// engine.WatchHome), and calls onReload, if not nil, with the changed paths and the
// reload's error. It returns when ctx is done.
func (h *Host) Watch(ctx context.Context, debounce time.Duration, onReload func(changed []string, err error)) error {
	return engine.WatchHome(ctx, h.Engine.Home(), debounce, func(changed []string) {
		err := h.Reload(ctx)
		if onReload != nil {
			onReload(changed, err)
		}
	})
}

// Close closes the gateway first, so that its queued events are handled while the engine
// (whose hooks and host functions they may use) still runs, then the engine. Both share
// ctx's deadline: when it passes, what still runs is interrupted and ctx's error returned.
// After Close the engine blocks every tool call and the gateway drops (and counts) events.
func (h *Host) Close(ctx context.Context) error {
	return errors.Join(h.Gateway.Close(ctx), h.Engine.Close(ctx))
}
