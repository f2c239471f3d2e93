package gateway

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A full queue's warning is logged at most every dropWarnEvery per hook, while every drop
// is counted; fake time (testing/synctest) lets the test cross the interval without waiting.
func TestDropWarningsAreRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &testutil.Buffer{}
		h := &hook{info: &hookspec.GatewayHookInfo{Name: "full"}, worker: &worker{queue: make(chan job), dropped: new(atomic.Int64)}}
		g := &Gateway{logger: slog.New(slog.NewTextHandler(logs, nil))}
		r := &routes{hooks: []*hook{h}, exact: map[string][]*hook{hookspec.AgentStep: {h}}, wildcard: map[string][]*hook{}}
		g.routes.Store(r)
		warnings := func() int { return strings.Count(logs.String(), "queue full") }

		for range 5 {
			g.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: nil}) // the queue has no room: every event is dropped
		}
		if n := warnings(); n != 1 {
			t.Errorf("%d warnings for 5 drops at once, want 1", n)
		}
		time.Sleep(dropWarnEvery - time.Second)
		g.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: nil})
		if n := warnings(); n != 1 {
			t.Errorf("%d warnings before the interval passed, want 1", n)
		}
		time.Sleep(2 * time.Second)
		g.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: nil})
		if n := warnings(); n != 2 {
			t.Errorf("%d warnings after the interval, want 2", n)
		}
		if got := h.worker.dropped.Load(); got != 7 {
			t.Errorf("dropped %d, want 7", got)
		}
	})
}
