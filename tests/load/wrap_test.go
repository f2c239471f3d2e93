package load

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// wrapSessions conversations call a tool at the same moment, through a wrap_tool_call hook
// whose plugin keeps one Lua state for running Lua (states: 1).
const wrapSessions = 64

// A wrap hook waiting in next for a slow tool does not hold other sessions' calls: the 64
// calls run their tools together. Each tool returns only once every call's tool is running
// (or, when they never all run at once, after a minute, with an error), so a hook that
// serialised the calls fails the test however fast or busy the machine.
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
	var running atomic.Int32
	together, giveUp := make(chan struct{}), make(chan struct{})
	timer := time.AfterFunc(time.Minute, func() { close(giveUp) })
	defer timer.Stop()
	tool := func(ctx context.Context, call hookspec.ToolCall) (string, error) {
		if running.Add(1) == wrapSessions {
			close(together)
		}
		select {
		case <-together:
			return "done", nil
		case <-giveUp:
			return "", errors.New("the tools never ran together")
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
	close(start)
	wg.Wait()
	for i, r := range results {
		if r.Result != "wrapped:done" || r.Err != nil || r.Block != nil {
			t.Fatalf("session %d: %+v; want the wrapped result: the wrap hook serialised the calls", i, r)
		}
	}
	if n := running.Load(); n != wrapSessions {
		t.Errorf("%d tool runs for %d calls, want one each", n, wrapSessions)
	}
}
