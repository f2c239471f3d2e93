package hostlua

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// stock are programs whose results tell upstream gopher-lua v1.1.2 from the engine's fork,
// with what upstream gives: the fork fixes the first three (PATCHES.md), and bounds a string
// built by `..` to 64 MiB where upstream builds whatever it is asked to.
var stock = []struct{ name, src, want string }{
	{"number format", `return tostring(0.1 + 0.2)`, "0.30000000000000004"},
	{"tonumber", `return tostring(tonumber("1e2"))`, "nil"},
	{"multiple assignment", `local last, before
for tok in ("a b c"):gmatch("%S+") do last, before = tok, last end
return last .. " " .. tostring(before)`, "c c"},
	{"a concatenation past 64 MiB", `local s = string.rep("x", 40 * 2^20) return tostring(#(s .. s))`, "83886080"},
}

func runStock(t *testing.T, src string) string {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(src); err != nil {
		t.Fatalf("upstream gopher-lua: %v", err)
	}
	return L.Get(-1).String()
}

// TestHostGopherLuaIsStock runs the programs on the host's own gopher-lua while an engine is
// loaded and has run a hook (so that everything the engine does at start-up and per call has
// happened), and checks that a hook in the engine gets Lua 5.1's answers meanwhile.
func TestHostGopherLuaIsStock(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "guard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: guard\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local last, before
    for tok in (kw.args.command or ""):gmatch("%S+") do last, before = tok, last end
    if before == "rm" then return { action = "block", message = tostring(0.1 + 0.2) } end
  end)
end
`), 0o644)
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)

	blk := eng.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm /"}}).Block
	if blk == nil || blk.Message != "0.3" {
		t.Fatalf("the engine's hook: got %+v, want a block with message 0.3 (Lua 5.1's answers)", blk)
	}
	for _, c := range stock {
		if got := runStock(t, c.src); got != c.want {
			t.Errorf("%s: the host's gopher-lua gives %q, upstream v1.1.2 gives %q", c.name, got, c.want)
		}
	}
	if blk := eng.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm /"}}).Block; blk == nil || blk.Message != "0.3" {
		t.Errorf("the engine's hook after the host's Lua ran: got %+v", blk)
	}
}
