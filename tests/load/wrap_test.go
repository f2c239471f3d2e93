package load

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// wrapSessions conversations call a tool that takes wrapTool at the same moment, through a
// wrap_tool_call hook whose plugin keeps one Lua state for running Lua (states: 1).
const (
	wrapSessions = 64
	wrapTool     = 200 * time.Millisecond
)

// A wrap hook waiting in next for a slow tool does not hold other sessions' calls: the 64
// calls run their tools together, so the whole takes about one tool call, not 64 of them
// (the bound is a quarter of 64 calls in a row, far above one call and far below the line).
// Every call's tool runs once, inside the hook.
func TestWrapHookDoesNotSerialise(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	home := testutil.Home(t, map[string]string{
		"plugins/timing/plugin.yaml": "name: timing\nstates: 1\n",
		"plugins/timing/handler.lua": `function register(ctx)
  ctx.register_hook("wrap_tool_call", function(kw, next)
    local result = next(kw.args)
    return "wrapped:" .. result
  end)
end
`,
	})
	eng, err := engine.New(context.Background(), engine.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	tool := func(ctx context.Context, call hookspec.ToolCall) (string, error) {
		select { // the tool's own duration
		case <-time.After(wrapTool):
			return "done", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	start := make(chan struct{})
	results := make([]engine.ToolRun, wrapSessions)
	var wg sync.WaitGroup
	for i := range wrapSessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = eng.RunTool(context.Background(), hookspec.ToolCall{Name: "slow", Args: map[string]any{"n": i}, SessionID: "s"}, tool)
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(began)
	for i, r := range results {
		if r.Result != "wrapped:done" || r.Err != nil || r.Block != nil {
			t.Fatalf("session %d: %+v; want the wrapped result", i, r)
		}
	}
	bound := wrapSessions * wrapTool / 4
	t.Logf("%d sessions around a %v tool through one wrap hook of states: 1: %v (one tool call: %v, in a row: %v)", wrapSessions, wrapTool, took, wrapTool, wrapSessions*wrapTool)
	if took >= bound {
		t.Errorf("%d wrapped calls took %v, want well under %v: the wrap hook serialised them", wrapSessions, took, bound)
	}
}
