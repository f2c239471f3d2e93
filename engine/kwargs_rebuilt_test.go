package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// helperGuard blocks rm -rf / through a local helper that reads a local assigned after the
// helper captured it.
const helperGuard = `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local args
    local function bad() return string.find(args.command or "", "rm -rf /", 1, true) end
    args = kw.args
    if kw.tool_name == "terminal" and bad() then return {action = "block", message = "no"} end
  end)
end
`

// A callback whose kwargs a closure can reach gets new tables for every call, sees every
// call whole, and the plugin list names it and says why (what `plugins list --json` and
// `hooks doctor` show). The retired reuse_kwargs key loads with a warning.
func TestKwargsRebuiltForCapturedHelpers(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("guard", "reuse_kwargs: true\n", helperGuard),
		pluginFiles("reader", "", one("pre_tool_call", `return kw.tool_name == "x" and {action = "block", message = "x"} or nil`)),
	))
	e, _ := newEngine(t, home)
	ctx := context.Background()
	for i, c := range []struct {
		cmd     string
		blocked bool
	}{{"rm -rf /", true}, {"ls", false}, {"sudo rm -rf / --no-preserve-root", true}, {"rm -r ./build", false}, {"rm -rf /", true}} {
		blk := e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": c.cmd}, TaskID: "t", ToolCallID: "c"}).Block
		if (blk != nil) != c.blocked {
			t.Errorf("call %d (%s): block = %+v, want blocked = %v", i+1, c.cmd, blk, c.blocked)
		}
	}
	rebuilt := map[string][]string{}
	for _, p := range e.Plugins() {
		if p.Status != "loaded" {
			t.Fatalf("plugin %s: %s %s", p.Name, p.Status, p.Error)
		}
		rebuilt[p.Name] = p.KwargsRebuilt
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "reuse_kwargs") {
			t.Errorf("plugin %s lists reuse_kwargs: %s", p.Name, b)
		}
	}
	want := map[string][]string{
		"guard":  {"pre_tool_call at handler.lua:2: line 5: kw.args is captured by a closure (the closure at line 4 captures args)"},
		"reader": nil,
	}
	if diff := cmp.Diff(want, rebuilt); diff != "" {
		t.Errorf("kwargs_rebuilt (-want +got):\n%s", diff)
	}
	var warns []string
	for _, w := range e.Warnings() {
		warns = append(warns, strings.TrimPrefix(w.String(), home+"/"))
	}
	wantWarn := "plugins/guard/plugin.yaml:2: reuse_kwargs is no longer used: kwargs tables are reused automatically when the callback cannot tell (remove the key)"
	if diff := cmp.Diff([]string{wantWarn}, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
