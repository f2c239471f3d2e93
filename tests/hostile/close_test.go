//go:build unix

package hostile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

// pathological never ends on its own in a lifetime: a Lua pattern that backtracks over
// 5,000 characters. It says when it starts through hermes.started, a host function.
const pathological = `require("hermes").started() return string.find(string.rep("a", 5000), "a-a-a-b")`

// TestCloseReturnsByItsDeadline: a gateway hook and a plugin stuck in one library call do
// not hold Gateway.Close and Engine.Close past their contexts' deadlines.
func TestCloseReturnsByItsDeadline(t *testing.T) {
	home := t.TempDir()
	for rel, content := range map[string]string{
		"hooks/stuck/HOOK.yaml":     "name: stuck\nevents: [agent:start]\ntimeout: 300\n",
		"hooks/stuck/handler.lua":   "function handle(event, context)\n" + pathological + "\nend\n",
		"plugins/stuck/plugin.yaml": "name: stuck\ntimeout: 300\n",
		"plugins/stuck/handler.lua": hook(pathological),
	} {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan struct{}, 2)
	signal := func(context.Context, []any) (any, error) { started <- struct{}{}; return nil, nil }
	ctx := context.Background()
	gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: home, HostFuncs: map[string]hookspec.Func{"started": signal}}, HostFuncs: map[string]hookspec.Func{"started": signal}})
	if err != nil {
		t.Fatal(err)
	}
	eng := gw.Engine()
	gw.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:start", Data: map[string]any{"message": "hi"}})
	callCtx, cancelCall := context.WithCancel(ctx)
	callDone := make(chan struct{})
	go func() {
		defer close(callDone)
		eng.DecideTool(callCtx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}})
	}()
	<-started
	<-started

	for name, closeFn := range map[string]func(context.Context) error{"gateway": gw.Close, "engine": eng.Close} {
		deadline, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		start := time.Now()
		_ = closeFn(deadline)
		cancel()
		if took := time.Since(start); took > 1200*time.Millisecond {
			t.Errorf("%s.Close took %s with a 200ms deadline", name, took)
		}
	}
	// The host cancelling its call reaches the pattern matcher too.
	start := time.Now()
	cancelCall()
	<-callDone
	if took := time.Since(start); took > time.Second {
		t.Errorf("a cancelled call took %s to return", took)
	}
}
