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
		if r.Event == hookspec.WrapToolCall.String() {
			rep = &r
		}
	})
	run := e.RunTool(ctx, hookspec.ToolCall{Name: "shell", Args: args, SessionID: "s1"}, tool.run)
	return run, rep
}

// The wrap_tool_call chain, case by case: the order of the onion, zero, one and many calls
// of next, errors raised inside and around next, pre_tool_call's decisions taken before the
// chain (a blocked call never reaches a wrap hook) and again on arguments a wrap hook
// changes, and the timeouts (the wrap hook's own, not the wrapped tool's; the host's
// context over the whole).
func TestWrapToolChain(t *testing.T) {
	const fast = "timeout: 0.1\n"
	outer := pluginFiles("outer", "priority: 10\n", wrapHandler("wrap_tool_call", `return "outer(" .. next() .. ")"`))
	inner := pluginFiles("inner", "", wrapHandler("wrap_tool_call", `return "inner(" .. next() .. ")"`))
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
		{name: "onion: outermost first", home: files(outer, inner),
			result: "outer(inner(tool))", ran: []string{"ls"},
			hooks: []hookWant{{hookspec.StatusOK, 1, ""}, {hookspec.StatusOK, 1, ""}}},
		{name: "zero nexts: answered from a cache", home: pluginFiles("cache", "", wrapHandler("wrap_tool_call", `return "cached"`)),
			result: "cached", ran: nil, hooks: []hookWant{{hookspec.StatusOK, 0, ""}}},
		{name: "one next, arguments changed", home: pluginFiles("w", "", wrapHandler("wrap_tool_call", `return next({command = kw.args.command .. " -a"})`)),
			result: "tool", ran: []string{"ls -a"}, hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "many nexts: a retry until it works", tool: toolCfg{fail: 2},
			home: pluginFiles("retry", "", wrapHandler("wrap_tool_call", `
    local err
    for i = 1, 5 do
      local ok, res = pcall(next, kw.args)
      if ok then return res end
      err = res
    end
    error(err)`)),
			result: "tool", ran: []string{"ls", "ls", "ls"}, hooks: []hookWant{{hookspec.StatusOK, 3, ""}}},
		{name: "an error inside next is the call's", tool: toolCfg{fail: 9},
			home:   pluginFiles("w", "", wrapHandler("wrap_tool_call", `return next()`)),
			result: `{"error":"disk full"}`, ran: []string{"ls"}, err: "disk full",
			hooks: []hookWant{{hookspec.StatusOK, 1, ""}}}, // the call's error passed on: not the hook's failure
		{name: "an error inside next caught and answered", tool: toolCfg{fail: 9},
			home:   pluginFiles("w", "", wrapHandler("wrap_tool_call", `local ok, err = pcall(next); return "fallback: " .. err`)),
			result: "fallback: disk full", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "an error before next: the hook is skipped", home: files(outer, pluginFiles("buggy", "", wrapHandler("wrap_tool_call", `error("bug")`))),
			result: "outer(tool)", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusOK, 1, ""}, {hookspec.StatusError, 0, "bug"}}},
		{name: "an error after next: its result stands", home: pluginFiles("w", "", wrapHandler("wrap_tool_call", `next(); error("after")`)),
			result: "tool", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusError, 1, "after"}}},
		{name: "fail_closed: an error before next blocks", home: pluginFiles("strict", "fail_closed: true\n", wrapHandler("wrap_tool_call", `error("bug")`)),
			result: `{"error":"blocked: plugin \"strict\" failed closed (error)"}`, ran: nil, blocked: `plugin "strict" failed closed`, hooks: []hookWant{{hookspec.StatusError, 0, "bug"}}},
		{name: "nothing returned without next: skipped and reported", home: pluginFiles("w", "", wrapHandler("wrap_tool_call", `local x = 1`)),
			result: "tool", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusError, 0, "returned nothing and never called next"}}},
		{name: "nothing returned after next: next's result", home: pluginFiles("w", "", wrapHandler("wrap_tool_call", `next()`)),
			result: "tool", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "next with arguments that are not a table: the hook's mistake, skipped", home: pluginFiles("w", "", wrapHandler("wrap_tool_call", `return next("ls")`)),
			result: "tool", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusError, 0, `next(args): expected a table of args, not "ls"`}}},
		{name: "a retry that never gives up stops at maxNexts", tool: toolCfg{fail: 1000},
			home:   pluginFiles("w", "", wrapHandler("wrap_tool_call", `while true do local ok, err = pcall(next); if not ok and string.find(err, "more than") then error(err, 0) end end`)),
			result: "disk full", ran: repeat("ls", maxNexts), err: "disk full", hooks: []hookWant{{hookspec.StatusError, maxNexts, "next called more than 32 times"}}},
		{name: "an error answer without next", home: pluginFiles("w", "", wrapHandler("wrap_tool_call", `return {error = "offline"}`)),
			result: `{"error":"offline"}`, ran: nil, err: "offline", hooks: []hookWant{{hookspec.StatusOK, 0, ""}}},
		{name: "a misspelled answer is reported, next's result stands", home: pluginFiles("w", "", wrapHandler("wrap_tool_call", `next(); return {reslt = "x"}`)),
			result: "tool", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusError, 1, `did you mean "result" instead of "reslt"?`}}},
		{name: "a blocked call never reaches a wrap hook", home: files(guard, pluginFiles("w", "", wrapHandler("wrap_tool_call", `return "reached"`))),
			args: map[string]any{"command": "rm"}, result: "no rm", ran: nil, blocked: "no rm", hooks: nil},
		{name: "changed arguments a guard blocks are blocked", home: files(guard, pluginFiles("w", "", wrapHandler("wrap_tool_call", `return next({command = "rm"})`))),
			result: "no rm", ran: nil, blocked: "no rm", hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "a wrap hook catching the block still cannot run them", home: files(guard, pluginFiles("w", "", wrapHandler("wrap_tool_call", `local ok, err = pcall(next, {command = "rm"}); return "caught: " .. err`))),
			result: "caught: no rm", ran: nil, hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "changed arguments a guard rewrites run rewritten", home: files(guard, pluginFiles("w", "", wrapHandler("wrap_tool_call", `return next({command = "dir"})`))),
			result: "tool", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "the wrap hook's own timeout: skipped", home: files(outer, pluginFiles("spin", fast, wrapHandler("wrap_tool_call", `while true do end`))),
			result: "outer(tool)", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusOK, 1, ""}, {hookspec.StatusTimeout, 0, "timed out"}}},
		{name: "a tool slower than the wrap hook's timeout", tool: toolCfg{slow: 400 * time.Millisecond},
			home:   pluginFiles("w", fast, wrapHandler("wrap_tool_call", `return "w(" .. next() .. ")"`)),
			result: "w(tool)", ran: []string{"ls"}, hooks: []hookWant{{hookspec.StatusOK, 1, ""}}},
		{name: "the host's context bounds the whole call", tool: toolCfg{slow: time.Hour},
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 50*time.Millisecond)
			},
			home:   pluginFiles("w", "timeout: 60\n", wrapHandler("wrap_tool_call", `return next()`)),
			result: "deadline exceeded", ran: []string{"ls"}, err: "deadline exceeded", hooks: []hookWant{{hookspec.StatusCancelled, 1, ""}}},
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
