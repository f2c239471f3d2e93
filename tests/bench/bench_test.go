//go:build unix

package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/gateway/runner"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/luabind/vmfloor"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/scripts/examples"
	"github.com/hermes-hooks/hermes/shell"

	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// The tool call every dispatch benchmark makes: the Lua and Python references let it through.
var (
	allowed     = hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls -la /tmp"}, TaskID: "t", SessionID: "s", ToolCallID: "c"}
	dangerous   = hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}, TaskID: "t", SessionID: "s", ToolCallID: "c"}
	allowedArgs = map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls -la /tmp"}, "task_id": "t", "session_id": "s", "tool_call_id": "c"}
)

// BenchmarkInvokeNoHooks measures the cost of firing an event nobody subscribed to: the
// engine's fast path, paid by a host on every tool call even with an empty home.
func BenchmarkInvokeNoHooks(b *testing.B) {
	eng := newEngine(b, testutil.Home(b, nil), engine.Options{})
	ctx := context.Background()
	b.Run("PreToolCall", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if eng.DecideTool(ctx, allowed).Block != nil {
				b.Fatal("blocked with no hooks")
			}
		}
	})
	b.Run("Fire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if len(eng.Fire(ctx, hookspec.OnSessionStart, allowedArgs).Hooks) != 0 {
				b.Fatal("results with no hooks")
			}
		}
	})
}

// BenchmarkPreToolCallLua measures PreToolCall through the engine with testdata/reference.lua
// loaded as a plugin, on a call it lets through: hook-set reference, state pool, deadline and
// memory guard, the kwargs refilled into the callback's table, the Lua call, the result back
// to Go, merge.
func BenchmarkPreToolCallLua(b *testing.B) { benchPreToolCall(b, referenceEngine(b, 1)) }

// BenchmarkPreToolCallLuaVarying is BenchmarkPreToolCallLua with calls that differ the way
// real ones do: every call has its own tool_call_id and command (from a ring of 1024
// prepared ones), so refilling the kwargs table writes two fields and its args table one.
func BenchmarkPreToolCallLuaVarying(b *testing.B) {
	eng := referenceEngine(b, 1)
	calls := make([]hookspec.ToolCall, 1024)
	for i := range calls {
		calls[i] = hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": fmt.Sprintf("ls -la /tmp/%d", i)},
			TaskID: "t", SessionID: "s", ToolCallID: fmt.Sprintf("call_%d", i)}
	}
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b)()
	i := 0
	for b.Loop() {
		if eng.DecideTool(ctx, calls[i%len(calls)]).Block != nil {
			b.Fatal("allowed call blocked")
		}
		i++
	}
}

// BenchmarkPreToolCallLuaEscaping is BenchmarkPreToolCallLua with a callback that hands its
// kwargs to a helper function. "helper" is escapingHandler, whose helper is a local function
// that only reads them: the engine follows the call and refills the tables. "fresh" is the
// same with the helper a global function, which any code may replace, so the engine cannot
// prove the table unused after the call and builds new tables for every call.
func BenchmarkPreToolCallLuaEscaping(b *testing.B) {
	b.Run("helper", func(b *testing.B) { benchPreToolCall(b, escapingEngine(b, escapingHandler)) })
	b.Run("fresh", func(b *testing.B) { benchPreToolCall(b, escapingEngine(b, globalHelperHandler)) })
}

// benchPreToolCall calls PreToolCall serially.
func benchPreToolCall(b *testing.B, eng *engine.Engine) {
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if eng.DecideTool(ctx, allowed).Block != nil {
			b.Fatal("allowed call blocked")
		}
	}
}

// BenchmarkPreToolCallLuaRaw is the floor of BenchmarkPreToolCallLua: the same Lua function
// called with gopher-lua directly on an equivalent table. "ctx" and "noctx" build the table
// (and its args table) for every call, then PCall and read the result; "ctx" sets a context
// on the state once, as the engine must for timeouts, which the interpreter polls every 1024
// instructions and before every Go call (gopher-lua selected on it before every
// instruction), and "noctx" is the bare interpreter.
// "reused-ctx" and "reused-noctx" build the table once: the call alone, the floor of the
// engine's refilled tables.
func BenchmarkPreToolCallLuaRaw(b *testing.B) {
	for _, v := range []struct {
		name          string
		withCtx, once bool
	}{{"ctx", true, false}, {"noctx", false, false}, {"reused-ctx", true, true}, {"reused-noctx", false, true}} {
		b.Run(v.name, func(b *testing.B) {
			c, err := vmfloor.New(string(readTestdata(b, "reference.lua")), v.withCtx, v.once)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if answered, err := c.Call(); err != nil || answered {
					b.Fatalf("allowed call: got %v, %v", answered, err)
				}
			}
		})
	}
}

