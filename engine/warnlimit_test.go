package engine

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A hook failing on every call (a dependency down under load) logs one warning, not one a
// call; the metrics count every failure.
func TestFailureWarningsDoNotFlood(t *testing.T) {
	home := testutil.Home(t, pluginFiles("broken", "", one("pre_tool_call", `error("backend down")`)))
	logs := &testutil.Buffer{}
	m := NewMetrics()
	e, err := New(context.Background(), Options{Home: home, Metrics: m, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	for range 100 {
		e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal"})
	}
	if n := strings.Count(logs.String(), `msg="plugin hook failed"`); n != 1 {
		t.Errorf("%d warnings for 100 failures in well under a second, want 1:\n%s", n, logs)
	}
	if n := m.errors.With(hookspec.SourcePlugin, "broken", hooknames.PreToolCall).Value(); n != 100 {
		t.Errorf("errors counted %v, want 100", n)
	}
}

// The limiter lets one warning a second through and says how many it held back.
func TestWarnLimiter(t *testing.T) {
	var l warnLimiter
	if ok, held := l.allow(); !ok || held != 0 {
		t.Fatalf("first: %v, %d", ok, held)
	}
	for range 99 {
		if ok, _ := l.allow(); ok {
			t.Fatal("a second warning within the second")
		}
	}
	l.next.Store(0) // the second has passed
	if ok, held := l.allow(); !ok || held != 99 {
		t.Errorf("after the second: %v, %d held back, want 99", ok, held)
	}
}
