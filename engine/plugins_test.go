package engine

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// order returns the names of the plugins whose pre_tool_call callbacks ran, in order.
func order(t *testing.T, e *Engine) []string {
	t.Helper()
	var names []string
	for _, r := range e.Fire(context.Background(), hookspec.PreToolCall, call.Kwargs(false)).Hooks {
		names = append(names, r.Name)
	}
	return names
}

func TestDiscoveryOrder(t *testing.T) {
	files := testutil.Merge(
		pluginFiles("charlie", "", one("pre_tool_call", "")),
		pluginFiles("alpha", "", one("pre_tool_call", "")),
		pluginFiles("bravo", "", one("pre_tool_call", "")),
	)
	e, _ := newEngine(t, testutil.Home(t, files))
	if diff := cmp.Diff([]string{"alpha", "bravo", "charlie"}, order(t, e)); diff != "" {
		t.Errorf("alphabetical order (-want +got):\n%s", diff)
	}
	files = testutil.Merge(files,
		pluginFiles("charlie", "priority: 10", one("pre_tool_call", "")),
		pluginFiles("delta", "priority: -1", one("pre_tool_call", "")),
		pluginFiles("bravo", "priority: 10", one("pre_tool_call", "")))
	e, _ = newEngine(t, testutil.Home(t, files))
	if diff := cmp.Diff([]string{"bravo", "charlie", "alpha", "delta"}, order(t, e)); diff != "" {
		t.Errorf("priority order (-want +got):\n%s", diff)
	}
}

func TestRegistrationOrderWithinPlugin(t *testing.T) {
	e, _ := newEngine(t, testutil.Home(t, pluginFiles("p", "", `function register(ctx)
  ctx.register_hook("pre_llm_call", function() return "first" end)
  ctx.register_hook("pre_llm_call", function() return "second" end)
end`)))
	if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "first\n\nsecond" {
		t.Errorf("got %q", got)
	}
}

