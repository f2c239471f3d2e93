package hookspec

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A message reads back as itself from its table and from its JSON, the host API's other
// keys (and a content given as blocks) kept as they are.
func TestMessageRoundTrip(t *testing.T) {
	t.Parallel()
	blocks := []any{map[string]any{"type": "text", "text": "hi"}}
	for _, m := range []Message{
		{Role: "user", Content: "hi"},
		{Role: "assistant", ToolCalls: []ToolCall{{ToolCallID: "c1", Name: "terminal", Args: map[string]any{"command": "ls"}}}},
		{Role: "tool", ToolCallID: "c1", Content: "a b", Extra: map[string]any{"name": "terminal"}},
		{Role: "user", Extra: map[string]any{"content": blocks, "cache_control": map[string]any{"type": "ephemeral"}}},
	} {
		got, err := MessageFrom(m.Table())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("from its table (-want +got):\n%s", diff)
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Message
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		// JSON gives back its own types: the blocks and the args come back as JSON decodes them.
		if diff := cmp.Diff(m, back); diff != "" {
			t.Errorf("from its JSON %s (-want +got):\n%s", data, diff)
		}
	}
}

// Hooks see the typed fields under the API's keys, tool calls as {id, name, args}, and no
// tool_calls or tool_call_id key on a message that has none.
func TestMessageTable(t *testing.T) {
	t.Parallel()
	got := Message{Role: "assistant", Content: "ok", ToolCalls: []ToolCall{{ToolCallID: "c1", Name: "read_file"}},
		Extra: map[string]any{"tool_call_id": "stale", "role": "system"}}.Table()
	want := map[string]any{"role": "assistant", "content": "ok",
		"tool_calls": []any{map[string]any{"id": "c1", "name": "read_file", "args": map[string]any{}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
