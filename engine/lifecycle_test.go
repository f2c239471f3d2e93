package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

const dangerous = "rm -rf /"

var rmCall = hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": dangerous}}

// guard blocks rm -rf in pre_tool_call.
var guard = pluginFiles("guard", "", one("pre_tool_call",
	`if kw.args.command == "rm -rf /" then return {action = "block", message = "no"} end`))

func wantBlocked(t *testing.T, e *Engine, what string) {
	t.Helper()
	if blk := e.DecideTool(context.Background(), rmCall).Block; blk == nil {
		t.Fatalf("%s: rm -rf / was allowed", what)
	}
}

// hostGate gives hooks hermes.started() (sends on started) and hermes.wait() (returns
// when release is closed or the call's context is done).
func hostGate() (funcs map[string]hookspec.Func, started chan string, release chan struct{}) {
	started, release = make(chan string, 16), make(chan struct{})
	funcs = map[string]hookspec.Func{
		"started": func(_ context.Context, args []any) (any, error) {
			name, _ := args[0].(string)
			started <- name
			return nil, nil
		},
		"wait": func(ctx context.Context, _ []any) (any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		},
	}
	return funcs, started, release
}

func engineWith(t *testing.T, home string, opts Options) *Engine {
	t.Helper()
	opts.Home = home
	e, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// After Close a guard call never answers "allowed", whether or not hooks were loaded: tool
// calls are blocked, inbound messages skipped; a transform withholds its input where the
// home had hooks for it (closed_test.go), and observers do nothing.
func TestClosedEngineNeverAllows(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"with a guard":  guard,
		"without hooks": {},
		"transforms":    pluginFiles("t", "", one("transform_tool_result", `return "changed"`)),
	} {
		t.Run(name, func(t *testing.T) {
			e, _ := newEngine(t, testutil.Home(t, files))
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			blk := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}).Block
			if blk == nil || !strings.Contains(blk.Message, "hook engine closed") || blk.Source != hookspec.SourceEngine {
				t.Fatalf("PreToolCall after Close = %+v, want a block saying the hook engine is closed", blk)
			}
			if d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal"}); d.Block == nil || d.Approved {
				t.Errorf("DecideTool after Close = %+v, want a block", d)
			}
			ran := false
			if run := e.RunTool(context.Background(), hookspec.ToolCall{Name: "terminal"}, func(context.Context, hookspec.ToolCall) (string, error) { ran = true; return "", nil }); ran || run.Block == nil {
				t.Errorf("RunTool after Close ran the tool (%+v)", run)
			}
			if rep := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "terminal"}); rep.Block() == nil {
				t.Errorf("Fire(pre_tool_call) after Close = %+v, want a block", rep)
			}
			if d := e.PreGatewayDispatch(context.Background(), hookspec.DispatchEvent{Text: "hi"}, DispatchHost{}); d.Action != DispatchSkip || d.Reason != "hook engine closed" {
				t.Errorf("PreGatewayDispatch after Close = %+v, want a skip", d)
			}
			if d := e.PreGatewayDispatch(context.Background(), hookspec.DispatchEvent{Internal: true}, DispatchHost{}); d.Action != DispatchAllow {
				t.Errorf("an internal event after Close = %+v, want it allowed as always", d)
			}
			want := "input" // nothing to withhold without a transform hook
			if name == "transforms" {
				want = errorResult(withheldText)
			}
			if got := e.TransformToolResult(context.Background(), hookspec.ToolCall{Result: "input"}); got != want {
				t.Errorf("TransformToolResult after Close = %q, want %q", got, want)
			}
			if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "" {
				t.Errorf("PreLLMCall after Close = %q", got)
			}
			if rs := e.Fire(context.Background(), hookspec.OnSessionStart, nil).Hooks; len(rs) != 0 {
				t.Errorf("an observer ran after Close: %v", rs)
			}
			if err := e.Reload(context.Background()); !errors.Is(err, ErrClosed) {
				t.Errorf("Reload after Close = %v, want ErrClosed", err)
			}
			if err := e.Close(context.Background()); err != nil {
				t.Errorf("second Close = %v", err)
			}
		})
	}
}

