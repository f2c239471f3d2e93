// Package testutil holds helpers shared by the tests of several packages: a home directory
// built from a map of files, and a goroutine-safe buffer for log output.
package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Home creates a temporary directory holding files (relative path -> content).
func Home(tb testing.TB, files map[string]string) string {
	tb.Helper()
	home := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return home
}

// Merge returns one map holding the files of all ms (later ones win).
func Merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// Buffer is a bytes.Buffer safe for concurrent writes, for log output in tests.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
