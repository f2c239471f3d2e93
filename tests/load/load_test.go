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
)

// Size of the load: up to sessions conversations, workers at a time, each one turn and a slash
// command; no session starts after budget (a slow machine or -race runs fewer). A few chats
// also get two messages at the same moment.
const (
	sessions   = 200
	workers    = 100
	budget     = 4 * time.Second
	twinChats  = 20 // chats receiving two concurrent messages
	perKind    = 12 // plugins of each behaviour, and gateway hooks
	runTimeout = 90 * time.Second
)

const dangerous = "rm -rf /"

// Plugin manifests and handlers by behaviour; {i} in a manifest is the plugin's index.
var pluginKinds = map[string]struct{ manifest, handler string }{
	"block": {"priority: {i}\nstates: 4\n", `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "rm -rf /" then return {action = "block", message = "blocked by " .. ctx.name} end
  end)
end`},
	"context": {"states: 4\n", `
function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw) return {context = "note from " .. ctx.name} end)
end`},
	"transform": {"states: 4\n", `
function register(ctx)
  ctx.register_hook("transform_tool_result", function(kw) return kw.result end)
  ctx.register_hook("transform_terminal_output", function(kw) return kw.output end)
  ctx.register_hook("transform_llm_output", function(kw) return kw.response_text end)
end`},
	"observe": {"states: 4\n", `
local hermes = require("hermes")
function register(ctx)
  for _, name in ipairs({"post_tool_call", "on_session_start", "on_session_end"}) do
    ctx.register_hook(name, function(kw) hermes.count(name) end)
  end
end`},
	"slow": {"states: 16\n", `
local time = require("time")
function register(ctx)
  ctx.register_hook("post_tool_call", function(kw) time.sleep(0.005) end)
end`},
	"error": {"states: 4\n", `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) error("boom from " .. ctx.name) end)
  ctx.register_hook("post_llm_call", function(kw) local t = nil; return t.x end)
end`},
	"timeout": {"timeout: 0.02\nstates: 32\n", `
local time = require("time")
function register(ctx)
  ctx.register_hook("on_session_end", function(kw) time.sleep(10) end)
  ctx.register_hook("on_session_start", function(kw)
    local n = tonumber(string.match(kw.session_id or "", "%d+")) or 1
    if n % 25 == 0 then while true do end end
  end)
end`},
}

// buildHome writes the home: perKind plugins of every kind, perKind gateway hooks (every
// third one slow) and three shell hooks. Spawning a process costs milliseconds, so the shell
// hooks fire for the dangerous call (blocking it too), after terminal calls (which are all
// blocked: never) and on resets.
func buildHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	write := func(name, content string, mode os.FileMode) {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	for kind, k := range pluginKinds {
		for i := range perKind {
			name := fmt.Sprintf("%s-%02d", kind, i)
			write("plugins/"+name+"/plugin.yaml", "name: "+name+"\n"+strings.ReplaceAll(k.manifest, "{i}", fmt.Sprint(i)), 0o644)
			write("plugins/"+name+"/handler.lua", k.handler, 0o644)
		}
	}
	for i := range perKind {
		body := `require("hermes").count("gateway")`
		if i%3 == 0 {
			body += `; require("time").sleep(0.005)`
		}
		name := fmt.Sprintf("gw-%02d", i)
		write("hooks/"+name+"/HOOK.yaml", `events: ["agent:*", "session:*", "command:*"]`+"\n", 0o644)
		write("hooks/"+name+"/handler.lua", "function handle(event, ctx) "+body+" end\n", 0o644)
	}
	write("agent-hooks/block.sh", "#!/bin/sh\np=$(cat)\ncase \"$p\" in *'"+dangerous+"'*) echo '{\"action\":\"block\",\"message\":\"shell says no\"}';; esac\n", 0o755)
	write("agent-hooks/observe.sh", "#!/bin/sh\ncat >/dev/null\n", 0o755)
	write("agent-hooks/broken.sh", "#!/bin/sh\necho 'not json'\nexit 1\n", 0o755)
	q := func(s string) string { return `"'` + filepath.Join(home, "agent-hooks", s) + `'"` }
	write("config.yaml", "hooks:\n"+
		"  pre_tool_call:\n    - matcher: terminal\n      command: "+q("block.sh")+"\n"+
		"  post_tool_call:\n    - matcher: terminal\n      command: "+q("observe.sh")+"\n"+
		"  on_session_reset:\n    - command: "+q("broken.sh")+"\n", 0o644)
	return home
}