// Close stops accepting calls at once but waits for those in flight, like
// http.Server.Shutdown; the call in flight keeps its own answer.
func TestCloseWaitsForCallsInFlight(t *testing.T) {
	funcs, started, release := hostGate()
	home := testutil.Home(t, pluginFiles("slow", "timeout: 60\n", one("pre_tool_call", `
		local h = require("hermes"); h.started("slow"); h.wait()
		return {action = "block", message = "decided by the hook"}`)))
	e := engineWith(t, home, Options{HostFuncs: funcs})
	inFlight := make(chan *Block)
	go func() { inFlight <- e.DecideTool(context.Background(), hookspec.ToolCall{Name: "ls"}).Block }()
	<-started
	closed := make(chan error)
	go func() { closed <- e.Close(context.Background()) }()
	done, cancel := context.WithCancel(context.Background())
	cancel() // so that a call made before Close gives up at once instead of waiting for the state
	for {    // Close stops accepting before it waits
		if blk := e.DecideTool(done, hookspec.ToolCall{Name: "ls"}).Block; blk != nil && blk.Source == hookspec.SourceEngine {
			break
		}
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a call was in flight", err)
	default:
	}
	close(release)
	if blk := <-inFlight; blk == nil || blk.Message != "decided by the hook" {
		t.Errorf("the call in flight got %+v, want its hook's own block", blk)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close = %v", err)
	}
}

// A reload of a home that vanished, was replaced by a file, has an unreadable plugins
// directory, or was replaced while it was read fails and keeps every guard.
func TestFailedReloadKeepsGuards(t *testing.T) {
	breakHome := map[string]func(t *testing.T, home string){
		"removed": func(t *testing.T, home string) { os.RemoveAll(home) },
		"renamed away": func(t *testing.T, home string) {
			os.Rename(home, home+".old")
		},
		"replaced by a file": func(t *testing.T, home string) {
			os.RemoveAll(home)
			writeFile(t, home, "")
		},
		"plugins unreadable": func(t *testing.T, home string) {
			os.RemoveAll(filepath.Join(home, "plugins"))
			writeFile(t, filepath.Join(home, "plugins"), "")
		},
	}
	for name, breakIt := range breakHome {
		t.Run(name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			testutil.WriteFiles(t, home, guard)
			e, _ := newEngine(t, home)
			breakIt(t, home)
			err := e.Reload(context.Background())
			if err == nil || !strings.Contains(err.Error(), "keep running") {
				t.Fatalf("Reload = %v, want an error saying the hooks keep running", err)
			}
			wantBlocked(t, e, "after a failed reload")
			if len(e.Plugins()) != 1 {
				t.Errorf("Plugins() = %v after a failed reload", e.Plugins())
			}
		})
	}
}

// A home replaced while it is read (here: by a plugin's register, which runs during the
// load) is a failed reload too.
func TestHomeReplacedWhileReading(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	testutil.WriteFiles(t, home, guard)
	replace := func(context.Context, []any) (any, error) {
		if err := os.Rename(home, home+".old"); err != nil {
			return nil, err
		}
		testutil.WriteFiles(t, home, pluginFiles("swapper", "", "function register(ctx) end"))
		return nil, nil
	}
	e := engineWith(t, home, Options{HostFuncs: map[string]hookspec.Func{"replace": replace}})
	testutil.WriteFiles(t, home, pluginFiles("swapper", "", `function register(ctx) require("hermes").replace() end`))
	err := e.Reload(context.Background())
	if err == nil || !strings.Contains(err.Error(), "replaced while it was read") {
		t.Fatalf("Reload = %v, want the home replaced while it was read", err)
	}
	wantBlocked(t, e, "after the home was replaced mid-read")
	if err := e.Reload(context.Background()); err != nil { // the new home, read whole
		t.Fatalf("second Reload: %v", err)
	}
	if blk := e.DecideTool(context.Background(), rmCall).Block; blk != nil {
		t.Errorf("the new home has no guard, yet: %+v", blk)
	}
}

