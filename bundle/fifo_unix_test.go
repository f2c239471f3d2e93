//go:build unix

package bundle

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A named pipe in a home is no file to ship: the build names it.
func TestBuildRefusesAFIFO(t *testing.T) {
	home := makeHome(t)
	if err := syscall.Mkfifo(filepath.Join(home, "hooks/notify/pipe"), 0o644); err != nil {
		t.Skip(err)
	}
	wantFileError(t, home, Options{Revision: 1}, "hooks/notify/pipe", "named pipe")
}
