package gateway

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/homedir"
)

// Watch reloads the engine and the gateway hooks whenever the home's hooks, config or
// allowlist change, or the managed home's (when it exists as Watch starts; see
// engine.WatchHome), and calls onReload, if not nil, with the changed paths and the
// reload's error (from one goroutine per home). It returns when ctx is done.
func (g *Gateway) Watch(ctx context.Context, debounce time.Duration, onReload func(changed []string, err error)) error {
	onChange := func(changed []string) {
		err := g.Reload(ctx)
		if onReload != nil {
			onReload(changed, err)
		}
	}
	managed := homedir.ResolveManaged(g.opts.Engine.ManagedHome)
	if _, err := os.Stat(managed); err != nil || filepath.Clean(managed) == filepath.Clean(g.eng.Home()) {
		return engine.WatchHome(ctx, g.eng.Home(), debounce, onChange)
	}
	errs := make(chan error, 1)
	go func() { errs <- engine.WatchHome(ctx, managed, debounce, onChange) }()
	err := engine.WatchHome(ctx, g.eng.Home(), debounce, onChange)
	if merr := <-errs; err == nil {
		err = merr
	}
	return err
}
