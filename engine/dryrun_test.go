package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestDryRunChangesNothing: in a dry run the Lua hooks run, their store calls go to a
// scratch store that Close deletes, their http calls are refused (DryRunRefused tells the
// refusal from a fault), and shell hooks are not run.
func TestDryRunChangesNothing(t *testing.T) {
	handler := `local http, store = require("http"), require("store")
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) http.get("https://example.com/") end)
  ctx.register_hook("pre_llm_call", function(kw) return "seen " .. store.incr("n", 1) end)
  ctx.register_hook("post_llm_call", function(kw) error("broken") end)
end
`
	home := testutil.Home(t, pluginFiles("effects", "permissions:\n  net: [example.com]\n", handler))
	marker := filepath.Join(home, "shell-ran")
	hook := script(t, home, "observer.sh", "cat > "+marker)
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_tool_call:\n    - command: "+hook+"\n")
	ctx := context.Background()
	eng, err := New(ctx, Options{Home: home, IgnoreConsent: true, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	scratch := eng.scratch

	rep := eng.Fire(ctx, hookspec.PreToolCall, hookspec.SampleKwargs("pre_tool_call", home))
	if len(rep.Hooks) != 1 || !DryRunRefused(rep.Hooks[0]) || !strings.Contains(rep.Hooks[0].Err, "http.get") {
		t.Errorf("pre_tool_call = %+v, want the plugin's http call refused, and no shell hook", rep.Hooks)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the shell hook ran in a dry run")
	}
	for _, want := range []string{"seen 1", "seen 2"} {
		rep = eng.Fire(ctx, hookspec.PreLLMCall, hookspec.SampleKwargs("pre_llm_call", home))
		if got := rep.Context(); got != want {
			t.Errorf("pre_llm_call = %q, want %q: the scratch store keeps the count", got, want)
		}
	}
	rep = eng.Fire(ctx, hookspec.PostLLMCall, hookspec.SampleKwargs("post_llm_call", home))
	if len(rep.Hooks) != 1 || DryRunRefused(rep.Hooks[0]) || rep.Hooks[0].Status != hookspec.StatusError {
		t.Errorf("post_llm_call = %+v, want a fault of the hook, not a refusal", rep.Hooks)
	}

	if err := eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "state")); err == nil {
		t.Error("the dry run wrote the home's store")
	}
	if _, err := os.Stat(scratch); scratch == "" || err == nil {
		t.Errorf("scratch store %q is still there after Close", scratch)
	}
}