// BenchmarkPreToolCallLuaParallel is BenchmarkPreToolCallLua from every core at once
// (b.RunParallel): with the default states: 1 the plugin's one Lua state serialises the
// calls; with states: 2 two calls run at once. Throughput = ns/op of the serial benchmark
// divided by ns/op here.
func BenchmarkPreToolCallLuaParallel(b *testing.B) {
	for _, states := range []int{1, 2} {
		b.Run(fmt.Sprintf("states=%d", states), func(b *testing.B) {
			eng := referenceEngine(b, states)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if eng.DecideTool(ctx, allowed).Block != nil {
						b.Error("allowed call blocked")
						return
					}
				}
			})
		})
	}
}

// BenchmarkShellHook measures PreToolCall through the engine with testdata/noop-hook.sh
// registered as a pre_tool_call shell hook (approved with AcceptHooks): payload, spawn in
// its own process group, captured output, parse.
func BenchmarkShellHook(b *testing.B) {
	eng := shellEngine(b, "noop-hook.sh", "")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if eng.DecideTool(ctx, allowed).Block != nil {
			b.Fatal("allowed call blocked")
		}
	}
}

// BenchmarkShellHookClaude is BenchmarkShellHook with dialect: claude: the command runs by
// /bin/sh (one more exec), with Claude Code's payload, and its answer read the Claude Code way.
func BenchmarkShellHookClaude(b *testing.B) {
	eng := shellEngine(b, "noop-hook.sh", "dialect: claude")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if eng.DecideTool(ctx, allowed).Block != nil {
			b.Fatal("allowed call blocked")
		}
	}
}

// BenchmarkShellHookRawExec is the floor of BenchmarkShellHook: os/exec of the same script
// with the same stdin payload, stdout and stderr captured, no process group, no parsing.
func BenchmarkShellHookRawExec(b *testing.B) {
	script := testdata(b, "noop-hook.sh")
	cwd, _ := os.Getwd()
	payload, err := shell.BuildPayload(hooknames.PreToolCall, allowedArgs, cwd)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(script)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(payload), &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		if stdout.String() != "{}\n" {
			b.Fatalf("stdout %q", stdout.String())
		}
	}
}

// BenchmarkShellHookPersistent is BenchmarkShellHook with persistent: true: the script is
// started once and answers one line per firing. "perl" is testdata/noop-persistent.sh, which
// reads its stdin buffered; "sh-read-loop" is testdata/noop-persistent-read.sh, the plain
// `while read` loop, whose read builtin takes one byte per system call from a pipe.
func BenchmarkShellHookPersistent(b *testing.B) {
	for _, tc := range []struct{ name, script string }{
		{"perl", "noop-persistent.sh"},
		{"sh-read-loop", "noop-persistent-read.sh"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			eng := shellEngine(b, tc.script, "persistent: true")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if eng.DecideTool(ctx, allowed).Block != nil {
					b.Fatal("allowed call blocked")
				}
			}
		})
	}
}