func TestDisabledPlugins(t *testing.T) {
	files := testutil.Merge(
		pluginFiles("off", "enabled: false", one("pre_tool_call", "")),
		pluginFiles("cfgoff", "", one("pre_tool_call", "")),
		pluginFiles("on", "", one("pre_tool_call", "")),
		map[string]string{"config.yaml": "model: gpt-4\nplugins:\n  disabled: [cfgoff]\n"},
	)
	e, _ := newEngine(t, testutil.Home(t, files))
	if diff := cmp.Diff([]string{"on"}, order(t, e)); diff != "" {
		t.Errorf("running plugins (-want +got):\n%s", diff)
	}
	status := map[string]string{}
	for _, p := range e.Plugins() {
		status[p.Name] = p.Status
	}
	if diff := cmp.Diff(map[string]string{"off": "disabled", "cfgoff": "disabled", "on": "loaded"}, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

func TestBrokenPluginsAreReportedAndOthersLoad(t *testing.T) {
	files := testutil.Merge(
		pluginFiles("good", "", one("pre_tool_call", "")),
		map[string]string{
			"plugins/badyaml/plugin.yaml":    "name: badyaml\npriority: [1,\n",
			"plugins/badyaml/handler.lua":    one("pre_tool_call", ""),
			"plugins/notmap/plugin.yaml":     "- a\n- b\n",
			"plugins/notmap/handler.lua":     one("pre_tool_call", ""),
			"plugins/badtype/plugin.yaml":    "name: badtype\npriority: high\n",
			"plugins/badtype/handler.lua":    one("pre_tool_call", ""),
			"plugins/nomanifest/handler.lua": one("pre_tool_call", ""),
			"plugins/nohandler/plugin.yaml":  "name: nohandler\n",
		},
		pluginFiles("syntax", "", "function register(ctx)\n  ctx.register_hook('pre_tool_call', function() return 1 +  end)\nend"),
		pluginFiles("noregister", "", "x = 1"),
		pluginFiles("raises", "", "function register(ctx)\n\n  error('missing API key')\nend"),
		pluginFiles("unknownkey", "descripton: typo\n", one("pre_tool_call", "")),
		pluginFiles("unknownhook", "", "function register(ctx)\n  ctx.register_hook('pre_tools_call', function() end)\nend"),
	)
	home := testutil.Home(t, files)
	e, logs := newEngine(t, home)
	if diff := cmp.Diff([]string{"good", "unknownkey"}, order(t, e)); diff != "" {
		t.Errorf("running plugins (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		"plugins/badyaml/plugin.yaml:2: invalid YAML",
		"plugins/notmap/plugin.yaml:1: top level is not a mapping",
		"plugins/badtype/plugin.yaml:2: priority must be an integer",
		"plugins/nomanifest/plugin.yaml: missing plugin.yaml",
		"plugins/nohandler/handler.lua: missing handler.lua",
		"plugins/syntax/handler.lua:2: ",
		"plugins/noregister/handler.lua: no global function register(ctx)",
		"plugins/raises/handler.lua:3: error in register(ctx): missing API key",
		`plugins/unknownkey/plugin.yaml:2: unknown key "descripton" (ignored); did you mean "description"?`,
		`plugins/unknownhook/handler.lua:2: unknown hook "pre_tools_call" (did you mean "pre_tool_call"?)`,
	}
	var got []string
	for _, w := range e.Warnings() {
		got = append(got, strings.TrimPrefix(w.String(), home+"/"))
	}
	for _, want := range wantWarnings {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, want)
		}
		if !found {
			t.Errorf("no warning starting with %q in:\n%s", want, strings.Join(got, "\n"))
		}
		if loc, _, _ := strings.Cut(want, ": "); !strings.Contains(logs.String(), loc) {
			t.Errorf("warning %q not logged", want)
		}
	}
	for _, p := range e.Plugins() {
		if p.Name == "unknownhook" && (p.Status != "loaded" || p.Hooks[0] != "pre_tools_call") {
			t.Errorf("unknown hook name should be kept: %+v", p)
		}
	}
}

func TestInvalidConfigIsAnError(t *testing.T) {
	home := testutil.Home(t, map[string]string{"config.yaml": "plugins: [\n"})
	_, err := New(context.Background(), Options{Home: home})
	if err == nil || !strings.Contains(err.Error(), "config.yaml:") {
		t.Fatalf("err = %v, want an error naming config.yaml and the line", err)
	}
}

func TestTimeoutInterruptsAndNextCallbackRuns(t *testing.T) {
	before := runtime.NumGoroutine()
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("a_loop", "timeout: 0.2", one("pre_tool_call", "while true do end")),
		pluginFiles("b_next", "", one("pre_tool_call", `return {action="block", message="b ran"}`)),
	))
	e, _ := newEngine(t, home)
	start := time.Now()
	rep := e.Fire(context.Background(), hookspec.PreToolCall, call.Kwargs(false))
	if d := time.Since(start); d > 30*time.Second { // a loose bound: the loop never ends
		t.Errorf("took %v, want about 0.2s", d)
	}
	if rep.Hooks[0].Status != hookspec.StatusTimeout || !strings.Contains(rep.Hooks[0].Err, "timed out after 200ms") {
		t.Errorf("first hook: %+v, want timeout", rep.Hooks[0])
	}
	if diff := cmp.Diff(map[string]any{"action": "block", "message": "b ran"}, rep.Outcome); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	e.Close(context.Background())
	deadline := time.Now().Add(10 * time.Second) // polling: only a goroutine that never ends runs out
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("goroutines: %d before, %d after", before, n)
	}
}

func TestFailClosed(t *testing.T) {
	tests := []struct{ name, body, want, logged string }{
		{"error", `error("db down")`, `blocked: plugin "guard" failed closed (error)`, "handler.lua:3: db down"},
		{"timeout", `while true do end`, `blocked: plugin "guard" failed closed (timeout)`, "timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, logs := newEngine(t, testutil.Home(t, pluginFiles("guard", "fail_closed: true\ntimeout: 0.2", one("pre_tool_call", tt.body))))
			b := e.DecideTool(context.Background(), call).Block
			if b == nil || b.Message != tt.want {
				t.Errorf("block = %+v, want the message %q", b, tt.want)
			}
			if !strings.Contains(logs.String(), tt.logged) {
				t.Errorf("logs lack %q:\n%s", tt.logged, logs.String())
			}
		})
	}
	t.Run("ok result lets the call through", func(t *testing.T) {
		e, _ := newEngine(t, testutil.Home(t, pluginFiles("guard", "fail_closed: true", one("pre_tool_call", "return nil"))))
		if b := e.DecideTool(context.Background(), call).Block; b != nil {
			t.Errorf("blocked: %+v", b)
		}
	})
	t.Run("ignored on other hooks", func(t *testing.T) {
		e, _ := newEngine(t, testutil.Home(t, pluginFiles("guard", "fail_closed: true", `function register(ctx)
  ctx.register_hook("pre_tool_call", function() return nil end)
  ctx.register_hook("pre_llm_call", function() error("x") end)
end`)))
		if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "" {
			t.Errorf("context = %q", got)
		}
	})
}

