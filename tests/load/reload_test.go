//go:build unix

package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/gateway/runner"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

const (
	reloadEvery   = 100 * time.Millisecond
	reloadSession = 64 // conversations at a time
	seqEvent      = "test:seq"
)

// Gateway hooks that record the seq of every test:seq event they get, in order. "kept" is
// never edited; "rewritten" is rewritten at every reload; "slow" is slow enough that its
// queue fills and drops events.
var orderHooks = map[string]string{
	"order-kept":      "",
	"order-rewritten": "",
	"order-slow":      `require("time").sleep(0.002)`,
}

func orderHandler(name, extra, version string) string {
	return fmt.Sprintf("-- version %s\nfunction handle(event, ctx) %s require(\"hermes\").record(%q, ctx.seq) end\n", version, extra, name)
}

// TestLoadWithReloads runs 64 sessions at a time while the home is reloaded every 100ms and
// handler files are rewritten, and a steady stream of numbered events goes to three
// gateway hooks. It asserts that no guard lapses, that for every hook events emitted =
// events handled + events counted as dropped, that each hook saw its events in order, that
// no goroutine is left after Close, and that the heap is back near where it started.
func TestLoadWithReloads(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	home := buildHome(t)
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, extra := range orderHooks {
		write("hooks/"+name+"/HOOK.yaml", "events: ["+seqEvent+"]\n")
		write("hooks/"+name+"/handler.lua", orderHandler(name, extra, "0"))
	}
	runtime.GC()
	goroutinesBefore := runtime.NumGoroutine()
	var memBefore runtime.MemStats
	runtime.ReadMemStats(&memBefore)

	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	count, rec := &counters{}, &testutil.Recorder{}
	funcs := map[string]hookspec.Func{"count": count.fn(), "record": rec.Func()}
	h, err := gateway.New(ctx, gateway.Options{
		Engine:    engine.Options{Home: home, AcceptHooks: true, HostFuncs: funcs, Getenv: func(string) string { return "" }},
		QueueSize: 64, HostFuncs: funcs,
	})
	if err != nil {
		t.Fatal(err)
	}
	agent := &loadAgent{}
	r := runner.New(h, agent, runner.Options{Model: "m"})
	r.Startup(ctx, []string{"telegram"})

	stop := make(chan struct{})
	var bg sync.WaitGroup
	var reloads atomic.Int64
	var emitted atomic.Int64
	bg.Go(func() { reloadEvery100ms(t, ctx, h, write, stop, &reloads) })
	bg.Go(func() { emitNumbered(h, stop, &emitted) })
	start := time.Now()
	ran := runSessions(t, ctx, r, reloadSession, func(int) string { return "reset" })
	close(stop)
	bg.Wait()
	if err := ctx.Err(); err != nil {
		t.Fatalf("the load did not finish within %v", runTimeout)
	}
	if err := r.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := h.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	const afterClose = 10
	for range afterClose {
		h.Emit(context.Background(), hookspec.NamedEvent{Name: seqEvent, Data: map[string]any{"seq": 0}})
	}
	blockedAfterClose := h.Engine().DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}).Block != nil

	t.Logf("%d sessions, %d reloads, %d numbered events in %v; blocks %d, dangerous calls run %d; dropped %v",
		ran, reloads.Load(), emitted.Load(), time.Since(start).Round(time.Millisecond),
		agent.blocked.Load(), agent.violations.Load(), h.Dropped())

	if ran < reloadSession || reloads.Load() < 5 {
		t.Errorf("only %d sessions and %d reloads ran", ran, reloads.Load())
	}
	if agent.violations.Load() != 0 || agent.unblocked.Load() != 0 || agent.blocked.Load() != ran {
		t.Errorf("%d blocks honoured, %d unblocked, %d dangerous calls run; want every one of %d blocked",
			agent.blocked.Load(), agent.unblocked.Load(), agent.violations.Load(), ran)
	}
	if !blockedAfterClose {
		t.Error("after Close a tool call was allowed")
	}
	checkEveryEvent(t, rec, h.Dropped(), emitted.Load()+afterClose)

	goroutinesAfter := settle(goroutinesBefore, 5*time.Second)
	if goroutinesAfter > goroutinesBefore {
		var b strings.Builder
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("%d goroutines left after Close:\n%s", goroutinesAfter-goroutinesBefore, b.String())
	}
	h, r, rec = nil, nil, nil
	runtime.GC()
	runtime.GC()
	var memAfter runtime.MemStats
	runtime.ReadMemStats(&memAfter)
	t.Logf("heap %d KiB before, %d KiB after", memBefore.HeapAlloc>>10, memAfter.HeapAlloc>>10)
	if memAfter.HeapAlloc > memBefore.HeapAlloc+32<<20 {
		t.Errorf("heap %d KiB after Close, %d KiB before: more than 32 MiB kept", memAfter.HeapAlloc>>10, memBefore.HeapAlloc>>10)
	}
}

