//go:build !unix

// Package procgroup starts child processes in their own process group and kills the whole
// group, so that a timeout also stops every child the process started.
package procgroup

import (
	"errors"
	"os"
	"os/exec"
)

// Set does nothing where process groups are not available.
func Set(*exec.Cmd) {}

// Kill kills only p where process groups are not available: children it started may survive.
func Kill(p *os.Process) error {
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