// BenchmarkGatewayEmit measures Gateway.Emit of one event to 10 subscribed gateway hooks.
// "queued": every handler blocks on its first event and each queue holds b.N events, so every
// send lands in a queue and nothing is dropped: Emit's own cost. "full-queues": the same
// blocked handlers with the default queue of 1024, so Emit drops (about 10 drops/op): its
// ns/op shows that Emit never waits for a handler. "draining": trivial handlers that run
// while Emit does; the emitter then shares the two cores with 10 busy workers, so its ns/op
// is mostly scheduling (informational). drops/op is reported for each.
func BenchmarkGatewayEmit(b *testing.B) {
	const blocked = `require("time").sleep(120)`
	for _, tc := range []struct {
		name, body string
		queue      func(n int) int
	}{
		{"queued", blocked, func(n int) int { return n + 1 }},
		{"full-queues", blocked, func(int) int { return 1024 }},
		{"draining", "", func(n int) int { return n + 1 }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			files := map[string]string{}
			for i := range 10 {
				dir := fmt.Sprintf("hooks/h%02d/", i)
				files[dir+"HOOK.yaml"] = "events: [agent:step]\ntimeout: 300\n"
				files[dir+"handler.lua"] = "function handle(event_type, context) " + tc.body + " end\n"
			}
			ctx := context.Background()
			prefault(10 * tc.queue(b.N) * 32) // queue memory: page faults are not Emit's cost
			gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: testutil.Home(b, files)}, QueueSize: tc.queue(b.N)})
			if err != nil {
				b.Fatal(err)
			}
			data := map[string]any{"platform": "telegram", "user_id": "u1", "session_id": "s", "iteration": 1, "tool_names": []any{"terminal"}}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				gw.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentStep, Data: data})
			}
			b.StopTimer()
			var drops int64
			for _, n := range gw.Dropped() {
				drops += n
			}
			b.ReportMetric(float64(drops)/float64(b.N), "drops/op")
			wait := time.Minute // let the draining handlers finish
			if tc.body == blocked {
				wait = 10 * time.Millisecond // interrupt the sleeping handlers
			}
			cctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			if err := gw.Close(cctx); err != nil && tc.body != blocked {
				b.Errorf("Close: %v", err)
			}
		})
	}
}

// BenchmarkLoadHome measures loading a home with 100 plugins (testdata/reference.lua each)
// and 100 gateway hooks: engine.New + gateway.New, then Close. heap-KB/hook is the live heap
// the loaded home holds (HeapAlloc after a GC with everything loaded, minus before), per hook.
func BenchmarkLoadHome(b *testing.B) {
	src := string(readTestdata(b, "reference.lua"))
	files := map[string]string{}
	for i := range 100 {
		p := fmt.Sprintf("plugins/p%03d/", i)
		files[p+"plugin.yaml"] = fmt.Sprintf("name: p%03d\n", i)
		files[p+"handler.lua"] = src
		h := fmt.Sprintf("hooks/h%03d/", i)
		files[h+"HOOK.yaml"] = "events: [agent:step, \"command:*\"]\n"
		files[h+"handler.lua"] = "function handle(event_type, context) return event_type end\n"
	}
	home := testutil.Home(b, files)
	ctx := context.Background()
	var heap float64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		before := liveHeap()
		b.StartTimer()
		gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: home}})
		if err != nil {
			b.Fatal(err)
		}
		eng := gw.Engine()
		b.StopTimer()
		if n := len(eng.Plugins()) + len(gw.Hooks()); n != 200 {
			b.Fatalf("loaded %d hooks, want 200", n)
		}
		heap += float64(liveHeap()-before) / 200
		b.StartTimer()
		gw.Close(ctx)
	}
	b.ReportMetric(heap/float64(b.N)/1024, "heap-KB/hook")
}

// BenchmarkReplayTurn measures one conversation turn through the reference runner with the
// demo home (scripts/examples/demo): a message from an allowed user, pre_gateway_dispatch,
// session start, pre_llm_call, three terminal tool calls (pre_tool_call with the Lua and the
// shell hook, transform_terminal_output, post_tool_call, transform_tool_result), agent:step,
// the final response and its hooks. "live" emits gateway events asynchronously like a
// running gateway; "replay" waits for them (RunnerOptions.Sync) like hermesctl replay.
func BenchmarkReplayTurn(b *testing.B) {
	for _, sync := range []bool{false, true} {
		name := "live"
		if sync {
			name = "replay"
		}
		b.Run(name, func(b *testing.B) {
			_, gw := demoHome(b)
			ctx := context.Background()
			in := runner.Inbound{Platform: "telegram", UserID: "u1", ChatID: "c1", ChatType: "dm", MessageID: "1", Text: "tidy up"}
			b.ReportAllocs()
			for b.Loop() {
				r := runner.New(gw, threeCalls{}, runner.Options{Sync: sync, Model: "m1"})
				resp, err := r.HandleMessage(ctx, in)
				if err != nil || resp == "" {
					b.Fatalf("turn: %q, %v", resp, err)
				}
			}
		})
	}
}

// threeCalls is an agent whose every turn makes three terminal calls, then answers.
type threeCalls struct{}

