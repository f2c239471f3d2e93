package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// chainKind is one wrap hook for the tests of the chain's rules: the Lua that reads and
// makes its values, and one call through RunTool or RunLLM.
type chainKind struct {
	hook string
	what string // what next takes, as its errors name it
	key  string // the key of an answer table that a misspelling misses
	// runsKey is the key of the report's outcome that counts the runs of the call.
	runsKey string
	// lua defines, for a callback's body: text(r), the text of what next returned;
	// answer(s), an answer whose text is s; input(s), a table for next whose input reads s;
	// misspelled(s), answer(s) with key misspelled; seen(kw), the input a callback got.
	lua string
	run func(ctx context.Context, e *Engine, host *hostCall) chainRun
}

// chainRun is what the host saw of one call through a chain.
type chainRun struct {
	text   string // the result, or the response's content; "" when the call failed
	failed string // the call's error, or its block's message
	rep    *Report
}

// hostCall is the host's call in the tests of the chain: it records the input of every run
// ("ls" at first), answers "ran <input>", and fails its first fail runs with "disk full".
type hostCall struct {
	hostCfg
	onRun func(context.Context) // nil: nothing; else called with each run's context
	mu    sync.Mutex
	ran   []string
}

// hostCfg is how a hostCall behaves: its first fail runs fail, each run takes slow.
type hostCfg struct {
	fail int
	slow time.Duration
}

