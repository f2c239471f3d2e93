package engine

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// pluginFiles returns the two files of a plugin named name with the given manifest extra and
// handler source.
func pluginFiles(name, manifest, handler string) map[string]string {
	return map[string]string{
		"plugins/" + name + "/plugin.yaml": "name: " + name + "\n" + manifest,
		"plugins/" + name + "/handler.lua": handler,
	}
}

// one registers a single callback for hook whose body is body.
func one(hook, body string) string {
	return "function register(ctx)\n  ctx.register_hook(\"" + hook + "\", function(kw)\n" + body + "\n  end)\nend\n"
}

func newEngine(t *testing.T, home string) (*Engine, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	e, err := New(context.Background(), Options{Home: home, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e, logs
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newTestLogger(w *testutil.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
