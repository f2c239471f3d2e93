package engine

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// writeHome creates a home directory holding files (path -> content).
func writeHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, content := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

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

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newEngine(t *testing.T, home string) (*Engine, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
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

func newTestLogger(w *syncBuffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