func (h *hostCall) do(ctx context.Context, input string) (string, error) {
	h.mu.Lock()
	h.ran = append(h.ran, input)
	n := len(h.ran)
	h.mu.Unlock()
	if h.onRun != nil {
		h.onRun(ctx)
	}
	if h.slow > 0 {
		select {
		case <-time.After(h.slow):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if n <= h.fail {
		return "", errors.New("disk full")
	}
	return "ran " + input, nil
}

// traced runs call under a trace that keeps the report of hook's chain.
func traced(ctx context.Context, hook string, call func(context.Context) chainRun) chainRun {
	var rep *Report
	r := call(WithTrace(ctx, func(r Report) {
		if r.Event.String() == hook {
			rep = &r
		}
	}))
	r.rep = rep
	return r
}

var chainKinds = []chainKind{{
	hook: "wrap_tool_call", what: "args", key: "result", runsKey: "runs",
	lua: `local function text(r) return r end
local function answer(s) return s end
local function input(s) return {command = s} end
local function misspelled(s) return {reslt = s} end
local function seen(kw) return kw.args.command end`,
	run: func(ctx context.Context, e *Engine, host *hostCall) chainRun {
		return traced(ctx, "wrap_tool_call", func(ctx context.Context) chainRun {
			run := e.RunTool(ctx, hookspec.ToolCall{Name: "shell", Args: map[string]any{"command": "ls"}, SessionID: "s1"},
				func(ctx context.Context, c hookspec.ToolCall) (string, error) {
					return host.do(ctx, fmt.Sprint(c.Args["command"]))
				})
			switch {
			case run.Block != nil:
				return chainRun{failed: run.Block.Message}
			case run.Err != nil:
				return chainRun{failed: run.Err.Error()}
			}
			return chainRun{text: run.Result}
		})
	},
}, {
	hook: "wrap_llm_call", what: "request", key: "content", runsKey: "calls",
	lua: `local function text(r) return r.content end
local function answer(s) return {content = s} end
local function input(s) return {model = s} end
local function misspelled(s) return {contnt = s} end
local function seen(kw) return kw.model end`,
	run: func(ctx context.Context, e *Engine, host *hostCall) chainRun {
		return traced(ctx, "wrap_llm_call", func(ctx context.Context) chainRun {
			run := e.RunLLM(ctx, hookspec.LLMRequest{Model: "ls", SessionID: "s1"},
				func(ctx context.Context, r hookspec.LLMRequest) (hookspec.LLMResponse, error) {
					s, err := host.do(ctx, r.Model)
					return hookspec.LLMResponse{Content: s}, err
				})
			if run.Err != nil {
				return chainRun{failed: run.Err.Error()}
			}
			return chainRun{text: run.Response.Content}
		})
	},
}}

// chainPlugin is a plugin with one wrap callback of k whose body is body.
func (k chainKind) plugin(name, manifest, body string) map[string]string {
	return pluginFiles(name, manifest, k.lua+"\nfunction register(ctx)\n  ctx.register_hook(\""+k.hook+
		"\", function(kw, next)\n"+body+"\n  end)\nend\n")
}

// chainHook is one callback as a chain's report should show it.
type chainHook struct {
	status hookspec.Status
	nexts  int
	err    string // a part of its error; "{hook}", "{what}" and "{key}" stand for the kind's
}

// chainPlug is one plugin of a chain: its name, manifest and callback body.
type chainPlug struct{ name, manifest, body string }

// The rules of a wrap chain, the same for wrap_tool_call and wrap_llm_call (wrap.go):
// the order of the onion, zero, one and many calls of next, what next takes, errors raised
// inside and around next, what a callback's answer or failure makes of the call, and the
// timeouts (the hook's own, not the call's; the host's context over the whole).
func TestWrapChainRules(t *testing.T) {
	const fast = "timeout: 0.1\n"
	outer := chainPlug{"outer", "priority: 10\n", `return answer("outer(" .. text(next()) .. ")")`}
	tests := []struct {
		name   string
		only   string // the one hook the rule is for; "" for both
		plugs  []chainPlug
		host   hostCfg
		ctx    func(context.Context) (context.Context, context.CancelFunc)
		text   string      // what the host got; "" when the call failed
		failed string      // a part of the call's error or block; "" for none
		ran    []string    // the input of every run of the host's call
		hooks  []chainHook // the chain's report, in the order entered
	}{
		{name: "onion: outermost first", plugs: []chainPlug{outer, {"inner", "", `return answer("inner(" .. text(next()) .. ")")`}},
			text: "outer(inner(ran ls))", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}, {hookspec.StatusOK, 1, ""}}},
		{name: "zero nexts: answered from a cache", plugs: []chainPlug{{"cache", "", `return answer("cached")`}},
			text: "cached", hooks: []chainHook{{hookspec.StatusOK, 0, ""}}},
		{name: "one next, input changed", plugs: []chainPlug{{"w", "", `return next(input("big"))`}},
			text: "ran big", ran: []string{"big"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}}},
		{name: "an inner hook sees the input an outer one changed", plugs: []chainPlug{{"outer", "priority: 10\n", `return next(input("big"))`}, {"inner", "", `return next(input(seen(kw) .. "+"))`}},
			text: "ran big+", ran: []string{"big+"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}, {hookspec.StatusOK, 1, ""}}},
		{name: "many nexts: a retry until it works", host: hostCfg{fail: 2}, plugs: []chainPlug{{"retry", "", `
    local err
    for i = 1, 5 do
      local ok, res = pcall(next)
      if ok then return res end
      err = res
    end
    error(err)`}},
			text: "ran ls", ran: []string{"ls", "ls", "ls"}, hooks: []chainHook{{hookspec.StatusOK, 3, ""}}},
		{name: "an error inside next is the call's", host: hostCfg{fail: 9}, plugs: []chainPlug{{"w", "", `return next()`}},
			failed: "disk full", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}}},
		{name: "an error inside next caught and answered", host: hostCfg{fail: 9}, plugs: []chainPlug{{"w", "", `local ok, err = pcall(next); return answer("fallback: " .. err)`}},
			text: "fallback: disk full", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}}},
		{name: "an error before next: the hook is skipped", plugs: []chainPlug{outer, {"buggy", "", `error("bug")`}},
			text: "outer(ran ls)", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}, {hookspec.StatusError, 0, "bug"}}},
		{name: "an error after next: its result stands", plugs: []chainPlug{{"w", "", `next(); error("after")`}},
			text: "ran ls", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusError, 1, "after"}}},
		{name: "fail_closed: an error before next blocks", plugs: []chainPlug{{"strict", "fail_closed: true\n", `error("bug")`}},
			failed: `blocked: plugin "strict" failed closed (error)`, hooks: []chainHook{{hookspec.StatusError, 0, "bug"}}},
		{name: "fail_closed: an error after next does not block", plugs: []chainPlug{{"strict", "fail_closed: true\n", `next(); error("after")`}},
			text: "ran ls", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusError, 1, "after"}}},
		{name: "nothing returned without next: skipped and reported", plugs: []chainPlug{{"w", "", `local x = 1`}},
			text: "ran ls", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusError, 0, "returned nothing and never called next"}}},
		{name: "nothing returned after next: next's result", plugs: []chainPlug{{"w", "", `next()`}},
			text: "ran ls", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}}},
		{name: "nothing returned after nexts: the last next's result", host: hostCfg{fail: 1}, plugs: []chainPlug{{"w", "", `pcall(next, input("one")); next(input("two"))`}},
			text: "ran two", ran: []string{"one", "two"}, hooks: []chainHook{{hookspec.StatusOK, 2, ""}}},
		{name: "next with an input that is not a table: the hook's mistake, skipped", plugs: []chainPlug{{"w", "", `return next("ls")`}},
			text: "ran ls", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusError, 0, `{hook}: next({what}): expected a table of {what}, not "ls"`}}},
		{name: "next with a table that is no input: the hook's mistake, named, skipped", only: "wrap_llm_call", plugs: []chainPlug{{"w", "", `return next({modle = "x"})`}},
			text: "ran ls", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusError, 0, `{hook}: next({what}): request key "modle" is not one of`}}},
		{name: "a retry that never gives up stops at maxNexts", host: hostCfg{fail: 1000},
			plugs:  []chainPlug{{"w", "", `while true do local ok, err = pcall(next); if not ok and string.find(err, "more than") then error(err, 0) end end`}},
			failed: "disk full", ran: repeat("ls", maxNexts), hooks: []chainHook{{hookspec.StatusError, maxNexts, "{hook}: next called more than 32 times"}}},
		{name: "an error answer without next", plugs: []chainPlug{{"w", "", `return {error = "offline"}`}},
			failed: "offline", hooks: []chainHook{{hookspec.StatusOK, 0, ""}}},
		{name: "a misspelled answer is reported, next's result stands", plugs: []chainPlug{{"w", "", `next(); return misspelled("x")`}},
			text: "ran ls", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusError, 1, `did you mean "{key}"`}}},
		{name: "the hook's own timeout: skipped", plugs: []chainPlug{outer, {"spin", fast, `while true do end`}},
			text: "outer(ran ls)", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}, {hookspec.StatusTimeout, 0, "timed out"}}},
		{name: "a call slower than the hook's timeout", host: hostCfg{slow: 400 * time.Millisecond}, plugs: []chainPlug{{"w", fast, `return answer("w(" .. text(next()) .. ")")`}},
			text: "w(ran ls)", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusOK, 1, ""}}},
		{name: "the host's context bounds the whole call", host: hostCfg{slow: time.Hour},
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 50*time.Millisecond)
			},
			plugs:  []chainPlug{{"w", "timeout: 60\n", `return next()`}},
			failed: "deadline exceeded", ran: []string{"ls"}, hooks: []chainHook{{hookspec.StatusCancelled, 1, ""}}},
	}
	for _, k := range chainKinds {
		for _, tt := range tests {
			if tt.only != "" && tt.only != k.hook {
				continue
			}
			t.Run(k.hook+"/"+tt.name, func(t *testing.T) {
				home := map[string]string{}
				for _, p := range tt.plugs {
					home = files(home, k.plugin(p.name, p.manifest, p.body))
				}
				e, _ := newEngine(t, testutil.Home(t, home))
				ctx, cancel := context.WithCancel(context.Background())
				if tt.ctx != nil {
					ctx, cancel = tt.ctx(ctx)
				}
				defer cancel()
				host := &hostCall{hostCfg: tt.host}
				run := k.run(ctx, e, host)
				k.check(t, run, host.ran, tt.text, tt.failed, tt.ran, tt.hooks)
			})
		}
	}
}

