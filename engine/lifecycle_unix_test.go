//go:build unix

package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// When ctx is done first, Close interrupts the calls in flight (Lua and shell), which end as
// cancelled, and returns ctx's error.
func TestCloseInterruptsAtItsDeadline(t *testing.T) {
	funcs, started, _ := hostGate()
	home := testutil.Home(t, pluginFiles("loop", "timeout: 60\n", one("pre_tool_call",
		`require("hermes").started("loop") while true do end`)))
	fifo := filepath.Join(home, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFiles(t, home, map[string]string{
		"config.yaml": "hooks:\n  post_tool_call:\n    - command: " + filepath.Join(home, "sleep.sh") + "\n      timeout: 60\n",
		"sleep.sh":    "#!/bin/sh\necho started > " + fifo + "\nexec sleep 60\n",
	})
	os.Chmod(filepath.Join(home, "sleep.sh"), 0o755)
	metrics := NewMetrics()
	e := engineWith(t, home, Options{HostFuncs: funcs, IgnoreConsent: true, Metrics: metrics})
	lua := make(chan Report)
	go func() { lua <- e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "x"}) }()
	<-started
	sh := make(chan Report)
	go func() { sh <- e.Fire(context.Background(), hookspec.PostToolCall, map[string]any{"tool_name": "x"}) }()
	if _, err := os.ReadFile(fifo); err != nil { // returns once the script wrote to it
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want the deadline's error", err)
	}
	for name, ch := range map[string]chan Report{"lua": lua, "shell": sh} {
		rep := <-ch
		if len(rep.Hooks) == 0 || rep.Hooks[0].Status != hookspec.StatusCancelled || !strings.Contains(rep.Hooks[0].Err, "hook engine closed") {
			t.Errorf("%s call in flight: %+v, want cancelled because the hook engine closed", name, rep.Hooks)
		}
		// The guard whose hook ended so refuses, as a closed engine does.
		if name == "lua" && (len(rep.Hooks) != 2 || rep.Decision.Kind != hookspec.Block || rep.Hooks[1].Source != hookspec.SourceEngine) {
			t.Errorf("%s call in flight: %+v, want it blocked by the engine", name, rep)
		}
	}
	if n := metrics.cancels.With(hookspec.SourcePlugin, "loop", hooknames.PreToolCall).Value(); n != 1 {
		t.Errorf("cancelled_total = %v, want 1", n)
	}
}
