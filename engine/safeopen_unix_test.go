//go:build unix

package engine_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestLoadRefusesFIFOsAndLinks: a named pipe or a symbolic link in place of any file the
// engine reads when it loads a home (config.yaml, a plugin's plugin.yaml and handler.lua,
// the shell-hook allowlist, a Claude Code bundle's hooks.json) is refused, named in the
// error or a warning (an allowlist refused approves nothing), without blocking the load (an open of a FIFO waits for a writer for
// good) and without following the link.
func TestLoadRefusesFIFOsAndLinks(t *testing.T) {
	const handler = "function register(ctx) ctx.register_hook('pre_tool_call', function() end) end\n"
	files := map[string]string{
		"config.yaml":             "hooks:\n  pre_tool_call:\n    - command: /bin/true\nplugins:\n  claude: [bundle]\n",
		"plugins/p/plugin.yaml":   "name: p\n",
		"plugins/p/handler.lua":   handler,
		consent.FileName:          `{"approvals": []}`,
		"bundle/hooks/hooks.json": `{"hooks": {}}`,
	}
	for _, name := range []string{"config.yaml", "plugins/p/plugin.yaml", "plugins/p/handler.lua", consent.FileName, "bundle/hooks/hooks.json"} {
		for _, kind := range []string{"fifo", "symlink"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				home := writeFuzzHome(t, files)
				path := filepath.Join(home, name)
				target := filepath.Join(home, "target")
				if err := os.Rename(path, target); err != nil {
					t.Fatal(err)
				}
				before, _ := os.ReadFile(target)
				want := testutil.NotRegular(t, path, kind, target)
				logs := &testutil.Buffer{}
				e, err := newWithin(t, 20*time.Second, engine.Options{Home: home, Getenv: noEnv, Logger: slog.New(slog.NewTextHandler(logs, nil))})
				if e != nil {
					defer e.Close(context.Background())
				}
				problems := []string{logs.String()}
				if err != nil {
					problems = append(problems, err.Error())
				} else {
					for _, w := range e.Warnings() {
						problems = append(problems, w.String())
					}
					for _, p := range e.Plugins() {
						problems = append(problems, p.Error)
					}
				}
				all := strings.Join(problems, "\n")
				if name == consent.FileName && err == nil {
					// The shell hook stays unapproved, and its consent status (hooks list,
					// doctor) says why.
					h := e.ShellHooks()[0]
					if h.Registered || !strings.Contains(h.Consent.Reason, path+": "+want) {
						t.Errorf("with the allowlist refused: shell hook registered %v, consent %q; want it unregistered, saying %s: %s",
							h.Registered, h.Consent.Reason, path, want)
					}
				} else if !strings.Contains(all, path+": "+want) {
					t.Errorf("loading the home said:\n%s\nwant %s: %s", all, path, want)
				}
				if after, err := os.ReadFile(target); err != nil || string(after) != string(before) {
					t.Errorf("the link's target holds %q (%v), want %q", after, err, before)
				}
			})
		}
	}
}
