//go:build unix

package manifest

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRefusesFIFO: opening a named pipe blocks until a writer comes, so a FIFO in place
// of a manifest would hang loading forever; Read refuses anything but a regular file.
func TestReadRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin.yaml")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Read(path)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), path+": not a regular file") {
			t.Errorf("Read of a FIFO: error %v, want %s: not a regular file", err, path)
		}
	case <-time.After(5 * time.Second):
		// The goroutine stays blocked in open; the test binary exits anyway.
		t.Fatal("Read of a FIFO did not return: it blocks until a writer opens the pipe")
	}
}