// Unchanged plugins keep their Lua state across reloads; an edited one starts afresh.
func TestReloadKeepsUnchangedPlugins(t *testing.T) {
	counter := `local n = 0
function register(ctx) ctx.register_hook("pre_llm_call", function(kw) n = n + 1 return tostring(n) end) end`
	files := pluginFiles("counter", "", counter)
	for k, v := range pluginFiles("other", "", one("on_session_start", "")) {
		files[k] = v
	}
	home := testutil.Home(t, files)
	e, _ := newEngine(t, home)
	next := func() string { return e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context }
	next()
	next()
	reload := func() {
		t.Helper()
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	reload()
	if got := next(); got != "3" {
		t.Errorf("after a reload with nothing changed: %s, want 3 (state kept)", got)
	}
	writeFile(t, filepath.Join(home, "plugins/other/handler.lua"), one("on_session_end", ""))
	reload()
	if got := next(); got != "4" {
		t.Errorf("after another plugin changed: %s, want 4", got)
	}
	writeFile(t, filepath.Join(home, "plugins/counter/handler.lua"), counter+"\n-- edited\n")
	reload()
	if got := next(); got != "1" {
		t.Errorf("after its own edit: %s, want 1 (reloaded)", got)
	}
	writeFile(t, filepath.Join(home, "config.yaml"), "plugins:\n  disabled: [counter]\n")
	reload()
	if got := next(); got != "" {
		t.Errorf("after disabling it: %q, want nothing", got)
	}
}

// A host cancelling its call is "cancelled", never the hook's timeout; a call that finds
// every state busy past busy_timeout is "busy", counted, and fails closed when asked to.
func TestCancelledAndBusyStatuses(t *testing.T) {
	funcs, started, release := hostGate()
	defer close(release)
	home := testutil.Home(t, pluginFiles("slow", "timeout: 30\nbusy_timeout: 0.05\nmax_states: 1\nfail_closed: true\n", one("pre_tool_call",
		`local h = require("hermes"); h.started("slow"); h.wait()`)))
	metrics := NewMetrics()
	e := engineWith(t, home, Options{HostFuncs: funcs, Metrics: metrics})

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan Report)
	go func() { first <- e.Fire(ctx, hookspec.PreToolCall, map[string]any{"tool_name": "x"}) }()
	<-started
	rep := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "x"})
	if h := rep.Hooks[0]; h.Status != hookspec.StatusBusy || !strings.Contains(h.Err, "busy") {
		t.Errorf("second call: %s %q, want busy", h.Status, h.Err)
	}
	if blk := rep.Block(); blk == nil || !strings.Contains(blk.Message, "failed closed (busy") {
		t.Errorf("busy fail_closed hook: block = %+v, want a fail-closed block", blk)
	}
	cancel()
	rep = <-first
	if h := rep.Hooks[0]; h.Status != hookspec.StatusCancelled || strings.Contains(h.Err, "timed out") {
		t.Errorf("cancelled call: %s %q, want cancelled and no timeout", h.Status, h.Err)
	}
	for name, c := range map[string]float64{
		"busy":      metrics.busy.With(hookspec.SourcePlugin, "slow", hooknames.PreToolCall).Value(),
		"cancelled": metrics.cancels.With(hookspec.SourcePlugin, "slow", hooknames.PreToolCall).Value(),
		"timeouts":  metrics.timeouts.With(hookspec.SourcePlugin, "slow", hooknames.PreToolCall).Value() + 1,
	} {
		if c != 1 {
			t.Errorf("%s counted %v, want 1 (timeouts 0)", name, c)
		}
	}
}

