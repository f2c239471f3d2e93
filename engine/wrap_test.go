package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// wrapHandler registers one wrap callback for hook whose body (given kw and next) is body.
func wrapHandler(hook, body string) string {
	return "function register(ctx)\n  ctx.register_hook(\"" + hook + "\", function(kw, next)\n" + body + "\n  end)\nend\n"
}

// files merges plugin file maps into one home.
func files(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// toolScript is a host tool for the tests: it records the arguments of every run and
// answers by how many times it ran before.
type toolScript struct {
	toolCfg
	mu  sync.Mutex
	ran []map[string]any
}

// toolCfg is how a toolScript behaves.
type toolCfg struct {
	fail int // the first fail runs fail with "disk full"
	slow time.Duration
}

func (s *toolScript) run(ctx context.Context, call hookspec.ToolCall) (string, error) {
	s.mu.Lock()
	s.ran = append(s.ran, call.Args)
	n := len(s.ran)
	s.mu.Unlock()
	if s.slow > 0 {
		select { // the tool's own duration
		case <-time.After(s.slow):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if n <= s.fail {
		return "", errors.New("disk full")
	}
	return "tool", nil
}

// runWrappedTool runs one call through e and returns what RunTool gave and the report of
// the wrap chain (nil when it did not run).
func runWrappedTool(ctx context.Context, e *Engine, args map[string]any, tool *toolScript) (ToolRun, *Report) {
	var rep *Report
	ctx = WithTrace(ctx, func(r Report) {
		if r.Event == hookspec.WrapToolCall {
			rep = &r
		}
	})
	run := e.RunTool(ctx, hookspec.ToolCall{Name: "shell", Args: args, SessionID: "s1"}, tool.run)
	return run, rep
}

// What is wrap_tool_call's own in its chain (the rules both wrap hooks share are
// TestWrapChainRules'): pre_tool_call's decisions taken before the chain (a blocked call
// never reaches a wrap hook) and again on arguments a wrap hook changes, and how RunTool
// shows a chain's error or block (the result the model sees is {"error": message}).
func TestWrapToolChain(t *testing.T) {
	guard := pluginFiles("guard", "priority: 20\n", one("pre_tool_call", `
    if kw.args.command == "rm" then return {action="block", message="no rm"} end
    if kw.args.command == "dir" then return {action="modify", args={command="ls"}} end`))
	type hookWant struct {
		status hookspec.Status
		nexts  int
		err    string // a part of its error
	}
	tests := []struct {
		name    string
		home    map[string]string
		args    map[string]any
		tool    toolCfg
		ctx     func(context.Context) (context.Context, context.CancelFunc)
		result  string     // a part of the result the model sees
		ran     []string   // the command of every run of the tool
		hooks   []hookWant // the wrap chain's report, in the order entered; nil: it never ran
		blocked string     // a part of the block's message; "" for none
		err     string     // a part of the tool's error; "" for none
	}{
		{name: "an error inside next is the call's", tool: toolCfg{fail: 9},
			home:   pluginFiles("w", "", wrapHandler("wrap_tool_call", `return next()`)),
			result: `{"error":"disk full"}`, ran: []string{"ls"}, err: "disk full",
			hooks: []hookWant{{hookspec.StatusOK, 1, ""}}}, // the call's error passed on: not the hook's failure
		{name: "fail_closed: an error before next blocks", home: pluginFiles("strict", "fail_closed: true\n", wrapHandler("wrap_tool_call", `error("bug")`)),
			result: `{"error":"blocked: plugin \"strict\" failed closed (error)"}`, ran: nil, blocked: `plugin "strict" failed closed`, hooks: []hookWant{{hookspec.StatusError, 0, "bug"}}},
		{name: "an error answer without next", home: pluginFiles("w", "", wrapHandler("wrap_tool_call", `return {error = "offline"}`)),
			result: `{"error":"offline"}`, ran: nil, err: "offline", hooks: []hookWant{{hookspec.StatusOK, 0, ""}}},
		{name: "a blocked call never reaches a wrap hook", home: files(guard, pluginFiles("w", "", wrapHandler("wrap_tool_call", `return "reached"`))),
			args: map[string]any{"command": "rm"}, result: "no rm", ran: nil, blocked: "no rm", hooks: nil},
		{name: "changed arguments a guard blocks are blocked", home: files(guard, pluginFiles("w", "", wrapHandler("wrap_tool_call", `return next({command = "rm"})`))),
			result: "no rm", ran: nil, blocked: "no rm", hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "a wrap hook catching the block still cannot run them", home: files(guard, pluginFiles("w", "", wrapHandler("wrap_tool_call", `local ok, err = pcall(next, {command = "rm"}); return "caught: " .. err`))),
			result: "caught: no rm", ran: nil, hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "changed arguments a guard rewrites run rewritten", home: files(guard, pluginFiles("w", "", wrapHandler("wrap_tool_call", `return next({command = "dir"})`))),
			result: "tool", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newEngine(t, testutil.Home(t, tt.home))
			ctx, cancel := context.WithCancel(context.Background())
			if tt.ctx != nil {
				ctx, cancel = tt.ctx(ctx)
			}
			defer cancel()
			args := tt.args
			if args == nil {
				args = map[string]any{"command": "ls"}
			}
			tool := &toolScript{toolCfg: tt.tool}
			run, rep := runWrappedTool(ctx, e, args, tool)
			if !strings.Contains(run.Result, tt.result) {
				t.Errorf("result %q, want it to hold %q", run.Result, tt.result)
			}
			var ran []string
			for _, a := range tool.ran {
				ran = append(ran, fmt.Sprint(a["command"]))
			}
			if fmt.Sprint(ran) != fmt.Sprint(tt.ran) {
				t.Errorf("the tool ran with %v, want %v", ran, tt.ran)
			}
			if (run.Block != nil) != (tt.blocked != "") || run.Block != nil && !strings.Contains(run.Block.Message, tt.blocked) {
				t.Errorf("block %+v, want %q", run.Block, tt.blocked)
			}
			if (run.Err != nil) != (tt.err != "") || run.Err != nil && !strings.Contains(run.Err.Error(), tt.err) {
				t.Errorf("err %v, want %q", run.Err, tt.err)
			}
			if tt.hooks == nil {
				if rep != nil {
					t.Fatalf("the wrap chain ran: %+v", rep.Hooks)
				}
				return
			}
			if rep == nil || len(rep.Hooks) != len(tt.hooks) {
				t.Fatalf("wrap report %+v, want %d hooks", rep, len(tt.hooks))
			}
			for i, w := range tt.hooks {
				h := rep.Hooks[i]
				if h.Status != w.status || h.Nexts == nil || *h.Nexts != w.nexts || !strings.Contains(h.Err, w.err) {
					t.Errorf("hook %d (%s): status %s, nexts %v, err %q; want %s, %d, %q", i, h.Name, h.Status, deref(h.Nexts), h.Err, w.status, w.nexts, w.err)
				}
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// A plugin that registers a wrap hook may have 64 states by default (its calls wait in next
// as long as the calls they wrap run), at least four times states; max_states in its
// manifest stands as given; a plugin without a wrap hook keeps four times states.
func TestWrapPluginMaxStates(t *testing.T) {
	home := testutil.Home(t, files(
		pluginFiles("wrap", "states: 1\n", wrapHandler("wrap_tool_call", `return next()`)),
		pluginFiles("wrapbig", "states: 20\n", wrapHandler("wrap_llm_call", `return next()`)),
		pluginFiles("wrapset", "states: 1\nmax_states: 2\n", wrapHandler("wrap_tool_call", `return next()`)),
		pluginFiles("guard", "states: 1\n", one("pre_tool_call", "")),
	))
	e, _ := newEngine(t, home)
	got := map[string]int{}
	for _, p := range e.Plugins() {
		got[p.Name] = p.MaxStates
	}
	want := map[string]int{"wrap": 64, "wrapbig": 80, "wrapset": 2, "guard": 4}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: max_states %d, want %d", name, got[name], n)
		}
	}
}

// A plugin that registers a wrap hook is loaded once: its top-level code and register(ctx)
// run once per Lua state, the first of which the load builds, as any plugin's.
func TestWrapPluginLoadsOnce(t *testing.T) {
	home := testutil.Home(t, pluginFiles("wrap", "states: 1\n", `require("hermes").loaded()
`+wrapHandler("wrap_tool_call", `return next()`)))
	var loads atomic.Int32
	e := engineWith(t, home, Options{HostFuncs: map[string]hookspec.Func{
		"loaded": func(context.Context, []any) (any, error) { loads.Add(1); return nil, nil }}})
	if n := loads.Load(); n != 1 {
		t.Errorf("the plugin's chunk ran %d times at load, want once", n)
	}
	if p := e.Plugins()[0]; p.MaxStates != 64 {
		t.Errorf("max_states %d, want 64", p.MaxStates)
	}
}
