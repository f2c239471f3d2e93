package testutil

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ReadPid reads the pid a process wrote into file.
func ReadPid(t testing.TB, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the process did not write its pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// ProcessGone reports whether pid has exited (or is a zombie waiting to be reaped).
func ProcessGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// WaitGone waits up to 10s for a process that was sent SIGKILL to exit (it is reaped by
// whoever is its parent now, which takes a moment, longer on a busy machine), and fails the
// test, killing it, if it did not: what was meant to kill it missed it. It waits on the
// process's pidfd, which the kernel makes readable when the process ends: an event, not a
// poll.
func WaitGone(t testing.TB, pid int, what string) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // gone and reaped already
	}
	if err != nil {
		t.Fatalf("cannot watch process %d: %v", pid, err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(10 * time.Second)
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(max(0, time.Until(deadline).Milliseconds())))
		switch {
		case n > 0:
			return
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			t.Fatalf("watching process %d: %v", pid, err)
		}
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d outlived %s", pid, what)
	}
}