// Warnings of a load are logged once per change, not at every reload.
func TestReloadWarnsOncePerChange(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"config.yaml":                "hooks:\n  on_session_start:\n    - command: /bin/true\n",
		"plugins/broken/plugin.yaml": "name: broken\ncolour: red\n",
		"plugins/broken/handler.lua": "function register(ctx) end",
	})
	e, logs := newEngine(t, home)
	count := func(s string) int { return strings.Count(logs.String(), s) }
	for range 5 {
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := count("shell hook not approved"); n != 1 {
		t.Errorf("unapproved shell hook warned %d times in 6 loads, want 1", n)
	}
	if n := count("colour"); n != 1 {
		t.Errorf("unknown manifest key warned %d times in 6 loads, want 1", n)
	}
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  on_session_start:\n    - command: /bin/false\n")
	e.Reload(context.Background())
	e.Reload(context.Background())
	if n := count("shell hook not approved"); n != 2 {
		t.Errorf("after a change: warned %d times, want 2", n)
	}
}

// Close meets 64 tool calls of a guard with one Lua state: one stuck in a loop, 63 waiting
// behind it. At Close's deadline every one of them ends, blocked, and no tool runs.
func TestCloseEndsCallsWaitingBehindAStuckHook(t *testing.T) {
	home := testutil.Home(t, pluginFiles("guard", "states: 1\nbusy_timeout: 60\ntimeout: 60\n",
		one("pre_tool_call", `if kw.args.command == "stuck" then require("hermes").started() while true do end end`)))
	started := make(chan struct{}, 64)
	e, err := New(context.Background(), Options{Home: home, HostFuncs: map[string]hookspec.Func{
		"started": func(context.Context, []any) (any, error) { started <- struct{}{}; return nil, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int32
	tool := func(context.Context, hookspec.ToolCall) (string, error) { ran.Add(1); return "ran", nil }
	runs := make(chan ToolRun, 64)
	go func() {
		runs <- e.RunTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "stuck"}}, tool)
	}()
	<-started
	for range 63 {
		go func() {
			runs <- e.RunTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}, tool)
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := e.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want its deadline passed", err)
	}
	for range 64 {
		if run := <-runs; run.Block == nil || !strings.Contains(run.Block.Message, "hook engine closed") {
			t.Errorf("a call during Close: %+v, want it blocked as the engine closed", run)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("%d tools ran during Close", n)
	}
	if n := len(started); n != 0 {
		t.Errorf("%d waiting calls ran the hook on the closing engine", n)
	}
}

// An inbound message whose pre_gateway_dispatch hook Close ended (stuck, or waiting behind
// the stuck one) is skipped, never let through.
func TestCloseSkipsMessagesWhoseGuardItEnded(t *testing.T) {
	home := testutil.Home(t, pluginFiles("gate", "states: 1\nmax_states: 1\nbusy_timeout: 60\ntimeout: 60\n",
		one("pre_gateway_dispatch", `if kw.event.text == "stuck" then require("hermes").started() while true do end end`)))
	started := make(chan struct{}, 8)
	e, err := New(context.Background(), Options{Home: home, HostFuncs: map[string]hookspec.Func{
		"started": func(context.Context, []any) (any, error) { started <- struct{}{}; return nil, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	ds := make(chan Dispatch, 4)
	go func() {
		ds <- e.PreGatewayDispatch(context.Background(), hookspec.DispatchEvent{Text: "stuck"}, DispatchHost{})
	}()
	<-started
	for range 3 {
		go func() {
			ds <- e.PreGatewayDispatch(context.Background(), hookspec.DispatchEvent{Text: "hi"}, DispatchHost{})
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	e.Close(ctx)
	for range 4 {
		if d := <-ds; d.Action != DispatchSkip {
			t.Errorf("a message during Close: %+v, want it skipped", d)
		}
	}
}
