package engine

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// Close ends the async hooks still running in the background: when it returns, their
// processes were killed, as a call's own shell hooks are.
func TestCloseEndsAsyncHooks(t *testing.T) {
	home := t.TempDir()
	fifo := filepath.Join(home, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFiles(t, home, map[string]string{
		"slow.sh":     "#!/bin/sh\ncat >/dev/null\necho $$ > " + fifo + "\nexec sleep 60\n",
		"config.yaml": "hooks:\n  pre_tool_call: [{command: ./slow.sh, dialect: claude, async: true, timeout: 60, project_dir: " + home + "}]\n",
	})
	os.Chmod(filepath.Join(home, "slow.sh"), 0o755)
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	e := engineWith(t, home, Options{AcceptHooks: true})
	ctx := context.Background()
	if d := e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}); d.Block != nil {
		t.Fatalf("blocked: %+v", d.Block)
	}
	b, err := os.ReadFile(fifo) // the hook runs
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	closeCtx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	e.Close(closeCtx)
	// Close killed it: it ends well before its 60s sleep, once the kernel delivered the
	// signal (the process is the shell's child, which a busy machine may take a moment to end).
	testutil.WaitGone(t, pid, "Close")
}
