package procgroup

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"sync/atomic"
)

// MarkPrefix begins the name of the environment variable that marks the processes of one
// Run: MarkPrefix + a random id, set to "1". A process inherits it from its parent, through
// fork, setsid and daemonising alike, so it finds what a command started after it left
// the process group. A run started from inside another keeps the outer mark as well.
const MarkPrefix = "HERMES_HOOK_RUN_"

// A Run is every process of one command: its process group and, on Linux, every process
// whose environment carries the run's mark (a daemon that called setsid, a double fork
// into another group). A process that replaced its environment when it ran a program
// (env -i, a program started with a fresh environment) or that runs as another user cannot
// be recognised and escapes; elsewhere than Linux only the process group is killed.
type Run struct {
	cmd    *exec.Cmd
	mark   string // "HERMES_HOOK_RUN_<id>=1"
	killed atomic.Bool
}

// Track prepares cmd (made by exec.CommandContext), before it starts, to be a Run: the
// leader of a new process group, with the run's mark in its environment (cmd.Env, or the
// host's when nil), and the end of its context killing the whole run rather than the
// leader alone.
func Track(cmd *exec.Cmd) *Run {
	r := Mark(cmd)
	cmd.Cancel = func() error {
		r.killed.Store(true)
		return r.Kill()
	}
	return r
}

// Mark is Track for a command without a context (exec.Command): the caller ends the run
// with Kill.
func Mark(cmd *exec.Cmd) *Run {
	var id [12]byte
	_, _ = rand.Read(id[:])
	r := &Run{cmd: cmd, mark: MarkPrefix + hex.EncodeToString(id[:]) + "=1"}
	Set(cmd)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], r.mark)
	return r
}

// Killed reports whether the end of the command's context killed the run.
func (r *Run) Killed() bool { return r.killed.Load() }

// Kill sends SIGKILL to the process group and to every process that carries the run's
// mark, until none is left (a process forking as it is killed is found again). It can be
// called again, and after the command has exited: it kills what the command left running.
func (r *Run) Kill() error {
	var err error
	since := 0
	if r.cmd.Process != nil {
		err = Kill(r.cmd.Process)
		since = r.cmd.Process.Pid
	}
	killMarked(r.mark, since)
	return err
}
