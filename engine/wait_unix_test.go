//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A persistent shell hook's firing that waits for its co-process reports the wait apart
// from the run, as a Lua call waiting for a state does: HookResult.Wait and
// hermes_hook_wait_seconds, never Duration.
func TestPersistentWaitIsReportedApartFromTheRun(t *testing.T) {
	home := t.TempDir()
	fifo := filepath.Join(home, "holding")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(home, "guard.sh")
	testutil.WriteFiles(t, home, map[string]string{
		"config.yaml": "hooks:\n  pre_tool_call:\n    - {command: " + script + ", persistent: true, timeout: 60}\n",
		"guard.sh": `#!/bin/sh
while IFS= read -r line; do
  case "$line" in *'"hold"'*) echo holding > ` + fifo + `; sleep 60;; esac
  id=${line#*'"request_id":"'}
  id=${id%%'"'*}
  printf '{"request_id":"%s"}\n' "$id"
done
`,
	})
	os.Chmod(script, 0o755)
	metrics := NewMetrics()
	e := engineWith(t, home, Options{IgnoreConsent: true, Metrics: metrics})

	if r := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "x"}).Hooks[0]; r.Status != hookspec.StatusOK || r.Duration <= 0 {
		t.Fatalf("free process: status %s (%s), duration %v; want ok and a duration", r.Status, r.Err, r.Duration)
	}
	holdCtx, release := context.WithCancel(context.Background())
	held := make(chan Report, 1)
	go func() { held <- e.Fire(holdCtx, hookspec.PreToolCall, map[string]any{"tool_name": "hold"}) }()
	if _, err := os.ReadFile(fifo); err != nil { // the process holds the firing
		t.Fatal(err)
	}
	const patience = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	waiting := e.Fire(ctx, hookspec.PreToolCall, map[string]any{"tool_name": "x"}).Hooks[0]
	release()
	<-held

	// Its context's time ran from before the firing began to wait, so the wait is a little
	// shorter than the patience.
	if waiting.Status != hookspec.StatusCancelled || waiting.Wait < patience/2 || waiting.Duration >= waiting.Wait {
		t.Errorf("firing that waited for the process: status %s, wait %v, duration %v; want cancelled, a wait of about %v, and a run shorter than the wait",
			waiting.Status, waiting.Wait, waiting.Duration, patience)
	}
	h := metrics.wait.With(hookspec.SourceShell, script, hooknames.PreToolCall).Value()
	if h.Count != 3 || h.Sum < waiting.Wait.Seconds()-1e-9 {
		t.Errorf("hermes_hook_wait_seconds: %d samples, sum %v; want 3 (every firing), at least the wait", h.Count, h.Sum)
	}
}
