//go:build unix

package testutil

import "syscall"

// Pause stops the server with SIGSTOP: it keeps its port and accepts connections (the
// kernel does), but answers nothing until Resume.
func (r *Redis) Pause() { r.signal(syscall.SIGSTOP) }

// Resume lets a paused server run again (SIGCONT).
func (r *Redis) Resume() { r.signal(syscall.SIGCONT) }

func (r *Redis) signal(sig syscall.Signal) {
	r.t.Helper()
	if r.cmd == nil || r.cmd.Process == nil {
		r.t.Fatalf("redis-server on %s is not running", r.Addr)
	}
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatalf("redis-server on %s: %v", r.Addr, err)
	}
}