// check compares what a call through k's chain gave with what the test wants.
func (k chainKind) check(t *testing.T, run chainRun, ran []string, text, failed string, wantRan []string, hooks []chainHook) {
	t.Helper()
	kind := strings.NewReplacer("{hook}", k.hook, "{what}", k.what, "{key}", k.key)
	if run.text != text || (run.failed == "") != (failed == "") || !strings.Contains(run.failed, failed) {
		t.Errorf("got %q, failed %q; want %q, failed %q", run.text, run.failed, text, failed)
	}
	if fmt.Sprint(ran) != fmt.Sprint(wantRan) {
		t.Errorf("the call ran with %v, want %v", ran, wantRan)
	}
	if run.rep == nil || len(run.rep.Hooks) != len(hooks) {
		t.Fatalf("chain report %+v, want %d hooks", run.rep, len(hooks))
	}
	out, _ := run.rep.Outcome.(map[string]any)
	if n, _ := out[k.runsKey].(int); n != len(wantRan) {
		t.Errorf("the report's outcome %v, want %d runs", run.rep.Outcome, len(wantRan))
	}
	for i, w := range hooks {
		h := run.rep.Hooks[i]
		if h.Status != w.status || h.Nexts == nil || *h.Nexts != w.nexts || !strings.Contains(h.Err, kind.Replace(w.err)) {
			t.Errorf("hook %d (%s): status %s, nexts %v, err %q; want %s, %d, %q", i, h.Name, h.Status, deref(h.Nexts), h.Err, w.status, w.nexts, kind.Replace(w.err))
		}
	}
}