func (threeCalls) Step(_ context.Context, req runner.StepRequest) (runner.Step, error) {
	if req.Iteration > 0 {
		return runner.Step{Model: "m1", Response: "done", Final: true}, nil
	}
	calls := make([]hookspec.ToolCall, 3)
	for i, cmd := range []string{"ls -la /tmp", "cat notes.txt", "git status"} {
		calls[i] = hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": cmd}, ToolCallID: fmt.Sprintf("call-%d", i)}
	}
	return runner.Step{Model: "m1", ToolCalls: calls}, nil
}

func (threeCalls) RunTool(context.Context, hookspec.ToolCall) (string, error) {
	return `{"output":"a\nb\nc","exit_code":0}`, nil
}

func (threeCalls) Prompt(context.Context, string) (string, error) { return "[SILENT]", nil }

// TestBenchmarkHomes checks the homes the benchmarks load, so that a benchmark never
// measures a home that silently failed to load.
func TestBenchmarkHomes(t *testing.T) {
	ctx := context.Background()
	engines := map[string]*engine.Engine{
		"states=1": referenceEngine(t, 1), "states=2": referenceEngine(t, 2),
		"escaping/helper": escapingEngine(t, escapingHandler), "escaping/fresh": escapingEngine(t, globalHelperHandler),
	}
	// What the two escaping benchmarks measure: refilled tables, and new ones every call.
	for name, rebuilt := range map[string]bool{"escaping/helper": false, "escaping/fresh": true} {
		if got := engines[name].Plugins()[0].KwargsRebuilt; (len(got) > 0) != rebuilt {
			t.Errorf("%s: kwargs rebuilt %v, want rebuilt: %v", name, got, rebuilt)
		}
	}
	for name, eng := range engines {
		for range 3 { // the first call fills the tables, the next ones refill them
			if blk := eng.DecideTool(ctx, dangerous).Block; blk == nil || blk.Message != "rm -rf / is not permitted" {
				t.Errorf("%s: did not block rm -rf /: %+v", name, blk)
			}
			if eng.DecideTool(ctx, allowed).Block != nil {
				t.Errorf("%s: blocked an allowed call", name)
			}
		}
	}
	for _, tc := range []struct{ script, key string }{
		{"noop-hook.sh", ""}, {"noop-hook.sh", "dialect: claude"}, {"noop-persistent.sh", "persistent: true"}, {"noop-persistent-read.sh", "persistent: true"},
	} {
		eng := shellEngine(t, tc.script, tc.key)
		rs := eng.Fire(ctx, hookspec.PreToolCall, allowedArgs).Hooks
		if len(rs) != 1 || rs[0].Status != hookspec.StatusOK || rs[0].Err != "" {
			t.Errorf("%s: results %+v, want one ok result", tc.script, rs)
		}
	}
	eng, gw := demoHome(t)
	if len(eng.ShellHooks()) == 0 || !eng.ShellHooks()[0].Registered || len(gw.Hooks()) == 0 {
		t.Errorf("demo home: shell hooks %+v, gateway hooks %d", eng.ShellHooks(), len(gw.Hooks()))
	}
}

