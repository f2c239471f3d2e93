//go:build !unix

package luabind

import (
	"errors"
	"os"
	"os/exec"
)

// setProcessGroup does nothing where process groups are not available.
func setProcessGroup(*exec.Cmd) {}

// killProcessGroup kills only the program where process groups are not available: children
// it started may survive a timeout.
func killProcessGroup(p *os.Process) error {
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
