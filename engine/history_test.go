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

// historyTurn is a turn after three messages, with nested values in them.
func historyTurn() hookspec.LLMTurn {
	return hookspec.LLMTurn{SessionID: "s", UserMessage: "and now?", Model: "gpt-4", Platform: "cli", SenderID: "u",
		ConversationHistory: []hookspec.Message{
			{Role: "user", Content: "list /tmp"},
			{Role: "assistant", ToolCalls: []hookspec.ToolCall{{Name: "terminal", Args: map[string]any{"command": "ls /tmp"}}}},
			{Role: "tool", Content: "a\nb", Extra: map[string]any{"tokens": 12}},
		}}
}

// firstTurn is a session's first turn: an empty history.
func firstTurn() hookspec.LLMTurn {
	return hookspec.LLMTurn{SessionID: "s", UserMessage: "hi", Model: "gpt-4", Platform: "cli", SenderID: "u", IsFirstTurn: true}
}

// asJSON is v through JSON, to compare what Lua encoded with what Go would.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	var s []byte
	switch x := v.(type) {
	case string:
		s = []byte(x)
	default:
		var err error
		if s, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var out any
	if err := json.Unmarshal(s, &out); err != nil {
		t.Fatalf("not JSON: %q: %v", s, err)
	}
	return out
}

// A handler that reads the conversation history sees all of it, whatever way it reads it
// and whatever the turns before held: length, ipairs, pairs, nested fields, types, and
// json.encode of the history or of the whole kwargs. Handlers that never read it are
// given nothing to convert, and must not change what the others see.
func TestHistoryReadByHandlers(t *testing.T) {
	turns := []hookspec.LLMTurn{historyTurn(), firstTurn(), historyTurn(), historyTurn()}
	for _, tt := range []struct {
		name, body string
		want       []string // per turn: a history turn, a first turn
	}{
		{"fields", `local h = kw.conversation_history
    return {context = #h .. "|" .. (h[1] and h[1].content or "-") .. "|" ..
      (h[2] and h[2].tool_calls[1].args.command or "-") .. "|" .. tostring(h[3] and h[3].tokens)}`,
			[]string{"3|list /tmp|ls /tmp|12", "0|-|-|nil"}},
		{"ipairs", `local r = {}
    for i, m in ipairs(kw.conversation_history) do r[#r + 1] = i .. "=" .. m.role end
    return {context = "[" .. table.concat(r, ",") .. "]"}`,
			[]string{"[1=user,2=assistant,3=tool]", "[]"}},
		{"pairs", `local keys = {}
    for k, m in pairs(kw.conversation_history) do keys[#keys + 1] = type(k) .. k .. type(m) end
    table.sort(keys)
    return {context = "[" .. table.concat(keys, ",") .. "]"}`,
			[]string{"[number1table,number2table,number3table]", "[]"}},
		{"types", `return {context = type(kw.conversation_history) .. "/" .. type(kw.conversation_history[1]) ..
      "/" .. type(kw.conversation_history[3] and kw.conversation_history[3].tokens)}`,
			[]string{"table/table/number", "table/nil/nil"}},
		{"first-turn-only", `if kw.is_first_turn then return {context = "first"} end
    return {context = "after " .. #kw.conversation_history}`,
			[]string{"after 3", "first"}},
		{"unread", `return {context = kw.model .. " on " .. kw.platform}`,
			[]string{"gpt-4 on cli", "gpt-4 on cli"}},
		{"passed-on", `local function count(t) return #t.conversation_history end
    return {context = "n=" .. count(kw)}`,
			[]string{"n=3", "n=0"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newEngine(t, testutil.Home(t, pluginFiles("h", "", one("pre_llm_call", tt.body))))
			for i, turn := range turns {
				want := tt.want[0]
				if turn.IsFirstTurn {
					want = tt.want[1]
				}
				if got := e.DecideTurn(context.Background(), turn).Context; got != want {
					t.Errorf("turn %d: context %q, want %q", i+1, got, want)
				}
			}
		})
	}

	// json.encode sees the history too, in the whole kwargs or alone; so does post_llm_call.
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("kw", "", one("pre_llm_call", `return {context = require("json").encode(kw)}`)),
		pluginFiles("post", "", `local json = require("json")
function register(ctx)
  ctx.register_hook("post_llm_call", function(kw) seen = json.encode(kw.conversation_history) end)
  ctx.register_hook("pre_tool_call", function(kw) return {action = "block", message = seen} end)
end
`)))
	e, _ := newEngine(t, home)
	ctx := context.Background()
	for i, turn := range turns {
		wantKw := asJSON(t, turn.PreKwargs()).(map[string]any)
		if len(turn.ConversationHistory) == 0 {
			wantKw["conversation_history"] = map[string]any{} // an empty Lua table encodes as an object
		}
		if diff := cmp.Diff(wantKw, asJSON(t, e.DecideTurn(ctx, turn).Context)); diff != "" {
			t.Errorf("turn %d: json.encode(kw) (-want +got):\n%s", i+1, diff)
		}
		turn.AssistantResponse = "ok"
		e.PostLLMCall(ctx, turn)
		blk := e.DecideTool(ctx, hookspec.ToolCall{Name: "x"}).Block
		if blk == nil {
			t.Fatalf("turn %d: post_llm_call's history not reported", i+1)
		}
		want := asJSON(t, turn.PostKwargs()["conversation_history"])
		if len(turn.ConversationHistory) == 0 {
			want = map[string]any{}
		}
		if diff := cmp.Diff(want, asJSON(t, blk.Message)); diff != "" {
			t.Errorf("turn %d: post_llm_call's json.encode(kw.conversation_history) (-want +got):\n%s", i+1, diff)
		}
	}
}

