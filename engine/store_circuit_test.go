//go:build unix

package engine

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hermes-hooks/hermes/hookspec"
	htest "github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/store"
)

// A Redis that stopped answering (SIGSTOP) holds a hook's store call for the operation
// timeout, not the hook's 5s; after store.DefaultFailAfter such calls, store calls fail at
// once, with one warning that says so, counted in hermes_store_rejected_total.
func TestRedisPausedTurnsDoNotStall(t *testing.T) {
	r := htest.StartRedis(t)
	home := htest.Home(t, htest.Merge(pluginFiles("counter", "timeout: 5\n", counter), map[string]string{"config.yaml": "store: {url: \"" + r.URL + "\"}\n"}))
	logs := &htest.Buffer{}
	m := NewMetrics()
	ctx := context.Background()
	eng, err := New(ctx, Options{Home: home, Metrics: m, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "call 1" {
		t.Fatalf("context %q", c)
	}
	r.Pause()
	defer r.Resume()
	for i := range store.DefaultFailAfter + 3 {
		start := time.Now()
		c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context
		took := time.Since(start)
		t.Logf("turn %d with redis paused: %v", i+1, took)
		bound := 3 * time.Second // the operation timeout (1s) and a margin, under the hook's 5s
		if i >= store.DefaultFailAfter {
			bound = time.Second // failed at once
		}
		if c != "" || took >= bound {
			t.Errorf("turn %d: context %q after %v, want none within %v", i+1, c, took, bound)
		}
	}
	if n := testutil.ToFloat64(m.storeRejected.WithLabelValues(hookspec.SourcePlugin, "counter", "incr")); n != 3 {
		t.Errorf("rejected calls counted %v, want 3", n)
	}
	if n := testutil.ToFloat64(m.storeErrors.WithLabelValues(hookspec.SourcePlugin, "counter", "incr")); n != store.DefaultFailAfter+3 {
		t.Errorf("store errors counted %v, want %d", n, store.DefaultFailAfter+3)
	}
	want := `level=WARN msg="store: redis://` + r.Addr + `/0 is failing (5 errors in a row, last: no answer within 1s); calls fail at once for 2s, then one call tries again"`
	if l := logs.String(); strings.Count(l, want) != 1 || strings.Count(l, `level=WARN msg="store: `) != 1 {
		t.Errorf("logs, want one warning %q:\n%s", want, l)
	}
}
