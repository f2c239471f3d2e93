package testutil

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
// test, killing it, if it did not: what was meant to kill it missed it.
func WaitGone(t testing.TB, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ProcessGone(pid); {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d outlived %s", pid, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
