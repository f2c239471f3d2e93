//go:build unix

package manifest

import (
	"os"
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

// TestReadRefusesSymlink: a manifest that is a symbolic link is not followed, so a file
// elsewhere is never read as a hook's manifest; a link in a directory above is followed.
func TestReadRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.yaml")
	if err := os.WriteFile(target, []byte("name: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plugin.yaml")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	want := path + ": not a regular file but a symbolic link"
	if _, err := Read(path); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Read of a link: error %v, want %s", err, want)
	}
	linkedDir := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(dir, linkedDir); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(filepath.Join(linkedDir, "elsewhere.yaml")); err != nil {
		t.Errorf("Read through a linked directory: %v", err)
	}
}
