package procgroup

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// killMarked kills every process whose environment holds mark, read from
// /proc/<pid>/environ, in rounds until a round finds none (at most killRounds). Each process
// is pinned with a pidfd before its environment is read again and it is signalled, so a pid
// reused in between is never hit. A process whose environment cannot be read (another
// user's) is skipped.
//
// A process that carries the mark descends from the run's leader, so it was given a pid
// after the leader's (since, 0 when unknown): unless the kernel's pids wrapped around since
// then (its last pid is below since), only the environments of newer pids are read. That
// keeps the look after a run that left nothing to a listing of /proc and a few reads.
func killMarked(mark string, since int) {
	needle := []byte("\x00" + mark + "\x00")
	self := os.Getpid()
	if last := lastPid(); last < since {
		since = 0 // wrapped around (or unknown): any pid may be the run's
	}
	for range killRounds {
		if !killMarkedOnce(needle, self, since) {
			return
		}
	}
}

// lastPid is the pid the kernel gave last in this pid namespace, or -1 when unknown.
func lastPid() int {
	b, err := os.ReadFile("/proc/sys/kernel/ns_last_pid")
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil {
		return -1
	}
	return n
}

// killRounds bounds the rounds of killMarked: a process killed in one round may still be
// listed in the next, before it exits.
const killRounds = 16

// killMarkedOnce kills the marked processes with a pid of at least since it finds, and
// reports whether it found any.
func killMarkedOnce(needle []byte, self, since int) bool {
	dir, err := os.Open("/proc")
	if err != nil {
		return false
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	found := false
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid < since || pid == self || !marked(pid, needle) {
			continue
		}
		found = true
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			if errors.Is(err, unix.ENOSYS) { // a kernel before 5.3: no pinning
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			continue
		}
		if marked(pid, needle) { // still the same process: the pidfd holds it
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		unix.Close(fd)
	}
	return found
}

// marked reports whether the environment of process pid holds needle ("\x00NAME=VALUE\x00").
// A zombie's environment reads empty: it is no longer there to kill. So does, for a moment,
// that of a process in the middle of exec: an empty environment of a process that is not a
// zombie is read again, a few times.
func marked(pid int, needle []byte) bool {
	path := "/proc/" + strconv.Itoa(pid) + "/environ"
	env, err := os.ReadFile(path)
	for try := 0; err == nil && len(env) == 0 && try < execRetries && execing(pid); try++ {
		time.Sleep(time.Millisecond)
		env, err = os.ReadFile(path)
	}
	if err != nil || len(env) == 0 {
		return false
	}
	if bytes.HasPrefix(env, needle[1:]) {
		return true
	}
	if env[len(env)-1] != 0 {
		env = append(env, 0)
	}
	return bytes.Contains(env, needle)
}

// execRetries bounds the reads of an environment that reads empty.
const execRetries = 20

// execing reports whether pid, whose environment reads empty, may be a process in the
// middle of exec: not a zombie, not gone, not a kernel thread (which has no environment).
func execing(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	fields := strings.Fields(string(stat[i+1:])) // state, ppid, pgrp, session, tty, tpgid, flags, ...
	if len(fields) < 7 || fields[0] == "Z" || fields[0] == "X" {
		return false
	}
	flags, err := strconv.ParseUint(fields[6], 10, 64)
	const pfKthread = 0x00200000
	return err == nil && flags&pfKthread == 0
}