// reloadEvery100ms reloads h every 100ms until stop, rewriting a plugin and a gateway hook
// each time.
func reloadEvery100ms(t *testing.T, ctx context.Context, h *gateway.Gateway, write func(rel, content string), stop chan struct{}, reloads *atomic.Int64) {
	tick := time.NewTicker(reloadEvery)
	defer tick.Stop()
	for i := 1; ; i++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		v := fmt.Sprint(i)
		write("hooks/order-rewritten/handler.lua", orderHandler("order-rewritten", "", v))
		write("plugins/context-00/handler.lua", pluginKinds["context"].handler+"\n-- version "+v+"\n")
		if err := h.Reload(ctx); err != nil {
			t.Errorf("reload %d: %v", i, err)
		}
		reloads.Add(1)
	}
}

// emitNumbered emits numbered events, 10 a millisecond, from one goroutine so that their
// order is defined, until stop; emitted is the last number emitted.
func emitNumbered(gw *gateway.Gateway, stop chan struct{}, emitted *atomic.Int64) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for seq := int64(1); ; seq++ {
		if seq%10 == 0 {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
		gw.Emit(context.Background(), hookspec.NamedEvent{Name: seqEvent, Data: map[string]any{"seq": seq}})
		emitted.Store(seq)
	}
}

// runSessions runs up to sessions conversations, concurrency at a time, each a message and
// the slash command command(i) names, starting none after budget; it returns how many ran.
func runSessions(t *testing.T, ctx context.Context, r *runner.Runner, concurrency int, command func(i int) string) int64 {
	start := time.Now()
	jobs := make(chan int)
	go func() {
		defer close(jobs)
		for i := range sessions {
			if time.Since(start) > budget {
				return
			}
			jobs <- i
		}
	}()
	var wg sync.WaitGroup
	var ran atomic.Int64
	for range concurrency {
		wg.Go(func() {
			for i := range jobs {
				chat := fmt.Sprintf("chat-%03d", i)
				in := runner.Inbound{Platform: "telegram", UserID: "u" + chat, ChatID: chat, ChatType: "dm", Text: "hello"}
				if _, err := r.HandleMessage(ctx, in); err != nil {
					t.Errorf("%s: %v", chat, err)
				}
				r.HandleCommand(ctx, runner.Command{Platform: "telegram", UserID: "u" + chat, ChatID: chat, Name: command(i)})
				ran.Add(1)
			}
		})
	}
	wg.Wait()
	return ran.Load()
}

// checkEveryEvent checks that each order hook handled or had counted as dropped every one of
// the emitted events, in order, and that the slow one did drop some.
func checkEveryEvent(t *testing.T, rec *testutil.Recorder, dropped map[string]int64, emitted int64) {
	t.Helper()
	for name := range orderHooks {
		seen := rec.Get(name)
		if got := int64(len(seen)) + dropped[name]; got != emitted {
			t.Errorf("%s: %d handled + %d dropped = %d, want the %d emitted", name, len(seen), dropped[name], got, emitted)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] <= seen[i-1] {
				t.Errorf("%s: event %d arrived after %d", name, seen[i], seen[i-1])
				break
			}
		}
	}
	if dropped["order-slow"] == 0 {
		t.Error("the slow hook dropped nothing: the test did not fill a queue")
	}
}
