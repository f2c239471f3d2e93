package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// editUntilReloaded writes src (and a comment that changes each time) to file until the
// watcher, which starts asynchronously, reports a reload on reloaded; a failed reload, or
// none after two minutes of edits, fails the test.
func editUntilReloaded(t *testing.T, reloaded <-chan error, file, src string) {
	t.Helper()
	for i := 1; i <= 120; i++ {
		writeFileErr(file, src+" -- "+strings.Repeat("x", i))
		select {
		case err := <-reloaded:
			if err != nil {
				t.Fatalf("reload: %v", err)
			}
			return
		case <-time.After(time.Second):
		}
	}
	t.Fatalf("no reload after two minutes of edits to %s", file)
}

// One Host reloads, watches and closes an engine and its gateway together.
func TestHost(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		map[string]string{
			"plugins/p/plugin.yaml": "name: p\n",
			"plugins/p/handler.lua": `function register(ctx) ctx.register_hook("pre_llm_call", function() return "v1" end) end`,
		},
		hookFiles("g", "events: [agent:end]", counting("g")),
	))
	rec := &testutil.Recorder{}
	ctx := context.Background()
	h, err := New(ctx, Options{Engine: engine.Options{Home: home, HostFuncs: recording(rec)}, HostFuncs: recording(rec)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)

	reloaded := make(chan error, 8)
	watchCtx, stopWatch := context.WithCancel(ctx)
	watching := make(chan error)
	go func() {
		watching <- h.Watch(watchCtx, 20*time.Millisecond, func(_ []string, err error) { reloaded <- err })
	}()
	editUntilReloaded(t, reloaded, filepath.Join(home, "plugins/p/handler.lua"),
		`function register(ctx) ctx.register_hook("pre_llm_call", function() return "v2" end) end`)
	stopWatch()
	if err := <-watching; err != nil {
		t.Fatal(err)
	}
	if got := h.Engine().DecideTurn(ctx, hookspec.LLMTurn{}).Context; got != "v2" {
		t.Errorf("after the watcher reloaded: %q, want v2", got)
	}

	for range 3 {
		h.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentEnd, Data: map[string]any{"seq": 1}})
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Get("g")); n != 3 {
		t.Errorf("%d of 3 queued events handled by Close", n)
	}
	if blk := h.Engine().DecideTool(ctx, hookspec.ToolCall{Name: "terminal"}).Block; blk == nil {
		t.Error("a closed host allowed a tool call")
	}
	h.Emit(context.Background(), hookspec.NamedEvent{Name: hookspec.AgentEnd, Data: nil})
	if rs := h.EmitSync(ctx, hookspec.NamedEvent{Name: hookspec.AgentEnd, Data: nil}); len(rs) != 0 {
		t.Errorf("EmitSync after Close ran %v", rs)
	}
	if n := h.Dropped()["g"]; n != 2 {
		t.Errorf("two events after Close: Dropped = %d, want 2", n)
	}
}

// A home renamed away under a watching host keeps its guards (the reload fails); a new home
// moved into place is watched and loaded.
func TestHostSurvivesHomeReplaced(t *testing.T) {
	guard := func(msg string) map[string]string {
		return map[string]string{
			"plugins/guard/plugin.yaml": "name: guard\n",
			"plugins/guard/handler.lua": `function register(ctx) ctx.register_hook("pre_tool_call", function() return {action = "block", message = "` + msg + `"} end) end`,
		}
	}
	home := filepath.Join(t.TempDir(), "home")
	testutil.WriteFiles(t, home, guard("old guard"))
	ctx := context.Background()
	h, err := New(ctx, Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	reloads := make(chan error, 64)
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	go h.Watch(watchCtx, 20*time.Millisecond, func(_ []string, err error) { reloads <- err })
	message := func() string {
		if blk := h.Engine().DecideTool(ctx, hookspec.ToolCall{Name: "x"}).Block; blk != nil {
			return blk.Message
		}
		return "allowed"
	}
	// The watcher starts asynchronously: touch the home until it reports.
	for i := 0; ; i++ {
		writeFileErr(filepath.Join(home, "notes.txt"), strings.Repeat("x", i))
		select {
		case <-reloads:
		case <-time.After(time.Second):
			continue
		}
		break
	}
	if err := os.Rename(home, home+".old"); err != nil {
		t.Fatal(err)
	}
	for err := error(nil); err == nil; { // reloads of the touches may still be queued
		select {
		case err = <-reloads:
		case <-time.After(10 * time.Second):
			t.Fatal("no failed reload reported for the vanished home")
		}
	}
	if got := message(); got != "old guard" {
		t.Fatalf("with the home gone: %q, want the old guard still", got)
	}
	testutil.WriteFiles(t, home+".new", guard("new guard"))
	if err := os.Rename(home+".new", home); err != nil {
		t.Fatal(err)
	}
	for got := ""; got != "new guard"; got = message() {
		select {
		case <-reloads:
		case <-time.After(10 * time.Second):
			t.Fatalf("the new home was not loaded: %q", got)
		}
	}
}

// Watch reloads when the managed home's gateway hooks change too: an edited managed hook
// answers with its new version.
func TestWatchReloadsTheManagedHome(t *testing.T) {
	managed := testutil.Home(t, hookFiles("audit", "events: [agent:end]", `function handle() return "v1" end`))
	home := testutil.Home(t, map[string]string{"config.yaml": ""})
	ctx := context.Background()
	g, _ := newGateway(t, home, Options{Engine: engine.Options{ManagedHome: managed}})
	reloaded := make(chan error, 8)
	watchCtx, stopWatch := context.WithCancel(ctx)
	watching := make(chan error)
	go func() {
		watching <- g.Watch(watchCtx, 20*time.Millisecond, func(_ []string, err error) { reloaded <- err })
	}()
	editUntilReloaded(t, reloaded, filepath.Join(managed, "hooks/audit/handler.lua"), `function handle() return "v2" end`)
	stopWatch()
	if err := <-watching; err != nil {
		t.Fatal(err)
	}
	rs := g.EmitSync(ctx, hookspec.NamedEvent{Name: hookspec.AgentEnd, Data: map[string]any{}})
	if len(rs) != 1 || rs[0].Result != "v2" {
		t.Errorf("after the managed hook's edit: %+v, want v2", rs)
	}
}
