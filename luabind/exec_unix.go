//go:build unix

package luabind

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup makes the program the leader of a new process group, so that a timeout
// kills it together with every child it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup sends SIGKILL to the whole process group led by p.
func killProcessGroup(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		err = nil // already gone
	}
	if kerr := p.Kill(); err == nil && kerr != nil && !errors.Is(kerr, os.ErrProcessDone) {
		err = kerr
	}
	return err
}