// loadAgent asks for three tool calls (one of them `rm -rf /`) and then answers. It fails
// the run if a dangerous call reaches a tool or comes back unblocked.
type loadAgent struct {
	violations, blocked, unblocked, turns atomic.Int64
}

func (a *loadAgent) Step(_ context.Context, req runner.StepRequest) (runner.Step, error) {
	if req.Iteration == 0 {
		return runner.Step{Model: "m", ToolCalls: []hookspec.ToolCall{
			{Name: "terminal", Args: map[string]any{"command": dangerous}, ToolCallID: "c1"},
			{Name: "search", Args: map[string]any{"query": "ls"}, ToolCallID: "c2"},
			{Name: "read_file", Args: map[string]any{"path": "/etc/hosts"}, ToolCallID: "c3"},
		}}, nil
	}
	for _, r := range req.ToolResults {
		if r.Call.Args["command"] == dangerous {
			if r.Blocked {
				a.blocked.Add(1)
			} else {
				a.unblocked.Add(1)
			}
		}
	}
	a.turns.Add(1)
	return runner.Step{Model: "m", Response: "done", Final: true}, nil
}

func (a *loadAgent) RunTool(_ context.Context, call hookspec.ToolCall) (string, error) {
	if call.Args["command"] == dangerous {
		a.violations.Add(1)
	}
	if call.Name == "terminal" {
		return `{"output": "ok", "exit_code": 0}`, nil
	}
	return "contents", nil
}

func (a *loadAgent) Prompt(context.Context, string) (string, error) { return "", nil }

// counters is the hermes.count host function: how many times Lua hooks called it, by name.
type counters struct{ m sync.Map }

