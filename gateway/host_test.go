package gateway

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// One Host reloads, watches and closes an engine and its gateway together.
func TestHost(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		map[string]string{
			"plugins/p/plugin.yaml": "name: p\n",
			"plugins/p/handler.lua": `function register(ctx) ctx.register_hook("pre_llm_call", function() return "v1" end) end`,
		},
		hookFiles("g", "events: [agent:end]", counting("g")),
	))
	rec := &recorder{}
	ctx := context.Background()
	h, err := NewHost(ctx, HostOptions{Engine: engine.Options{Home: home, HostFuncs: rec.funcs()}, Gateway: Options{HostFuncs: rec.funcs()}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)

	reloaded := make(chan error, 8)
	watchCtx, stopWatch := context.WithCancel(ctx)
	watching := make(chan error)
	go func() { watching <- h.Watch(watchCtx, 20*time.Millisecond, func(_ []string, err error) { reloaded <- err }) }()
	for i := 1; ; i++ { // edit until the watcher, which starts asynchronously, sees an edit
		writeFileErr(filepath.Join(home, "plugins/p/handler.lua"),
			`function register(ctx) ctx.register_hook("pre_llm_call", function() return "v2" end) end -- `+strings.Repeat("x", i))
		select {
		case err := <-reloaded:
			if err != nil {
				t.Fatalf("reload: %v", err)
			}
		case <-time.After(time.Second):
			continue
		}
		break
	}
	stopWatch()
	if err := <-watching; err != nil {
		t.Fatal(err)
	}
	if got := h.Engine.PreLLMCall(ctx, engine.LLMTurn{}); got != "v2" {
		t.Errorf("after the watcher reloaded: %q, want v2", got)
	}

	for range 3 {
		h.Gateway.Emit(AgentEnd, map[string]any{"seq": 1})
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.get("g")); n != 3 {
		t.Errorf("%d of 3 queued events handled by Close", n)
	}
	if blk := h.Engine.PreToolCall(ctx, engine.ToolCall{Name: "terminal"}); blk == nil {
		t.Error("a closed host allowed a tool call")
	}
	h.Gateway.Emit(AgentEnd, nil)
	if rs := h.Gateway.EmitSync(ctx, AgentEnd, nil); len(rs) != 0 {
		t.Errorf("EmitSync after Close ran %v", rs)
	}
	if n := h.Gateway.Dropped()["g"]; n != 2 {
		t.Errorf("two events after Close: Dropped = %d, want 2", n)
	}
}
