package gateway

import (
	"context"
	"time"

	"github.com/hermes-hooks/hermes/engine"
)

// Watch reloads the engine and the gateway hooks whenever the home's hooks, config or
// allowlist change (see engine.WatchHome), and calls onReload, if not nil, with the
// changed paths and the reload's error. It returns when ctx is done.
func (g *Gateway) Watch(ctx context.Context, debounce time.Duration, onReload func(changed []string, err error)) error {
	return engine.WatchHome(ctx, g.eng.Home(), debounce, func(changed []string) {
		err := g.Reload(ctx)
		if onReload != nil {
			onReload(changed, err)
		}
	})
}
