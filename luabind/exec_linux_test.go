package luabind

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A program run by exec that starts a daemon with setsid, out of its process group, leaves
// nothing running once the call returns.
func TestExecSetsidDaemonDies(t *testing.T) {
	needUnix(t, "sh", "setsid", "sleep")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "daemon.pid")
	tool := writeScript(t, dir, "tool", "setsid sh -c 'echo $$ > \"$0\"; exec sleep 300' '"+pidFile+"' </dev/null >/dev/null 2>&1 &\n"+
		"while [ ! -s '"+pidFile+"' ]; do :; done\necho done")
	p := loadPlugin(t, execPlugin, Options{Permissions: Permissions{Exec: []string{tool}}})
	if got, err := runArgv(p, tool); err != nil || got != "done\n" {
		t.Fatalf("exec: %v, %v", got, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The kill was sent before the call returned; the process may take a moment to die.
	for deadline := time.Now().Add(5 * time.Second); ; {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the daemon %d outlived the exec call", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// zombie reports whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