// TestConcurrentPreToolCall: many goroutines get the same answers as one, with -race.
func TestConcurrentPreToolCall(t *testing.T) {
	for _, states := range []string{"states: 1", "states: 4"} {
		e, _ := newEngine(t, testutil.Home(t, testutil.Merge(
			pluginFiles("guard", states, one("pre_tool_call", `
if busy then error("state entered twice") end
busy = true
local blocked = kw.tool_name == "terminal" and string.find(kw.args.command, "rm -rf /", 1, true)
busy = false
if blocked then return {action="block", message="no " .. kw.tool_call_id} end`)),
		)))
		calls := []hookspec.ToolCall{
			{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}, ToolCallID: "1"},
			{Name: "terminal", Args: map[string]any{"command": "ls"}, ToolCallID: "2"},
			{Name: "web", Args: map[string]any{"command": "rm -rf /"}, ToolCallID: "3"},
		}
		want := make([]*Block, len(calls))
		for i, c := range calls {
			want[i] = e.DecideTool(context.Background(), c).Block
		}
		if want[0] == nil || want[1] != nil || want[2] != nil {
			t.Fatalf("sequential answers wrong: %+v", want)
		}
		var wg sync.WaitGroup
		errs := make(chan string, 100)
		for g := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 30 {
					k := (g + i) % len(calls)
					if got := e.DecideTool(context.Background(), calls[k]).Block; !cmp.Equal(got, want[k]) {
						errs <- cmp.Diff(want[k], got)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for d := range errs {
			t.Errorf("%s: concurrent answer differs:\n%s", states, d)
		}
	}
}

func TestReloadSwapsHooks(t *testing.T) {
	home := testutil.Home(t, pluginFiles("p", "", one("pre_llm_call", `return "v1"`)))
	e, _ := newEngine(t, home)
	if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "v1" {
		t.Fatalf("got %q", got)
	}
	writeFile(t, home+"/plugins/p/handler.lua", one("pre_llm_call", `return "v2"`))
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "v2" {
		t.Errorf("after reload got %q", got)
	}
	writeFile(t, home+"/config.yaml", "plugins: [")
	if err := e.Reload(context.Background()); err == nil {
		t.Error("reload of a broken config succeeded")
	}
	if got := e.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "v2" {
		t.Errorf("after failed reload got %q, want the old set", got)
	}
}

// A fail_closed block, which the model gets as the tool's result, says which hook failed and
// how, never where: no file of the host (a Lua error's file:line), no host of the network (a
// store error naming the Redis server). The operator's log has both.
func TestFailClosedBlockNamesNoFileOrHost(t *testing.T) {
	for _, c := range []struct {
		name, body, config string
		where              []string
	}{
		{"lua error", `local t = nil; return t.x`, "", []string{"handler.lua:3"}},
		{"store error", `require("store").incr("calls")`, "store: {url: \"redis://127.0.0.1:1/0\"}\n", []string{"handler.lua:3", "127.0.0.1:1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := pluginFiles("guard", "fail_closed: true\n", one("pre_tool_call", c.body))
			files["config.yaml"] = c.config
			home := testutil.Home(t, files)
			e, logs := newEngine(t, home)
			run := e.RunTool(context.Background(), call, func(context.Context, hookspec.ToolCall) (string, error) {
				t.Error("the tool ran")
				return "", nil
			})
			if want := errorResult(`blocked: plugin "guard" failed closed (error)`); run.Result != want {
				t.Errorf("result %s, want %s", run.Result, want)
			}
			for _, w := range append(c.where, home) {
				if strings.Contains(run.Result, w) {
					t.Errorf("the model is told %q: %s", w, run.Result)
				}
			}
			for _, w := range c.where {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("the log does not say %q:\n%s", w, logs.String())
				}
			}
		})
	}
}
