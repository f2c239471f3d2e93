//go:build linux

package shell_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/shell"
)

// Hostile shell hooks: each Run must end within the hook's timeout plus a short grace, leave
// no process of the hook's process group behind, and keep memory bounded.
//
// What can and cannot be killed: Run kills the hook's process group, so children and
// grandchildren that stay in it (background jobs, subshells, processes ignoring SIGTERM or
// holding the output pipes) die with the hook. A descendant that leaves the group (setsid,
// setpgid) is out of reach: Run stops waiting for it after the grace period and closes the
// pipes, but it keeps running. Only a container, a cgroup or a subreaper could track it.

// runGrace is how long after its timeout a Run may take to return: a loose bound, to tell a
// Run that returns after its timeout and the pipes' grace, however busy the machine, from one
// that waits for the hook's 300s sleepers.
const runGrace = 20 * time.Second

// hostileScript writes an executable /bin/sh script and returns a hook running it, and the
// file where the script records the pids of its processes.
func hostileScript(t *testing.T, event, body string, timeout time.Duration) (*shell.Hook, string) {
	t.Helper()
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	path := filepath.Join(dir, "hook.sh")
	body = strings.ReplaceAll(body, "$PIDS", "'"+pids+"'")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho $$ >> '"+pids+"'\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := "'" + path + "'"
	argv, err := shell.SplitCommand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killAll(readPids(pids)) }) // never leave a sleeper behind, even on failure
	return &shell.Hook{Event: event, Command: cmd, Argv: argv, Timeout: timeout}, pids
}

func readPids(file string) []int {
	b, _ := os.ReadFile(file)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			out = append(out, pid)
		}
	}
	return out
}

func killAll(pids []int) {
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// alive reports whether pid is a live process (not gone, not a zombie awaiting its reaper).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return !(i >= 0 && i+2 < len(s) && s[i+2] == 'Z')
}

// survivors waits up to wait for the processes in pids to end and returns those still alive.
func survivors(pids []int, wait time.Duration) []int {
	deadline := time.Now().Add(wait)
	for {
		var left []int
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitPids waits until the script recorded n pids.
func waitPids(t *testing.T, file string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := readPids(file)
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the script recorded %d pids, want %d", len(pids), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var hostileKwargs = map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}, "session_id": "s"}

func TestHostileHooks(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		timeout time.Duration
		pids    int             // processes the script records (itself included)
		status  hookspec.Status // the Run's status
	}{
		{"grandchild sleeping with the pipes open", "sleep 300 &\necho $! >> $PIDS\necho '{}'\n", 5 * time.Second, 2, hookspec.StatusOK},
		{"grandchild sleeping detached from the pipes", "sleep 300 </dev/null >/dev/null 2>&1 &\necho $! >> $PIDS\necho '{}'\n", 5 * time.Second, 2, hookspec.StatusOK},
		{"subshell of sleepers outliving the timeout", "(sleep 300 & echo $! >> $PIDS; sleep 300) &\necho $! >> $PIDS\nsleep 300\n", 2 * time.Second, 3, hookspec.StatusTimeout},
		{"closes stdout and stderr and keeps running", "exec >&- 2>&-\nsleep 300\n", 2 * time.Second, 1, hookspec.StatusTimeout},
		{"ignores SIGTERM", "trap '' TERM\nsh -c 'trap \"\" TERM; sleep 300' &\necho $! >> $PIDS\nwhile :; do sleep 1; done\n", 2 * time.Second, 2, hookspec.StatusTimeout},
		{"writes forever", "yes\n", 2 * time.Second, 1, hookspec.StatusTimeout},
		{"exits without reading a large payload", "exit 0\n", 5 * time.Second, 1, hookspec.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, pidFile := hostileScript(t, "post_tool_call", tt.body, tt.timeout)
			kwargs := map[string]any{"tool_name": "terminal", "result": strings.Repeat("x", 4<<20)}
			start := time.Now()
			res := h.Run(context.Background(), kwargs, shell.RunOptions{})
			elapsed := time.Since(start)
			if elapsed > tt.timeout+runGrace {
				t.Errorf("Run took %v, want at most the timeout %v plus %v", elapsed, tt.timeout, runGrace)
			}
			if res.Status != tt.status {
				t.Errorf("status %q (%s), want %q", res.Status, res.Err, tt.status)
			}
			pids := waitPids(t, pidFile, tt.pids)
			t.Logf("returned after %v with status %s; pids %v", elapsed.Round(time.Millisecond), res.Status, pids)
			if left := survivors(pids, 10*time.Second); len(left) > 0 {
				t.Errorf("processes %v of the hook still run after Run returned (all: %v)", left, pids)
			}
		})
	}
}

// TestHostileHookEscapingTheGroup documents the limit: a descendant that calls setsid leaves
// the process group and cannot be killed by Run; Run still returns within the grace period.
func TestHostileHookEscapingTheGroup(t *testing.T) {
	h, pidFile := hostileScript(t, "pre_tool_call", "setsid sleep 300 &\necho $! >> $PIDS\nsleep 300\n", 2*time.Second)
	start := time.Now()
	res := h.Run(context.Background(), hostileKwargs, shell.RunOptions{})
	elapsed := time.Since(start)
	if elapsed > h.Timeout+runGrace {
		t.Errorf("Run took %v, want at most the timeout %v plus %v", elapsed, h.Timeout, runGrace)
	}
	if res.Status != hookspec.StatusTimeout {
		t.Errorf("status %q (%s), want timeout", res.Status, res.Err)
	}
	pids := waitPids(t, pidFile, 2)
	if alive(pids[0]) {
		t.Errorf("the hook itself (pid %d) survived its timeout", pids[0])
	}
	if alive(pids[1]) {
		t.Logf("as documented, the setsid descendant %d escaped the process group and survives (killed by the test)", pids[1])
	}
}

// TestHostileHookOutputFlood prints 1 GiB on stdout: Run captures the first MiB, drains the
// rest, treats the output as malformed and keeps the heap bounded.
func TestHostileHookOutputFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("pipes 1 GiB through the hook runner")
	}
	const gib = 1 << 30
	h, pidFile := hostileScript(t, "pre_tool_call", fmt.Sprintf("yes | head -c %d\n", gib), 60*time.Second)
	h.FailClosed = true

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := h.Run(context.Background(), hostileKwargs, shell.RunOptions{})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)

	if res.Status != hookspec.StatusOK || len(res.Stdout) != shell.DefaultMaxOutput {
		t.Errorf("status %q, %d bytes captured, want ok and %d bytes", res.Status, len(res.Stdout), shell.DefaultMaxOutput)
	}
	if !strings.Contains(res.Err, "stdout exceeded") || res.Parsed != nil {
		t.Errorf("err %q parsed %v, want the truncated output treated as malformed", res.Err, res.Parsed)
	}
	if res.Answer.Kind != hookspec.Block {
		t.Errorf("answer %+v, want a fail-closed block", res.Answer)
	}
	const limit = 16 << 20
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	total := after.TotalAlloc - before.TotalAlloc
	if heap > limit || total > 4*limit {
		t.Errorf("heap grew by %d bytes and %d bytes were allocated for 1 GiB of output, want under %d and %d", heap, total, limit, 4*limit)
	}
	if left := survivors(readPids(pidFile), 10*time.Second); len(left) > 0 {
		t.Errorf("processes %v still run", left)
	}
	t.Logf("1 GiB drained in %v; heap growth %d KiB, allocated %d KiB", elapsed.Round(time.Millisecond), heap>>10, total>>10)
}
