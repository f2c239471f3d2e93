package luabind

import (
	"github.com/hermes-hooks/hermes/hookspec"
	"path/filepath"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A program run by exec that starts a daemon with setsid, out of its process group, leaves
// nothing running once the call returns.
func TestExecSetsidDaemonDies(t *testing.T) {
	needUnix(t, "sh", "setsid", "sleep")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "daemon.pid")
	tool := writeScript(t, dir, "tool", "setsid sh -c 'echo $$ > \"$0\"; exec sleep 300' '"+pidFile+"' </dev/null >/dev/null 2>&1 &\n"+
		"while [ ! -s '"+pidFile+"' ]; do :; done\necho done")
	p := loadPlugin(t, execPlugin, Options{Permissions: hookspec.Permissions{Exec: []string{tool}}})
	if got, err := runArgv(p, tool); err != nil || got != "done\n" {
		t.Fatalf("exec: %v, %v", got, err)
	}
	testutil.WaitGone(t, testutil.ReadPid(t, pidFile), "the exec call")
}

// exec's own timeout kills the program's whole process group: a grandchild it started in
// the background does not outlive the call.
func TestExecTimeoutKillsGrandchild(t *testing.T) {
	needUnix(t, "sleep", "sh")
	opts := Options{Permissions: hookspec.Permissions{Exec: []string{"sleep", "sh"}}}
	pidFile := filepath.Join(t.TempDir(), "pid")
	_, err := eval(t, `require("exec").run({"sh", "-c", "sleep 10 & echo $! > " .. kw.pid .. "; wait"}, {timeout = 0.2})`, map[string]any{"pid": pidFile}, opts)
	wantErr(t, "grandchild", err, KindRuntime, "timed out")
	testutil.WaitGone(t, testutil.ReadPid(t, pidFile), "its process group's kill")
}