func (c *counters) fn() hookspec.Func {
	return func(_ context.Context, args []any) (any, error) {
		name, _ := args[0].(string)
		v, _ := c.m.LoadOrStore(name, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
		return nil, nil
	}
}

func (c *counters) get(name string) int64 {
	if v, ok := c.m.Load(name); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// stats is what one run reports.
type stats struct {
	elapsed        time.Duration
	firings        int              // engine firings recorded by the runner
	status         map[string]int64 // hook results by source/status
	gatewayHandled int64
	dropped        int64
	observed       int64
	started        int64 // on_session_start calls of one observer plugin
	turns          int64
	sessions       int64 // sessions run (not counting the twin chats)
}

func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	home := buildHome(t)
	runtime.GC()
	goroutinesBefore := runtime.NumGoroutine()
	var memBefore runtime.MemStats
	runtime.ReadMemStats(&memBefore)

	agent := &loadAgent{}
	st := run(t, home, agent)

	goroutinesAfter := settle(goroutinesBefore, 5*time.Second)
	runtime.GC()
	var memAfter runtime.MemStats
	runtime.ReadMemStats(&memAfter)

	t.Logf("%d sessions (%d at a time, +%d chats with twin messages) in %v: %d turns, %d engine firings, %d gateway events handled, %d dropped",
		st.sessions, workers, twinChats, st.elapsed.Round(time.Millisecond), st.turns, st.firings, st.gatewayHandled, st.dropped)
	t.Logf("hook results: %v; observer calls %d", st.status, st.observed)
	t.Logf("blocks honoured %d, unblocked %d, dangerous calls run %d", agent.blocked.Load(), agent.unblocked.Load(), agent.violations.Load())
	t.Logf("goroutines %d before, %d after; heap %d KiB before, %d KiB after",
		goroutinesBefore, goroutinesAfter, memBefore.HeapAlloc>>10, memAfter.HeapAlloc>>10)

	if st.sessions < workers {
		t.Errorf("only %d sessions ran", st.sessions)
	}
	wantTurns := st.sessions + 2*twinChats
	if agent.violations.Load() != 0 || agent.unblocked.Load() != 0 || agent.blocked.Load() != wantTurns {
		t.Errorf("%d blocks honoured, %d unblocked, %d dangerous calls run; want every one of %d blocked",
			agent.blocked.Load(), agent.unblocked.Load(), agent.violations.Load(), wantTurns)
	}
	if st.turns != wantTurns {
		t.Errorf("%d turns completed, want %d", st.turns, wantTurns)
	}
	if st.started != st.sessions+twinChats { // two concurrent first messages start one session
		t.Errorf("%d sessions started, want %d", st.started, st.sessions+twinChats)
	}
	if st.status["plugin/error"] == 0 || st.status["plugin/timeout"] == 0 || st.status["shell/ok"] == 0 || st.gatewayHandled == 0 {
		t.Errorf("the load did not exercise every behaviour: %v, %d gateway events", st.status, st.gatewayHandled)
	}
	if goroutinesAfter > goroutinesBefore {
		var b strings.Builder
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("%d goroutines leaked:\n%s", goroutinesAfter-goroutinesBefore, b.String())
	}
}

// run drives every session through a fresh engine, gateway and runner, then shuts all down.
func run(t *testing.T, home string, agent *loadAgent) stats {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	count := &counters{}
	funcs := map[string]hookspec.Func{"count": count.fn()}
	gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: home, AcceptHooks: true, HostFuncs: funcs, Getenv: func(string) string { return "" }}, QueueSize: 256, HostFuncs: funcs})
	if err != nil {
		t.Fatal(err)
	}
	eng := gw.Engine()
	if w := eng.Warnings(); len(w) > 0 {
		t.Fatalf("warnings loading the home: %v", w)
	}
	r := runner.New(gw, agent, runner.Options{Model: "m"})
	r.Startup(ctx, []string{"telegram"})

	start := time.Now()
	var wg sync.WaitGroup
	var ran atomic.Int64
	wg.Go(func() {
		ran.Store(runSessions(t, ctx, r, workers, func(i int) string {
			if i%10 == 0 {
				return "reset"
			}
			return "model"
		}))
	})
	for i := range twinChats { // two messages of one chat at the same moment
		for range 2 {
			wg.Go(func() {
				chat := fmt.Sprintf("twin-%02d", i)
				in := runner.Inbound{Platform: "telegram", UserID: "u" + chat, ChatID: chat, Text: "hi"}
				if _, err := r.HandleMessage(ctx, in); err != nil {
					t.Errorf("%s: %v", chat, err)
				}
			})
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		t.Fatalf("the load did not finish within %v", runTimeout)
	}
	if err := r.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := eng.Close(ctx); err != nil {
		t.Errorf("engine Close: %v", err)
	}

	st := stats{elapsed: elapsed, status: map[string]int64{}, gatewayHandled: count.get("gateway"), turns: agent.turns.Load(), sessions: ran.Load()}
	for _, n := range gw.Dropped() {
		st.dropped += n
	}
	st.started = count.get("on_session_start") / perKind
	for _, name := range []string{"post_tool_call", "on_session_start", "on_session_end"} {
		st.observed += count.get(name)
	}
	for _, e := range r.Timeline().Events {
		if len(e.Hooks) > 0 {
			st.firings++
		}
		for _, h := range e.Hooks {
			st.status[h.Source+"/"+h.Status.String()]++
		}
	}
	return st
}

// settle waits up to wait for the goroutine count to fall to want and returns the count.
func settle(want int, wait time.Duration) int {
	deadline := time.Now().Add(wait)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}
