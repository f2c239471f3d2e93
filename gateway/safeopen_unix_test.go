//go:build unix

package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestLoadRefusesFIFOsAndLinksInHooks: a named pipe or a symbolic link in place of a gateway
// hook's HOOK.yaml or handler.lua fails that hook with an error naming the file, without
// blocking New (an open of a FIFO waits for a writer for good) or following the link.
func TestLoadRefusesFIFOsAndLinksInHooks(t *testing.T) {
	files := map[string]string{
		"hooks/h/HOOK.yaml":   "name: h\nevents: [\"agent:start\"]\n",
		"hooks/h/handler.lua": "function handle(event, ctx) end\n",
	}
	for _, name := range []string{"hooks/h/HOOK.yaml", "hooks/h/handler.lua"} {
		for _, kind := range []string{"fifo", "symlink"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				home := testutil.Home(t, files)
				path := filepath.Join(home, name)
				target := filepath.Join(home, "target")
				if err := os.Rename(path, target); err != nil {
					t.Fatal(err)
				}
				want := testutil.NotRegular(t, path, kind, target)
				type result struct {
					g   *Gateway
					err error
				}
				done := make(chan result, 1)
				go func() {
					g, err := New(context.Background(), Options{Engine: engine.Options{Home: home}})
					done <- result{g, err}
				}()
				var r result
				select {
				case r = <-done:
				case <-time.After(20 * time.Second):
					t.Fatal("New did not return: it blocks opening a FIFO")
				}
				if r.err != nil {
					t.Fatal(r.err)
				}
				defer r.g.Close(context.Background())
				hooks := r.g.Hooks()
				if len(hooks) != 1 || hooks[0].Status != "error" || !strings.Contains(hooks[0].Error, path+": "+want) {
					t.Errorf("hooks %+v, want h failed with %s: %s", hooks, path, want)
				}
			})
		}
	}
}
