//go:build unix

package testutil

import (
	"os"
	"syscall"
	"testing"
)

// NotRegular puts at path a file of kind, "fifo" (a named pipe) or "symlink" (a link to
// target), and returns what a refusal to open it says of it. It skips the test where a FIFO
// cannot be made.
func NotRegular(t testing.TB, path, kind, target string) (want string) {
	t.Helper()
	if kind == "fifo" {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return "not a regular file but a named pipe (FIFO)"
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	return "not a regular file but a symbolic link"
}
