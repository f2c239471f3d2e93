package luabind

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// A message reaches Lua as its Table would: the same keys and values, whichever fields it
// has, and Extra's keys under the typed fields' names overridden or dropped as Table does.
func TestMessageToLuaIsItsTable(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	blocks := []any{map[string]any{"type": "text", "text": "hi"}}
	for _, m := range []hookspec.Message{
		{},
		{Role: "user", Content: "hi"},
		{Role: "assistant", ToolCalls: []hookspec.ToolCall{{ToolCallID: "c1", Name: "terminal", Args: map[string]any{"command": "ls"}}}},
		{Role: "tool", ToolCallID: "c1", Content: "a b", Extra: map[string]any{"name": "terminal"}},
		{Role: "user", Extra: map[string]any{"content": blocks, "cache_control": map[string]any{"type": "ephemeral"}}},
		{Role: "assistant", Content: "text wins", Extra: map[string]any{"content": blocks, "role": "system", "tool_calls": "stale", "tool_call_id": "stale"}},
	} {
		got, err := toGo(L, messageToLua(L, m))
		if err != nil {
			t.Fatal(err)
		}
		want, err := toGo(L, toLua(L, m.Table()))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v (-Table +direct):\n%s", m, diff)
		}
	}
}