// A handler that changes the history it got (its messages, its list, the kwargs' field)
// changes only its own copy: the next handler of the turn, and the same handler on the
// next turn, see the history as the host gave it.
func TestHistoryChangedByAHookNotSeenByTheNext(t *testing.T) {
	const handler = `local json = require("json")
function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw)
    local h = kw.conversation_history
    local before = json.encode(h)
    h[1].content = "changed"
    h[2].tool_calls[1].args.command = "rm -rf /"
    table.insert(h, {role = "injected"})
    h[3] = nil
    kw.conversation_history = {}
    return {context = before}
  end)
  ctx.register_hook("pre_llm_call", function(kw)
    return {context = json.encode(kw.conversation_history)}
  end)
  ctx.register_hook("pre_llm_call", function(kw)
    local m = kw.conversation_history[1]
    return {context = json.encode({m})}
  end)
end
`
	e, _ := newEngine(t, testutil.Home(t, testutil.Merge(
		pluginFiles("a", "", handler),
		pluginFiles("b", "", one("pre_llm_call", `return {context = require("json").encode(kw.conversation_history)}`)),
	)))
	turn := historyTurn()
	want := asJSON(t, turn.ConversationHistory)
	wantFirst := asJSON(t, turn.ConversationHistory[:1])
	for call := 1; call <= 3; call++ {
		parts := strings.Split(e.DecideTurn(context.Background(), turn).Context, "\n\n")
		if len(parts) != 4 {
			t.Fatalf("call %d: %d contexts, want 4: %q", call, len(parts), parts)
		}
		for i, p := range parts {
			w := want
			if strings.Count(p, `"role"`) == 1 {
				w = wantFirst
			}
			if diff := cmp.Diff(w, asJSON(t, p)); diff != "" {
				t.Errorf("call %d, context %d: the history seen (-want +got):\n%s", call, i+1, diff)
			}
		}
	}
	if got := turn.ConversationHistory[0].Content; got != "list /tmp" {
		t.Errorf("the host's history was changed: %v", got)
	}
}

// A handler that never reads the history costs the same whatever its length: a thousand
// messages are not converted for it (they would be thousands of allocations). A handler
// that reads it gets it all.
func TestUnreadHistoryNotConverted(t *testing.T) {
	e, _ := newEngine(t, testutil.Home(t, testutil.Merge(
		pluginFiles("h", "", one("pre_llm_call", `return {context = kw.model .. " on " .. kw.platform}`)))))
	ctx := context.Background()
	short, long := firstTurn(), firstTurn()
	for i := range 1000 {
		long.ConversationHistory = append(long.ConversationHistory, hookspec.Message{Role: "user", Content: strings.Repeat("x", i%7)})
	}
	empty := testing.AllocsPerRun(50, func() { e.DecideTurn(ctx, short) })
	full := testing.AllocsPerRun(50, func() { e.DecideTurn(ctx, long) })
	if full > empty+20 { // a margin for pools the race detector empties at random
		t.Errorf("pre_llm_call with 1000 unread messages: %.0f allocations, with none: %.0f", full, empty)
	}

	reader, _ := newEngine(t, testutil.Home(t, pluginFiles("r", "", one("pre_llm_call",
		`local n = 0
    for _, m in ipairs(kw.conversation_history) do n = n + #m.content end
    return {context = #kw.conversation_history .. ":" .. n}`))))
	if got := reader.DecideTurn(ctx, long).Context; got != "1000:2997" {
		t.Errorf("a reader of 1000 messages: %q, want 1000:2997", got)
	}
}