// TestPersistentShellHookClosedWithEngine checks the engine wiring of persistent: true: one
// process across firings and across reloads that change nothing, replaced by a reload after
// its script changed, stopped by Close.
func TestPersistentShellHookClosedWithEngine(t *testing.T) {
	script := string(readTestdata(t, "pid-persistent.sh"))
	home := testutil.Home(t, map[string]string{"pid.sh": script})
	scriptPath := filepath.Join(home, "pid.sh")
	os.Chmod(scriptPath, 0o755)
	testutil.WriteFiles(t, home, map[string]string{
		"config.yaml": "hooks:\n  pre_llm_call:\n    - command: " + quoteYAML(scriptPath) + "\n      persistent: true\n",
	})
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Home: home, AcceptHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	pid := func() int {
		var n int
		fmt.Sscan(eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s"}).Context, &n)
		return n
	}
	first := pid()
	if first == 0 || pid() != first {
		t.Fatalf("pids differ across firings (first %d): want one process", first)
	}
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if again := pid(); again != first {
		t.Errorf("after a Reload that changed nothing process %d answered, want %d still", again, first)
	}
	if err := os.WriteFile(scriptPath, []byte(script+"# edited\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if second := pid(); second == first || second == 0 {
		t.Errorf("after its script changed the same process %d answered, want a new one", second)
	}
	waitGone(t, first)
	last := pid()
	eng.Close(ctx)
	waitGone(t, last)
}

// referenceEngine loads a home whose one plugin is testdata/reference.lua.
func referenceEngine(tb testing.TB, states int) *engine.Engine {
	return referenceEngineOf(tb, states, engine.Options{})
}

// referenceEngineWith is referenceEngine(tb, 1) with opts.
func referenceEngineWith(tb testing.TB, opts engine.Options) *engine.Engine {
	return referenceEngineOf(tb, 1, opts)
}

func referenceEngineOf(tb testing.TB, states int, opts engine.Options) *engine.Engine {
	tb.Helper()
	home := testutil.Home(tb, map[string]string{
		"plugins/reference/plugin.yaml": fmt.Sprintf("name: reference\nstates: %d\n", states),
		"plugins/reference/handler.lua": string(readTestdata(tb, "reference.lua")),
	})
	eng := newEngine(tb, home, opts)
	if len(eng.Plugins()) != 1 || eng.Plugins()[0].Status != "loaded" {
		tb.Fatalf("reference plugin not loaded: %+v", eng.Warnings())
	}
	return eng
}

// escapingHandler is reference.lua written with a helper function that receives the kwargs
// table: a common style.
const escapingHandler = `local function check(kw)
  if kw.tool_name == "terminal" and string.find(kw.args.command or "", "rm -rf /", 1, true) then
    return { action = "block", message = "rm -rf / is not permitted" }
  end
end
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return check(kw) end)
end
`

// globalHelperHandler is escapingHandler with a global helper, which keeps the engine from
// proving the table unused after the call.
var globalHelperHandler = strings.Replace(escapingHandler, "local function check", "function check", 1)

// escapingEngine loads handler as a plugin.
func escapingEngine(tb testing.TB, handler string) *engine.Engine {
	tb.Helper()
	home := testutil.Home(tb, map[string]string{
		"plugins/escaping/plugin.yaml": "name: escaping\n",
		"plugins/escaping/handler.lua": handler,
	})
	return newEngine(tb, home, engine.Options{})
}

// shellEngine loads a home whose one shell hook is testdata/<script> on pre_tool_call.
func shellEngine(tb testing.TB, script, key string) *engine.Engine {
	tb.Helper()
	command := testdata(tb, script)
	if key == "dialect: claude" { // a command line for /bin/sh
		command = "'" + command + "'"
	}
	cfg := "hooks:\n  pre_tool_call:\n    - command: " + quoteYAML(command) + "\n"
	if key != "" {
		cfg += "      " + key + "\n"
	}
	eng := newEngine(tb, testutil.Home(tb, map[string]string{"config.yaml": cfg}), engine.Options{AcceptHooks: true})
	if hs := eng.ShellHooks(); len(hs) != 1 || !hs[0].Registered {
		tb.Fatalf("shell hook not registered: %+v %v", hs, eng.Warnings())
	}
	return eng
}

// demoHome copies the demo home into a temporary directory, like hermesctl demo, and
// loads it with its shell hooks approved.
func demoHome(tb testing.TB) (*engine.Engine, *gateway.Gateway) {
	tb.Helper()
	dir := tb.TempDir()
	if err := examples.CopyDemo(dir); err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: filepath.Join(dir, "home"), AcceptHooks: true}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { gw.Close(ctx) })
	return gw.Engine(), gw
}

func newEngine(tb testing.TB, home string, opts engine.Options) *engine.Engine {
	tb.Helper()
	opts.Home = home
	eng, err := engine.New(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close(context.Background()) })
	return eng
}

// reportCPU starts measuring the CPU time of the process (every thread: the garbage collector
// included) and returns the function that reports it as cpu-ns/op. Unlike ns/op it does not
// grow when other processes compete for the cores, so it cross-checks a run on a busy machine.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// prefault touches n bytes of heap and frees them, so that the next large allocation reuses
// pages the process already faulted in instead of faulting them in the timed loop.
func prefault(n int) {
	buf := make([]byte, n)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	runtime.KeepAlive(buf)
	buf = nil
	runtime.GC()
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
