package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// memory: in plugin.yaml and HOOK.yaml sets what each Lua state of the hook may hold; a
// hook under it is untouched by one over it, and a value that is not a size is an error
// located in the manifest.
func TestMemoryKey(t *testing.T) {
	const keep32 = `keep = {} for i = 1, 32 do keep[i] = string.rep("x", 2^20) .. i end`
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("a_small", "memory: 16MiB\n", one("pre_tool_call", keep32)),
		// Building 32 MiB of strings may take seconds on a busy machine under -race: the hooks
		// under their limit have time for it.
		pluginFiles("b_default", "timeout: 60\n", one("pre_tool_call", keep32)),
		pluginFiles("c_bytes", "memory: 67108864\ntimeout: 60\n", one("pre_tool_call", keep32)),
		pluginFiles("d_bad", "memory: 64MB\n", one("pre_tool_call", "")),
		map[string]string{
			"hooks/h/HOOK.yaml":   "events: [agent:start]\nmemory: 8 MiB\n",
			"hooks/h/handler.lua": "function handle(event_type, context) end\n",
		},
	))
	e, _ := newEngine(t, home)
	want := map[string]int64{"a_small": 16 << 20, "b_default": 256 << 20, "c_bytes": 64 << 20}
	for _, p := range e.Plugins() {
		if w, ok := want[p.Name]; ok && (p.Memory != w || p.Status != "loaded") {
			t.Errorf("%s: memory %d (%s), want %d", p.Name, p.Memory, p.Status, w)
		}
		if p.Name == "d_bad" && (p.Status != "error" || !strings.Contains(p.Error, "plugin.yaml:2: memory must be a size such as 64MiB")) {
			t.Errorf("d_bad: %s %q, want an error at plugin.yaml:2", p.Status, p.Error)
		}
	}
	rep := e.Fire(context.Background(), hookspec.PreToolCall, call.Kwargs(false))
	seen := 0
	for _, h := range rep.Hooks {
		switch h.Name {
		case "a_small":
			if h.Status != hookspec.StatusError || !strings.Contains(h.Err, "limit exceeded: memory: ") || !strings.Contains(h.Err, "more than 16 MiB") {
				t.Errorf("a_small: %s %q, want the memory limit of 16 MiB", h.Status, h.Err)
			}
		case "b_default", "c_bytes":
			if h.Status != hookspec.StatusOK {
				t.Errorf("%s: %s %q, want ok", h.Name, h.Status, h.Err)
			}
		default:
			continue
		}
		seen++
	}
	if seen != 3 {
		t.Errorf("the report has %d of the 3 plugins: %+v", seen, rep.Hooks)
	}
	_, infos, _, err := e.loadGatewayHooks(context.Background(), gatewayhook.Options{}, nil)
	if err != nil || len(infos) != 1 || infos[0].Memory != 8<<20 || infos[0].Status != "loaded" {
		t.Errorf("gateway hook: %+v, %v; want loaded with 8 MiB", infos, err)
	}
}
