//go:build unix

package engine

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

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
	// How long each turn takes is only logged: what shows that no call waited for the hook's
	// 5s is how each ended, an error (the store's answer), never a timeout.
	for i := range store.DefaultFailAfter + 3 {
		start := time.Now()
		rep := eng.Fire(ctx, hookspec.PreLLMCall, hookspec.LLMTurn{}.PreKwargs())
		took := time.Since(start)
		r := rep.Hooks[0]
		t.Logf("turn %d with redis paused: %v, %s", i+1, took, r.Err)
		want := "no answer within 1s" // the operation timeout
		if i >= store.DefaultFailAfter {
			want = "calls fail at once" // the circuit is open
		}
		if r.Status != hookspec.StatusError || !strings.Contains(r.Err, want) || rep.Outcome != nil {
			t.Errorf("turn %d: status %q err %q outcome %v, want an error (%s) and no context", i+1, r.Status, r.Err, rep.Outcome, want)
		}
	}
	if n := m.storeRejected.With(hookspec.SourcePlugin, "counter", "incr").Value(); n != 3 {
		t.Errorf("rejected calls counted %v, want 3", n)
	}
	if n := m.storeErrors.With(hookspec.SourcePlugin, "counter", "incr").Value(); n != store.DefaultFailAfter+3 {
		t.Errorf("store errors counted %v, want %d", n, store.DefaultFailAfter+3)
	}
	want := `level=WARN msg="store: redis://` + r.Addr + `/0 is failing (5 errors in a row, last: no answer within 1s); calls fail at once for 2s, then one call tries again"`
	if l := logs.String(); strings.Count(l, want) != 1 || strings.Count(l, `level=WARN msg="store: `) != 1 {
		t.Errorf("logs, want one warning %q:\n%s", want, l)
	}
}
