//go:build unix

// Package procgroup starts child processes in their own process group and kills the whole
// group, so that a timeout also stops every child the process started.
package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Set makes cmd the leader of a new process group when it starts.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill sends SIGKILL to the whole process group led by p (a group already gone is fine).
func Kill(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		err = nil
	}
	if kerr := p.Kill(); err == nil && kerr != nil && !errors.Is(kerr, os.ErrProcessDone) {
		err = kerr
	}
	return err
}
