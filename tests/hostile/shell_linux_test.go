package hostile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/shell"
)

// TestShellHookSetsidDaemonDiesAtTimeout: a shell hook that starts a daemon with setsid,
// out of its process group, and then hangs is stopped at its timeout, daemon included; a
// hook that starts one and exits leaves nothing running either.
func TestShellHookSetsidDaemonDiesAtTimeout(t *testing.T) {
	for _, c := range []struct {
		name, rest string
		status     hookspec.Status
	}{
		{"hangs", "exec sleep 300\n", hookspec.StatusTimeout},
		{"exits", "echo '{}'\n", hookspec.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "daemon.pid")
			script := filepath.Join(dir, "hook.sh")
			body := "#!/bin/sh\nsetsid sh -c 'echo $$ > \"$0\"; exec sleep 300' '" + pidFile + "' </dev/null >/dev/null 2>&1 &\n" +
				"while [ ! -s '" + pidFile + "' ]; do :; done\n" + c.rest
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			h := &shell.Hook{Event: "post_tool_call", Command: script, Argv: []string{script}, Timeout: time.Second}
			start := time.Now()
			res := h.Run(context.Background(), map[string]any{"tool_name": "terminal"}, shell.RunOptions{})
			elapsed := time.Since(start)
			t.Logf("the hook took %.0f ms", float64(elapsed)/float64(time.Millisecond))
			if res.Status != c.status {
				t.Errorf("status %s (%s), want %s", res.Status, res.Err, c.status)
			}
			if c.status == hookspec.StatusTimeout && elapsed > libraryCallLimit {
				t.Errorf("the hook took %v, want about its 1s timeout", elapsed)
			}
			testutil.WaitGone(t, testutil.ReadPid(t, pidFile), "its hook")
		})
	}
}

// TestPersistentHookSetsidDaemonDiesWithIt: a daemon a persistent hook started with setsid
// is killed when the hook's process is, at Close.
func TestPersistentHookSetsidDaemonDiesWithIt(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "daemon.pid")
	script := filepath.Join(dir, "hook.sh")
	body := "#!/bin/sh\nsetsid sh -c 'echo $$ > \"$0\"; exec sleep 300' '" + pidFile + "' </dev/null >/dev/null 2>&1 &\n" +
		"while [ ! -s '" + pidFile + "' ]; do :; done\n" +
		"while IFS= read -r line; do id=${line#*'\"request_id\":\"'}; id=${id%%'\"'*}; printf '{\"request_id\":\"%s\"}\\n' \"$id\"; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	h := &shell.Hook{Event: "post_tool_call", Command: script, Argv: []string{script}, Timeout: 5 * time.Second, Persistent: true}
	if res := h.Run(context.Background(), map[string]any{"tool_name": "terminal"}, shell.RunOptions{}); res.Status != hookspec.StatusOK {
		t.Fatalf("status %s (%s)", res.Status, res.Err)
	}
	pid := testutil.ReadPid(t, pidFile)
	h.Close()
	testutil.WaitGone(t, pid, "its persistent hook")
}
