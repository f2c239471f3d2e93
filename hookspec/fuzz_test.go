package hookspec

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/suggest"
)

// fuzzEvents are the events FuzzNormaliseMerge fires: every hook, and one a host fires of
// its own (an observer to the rules).
var fuzzEvents = append(Names(), "my_host_hook")

// fuzzStrings are the strings answers are built of: every action and decision the rules
// name, near misses, and blank and non-blank text.
var fuzzStrings = []string{
	"block", "allow", "approve", "ask", "modify", "deny", "skip", "rewrite", "defer",
	"BLOCK", "blocked", "", " ", "\t\n", "\v", "\u00a0", "why", "ls -la", "PreToolUse", "respond", "modfy",
}

// fuzzKeys are the keys tables are built of: every key an answer may hold, and a misspelling.
var fuzzKeys = []string{
	"action", "message", "decision", "reason", "args", "hookSpecificOutput", "permissionDecision",
	"permissionDecisionReason", "updatedInput", "context", "result", "output", "response_text",
	"text", "command", "contxt", "request", "response", "messages", "requst",
}

// answerGen builds answers in the shapes Lua values and decoded JSON take (nil, bool,
// string, int64, float64, []any, map[string]any) from the fuzzer's bytes.
type answerGen struct {
	b []byte
	i int
}

func (g *answerGen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return int(g.b[g.i-1])
}

func (g *answerGen) pick(n int) int { return g.next() % n }

func (g *answerGen) value(depth int) any {
	switch k := g.pick(12); {
	case k == 0:
		return nil
	case k <= 4:
		return fuzzStrings[g.pick(len(fuzzStrings))]
	case k == 5:
		return int64(g.pick(3))
	case k == 6:
		return float64(g.next()) / 2
	case k == 7:
		return g.pick(2) == 1
	case k == 8 && depth < 3:
		l := make([]any, g.pick(3))
		for i := range l {
			l[i] = g.value(depth + 1)
		}
		return l
	case depth < 3:
		return g.table(depth)
	}
	return fuzzStrings[g.pick(len(fuzzStrings))]
}

func (g *answerGen) table(depth int) map[string]any {
	m := map[string]any{}
	for n := g.pick(5); n > 0; n-- {
		k := fuzzKeys[g.pick(len(fuzzKeys))]
		m[k] = g.field(k, depth+1)
	}
	return m
}

// field is mostly a value of the type key takes (an action for action, a table for args),
// else any value: the mistakes matter as much as the shapes.
func (g *answerGen) field(key string, depth int) any {
	if g.pick(4) == 0 {
		return g.value(depth)
	}
	switch key {
	case "action", "decision", "permissionDecision":
		if g.pick(5) == 0 {
			return "respond"
		}
		return fuzzStrings[g.pick(9)] // the actions and decisions, and defer
	case "request", "response":
		m := map[string]any{}
		if g.pick(2) == 0 {
			m["messages"] = []any{map[string]any{"role": "user", "content": fuzzStrings[g.pick(len(fuzzStrings))]}}
		}
		if g.pick(2) == 0 {
			m["model"] = fuzzStrings[g.pick(len(fuzzStrings))]
		}
		return m
	case "args", "updatedInput":
		m := map[string]any{}
		if g.pick(2) == 0 {
			m["command"] = fuzzStrings[g.pick(len(fuzzStrings))]
		}
		return m
	case "hookSpecificOutput":
		if depth < 3 {
			return g.table(depth)
		}
	}
	return fuzzStrings[g.pick(len(fuzzStrings))]
}

// fuzzResults are the results of one call: the answers of data, a JSON array (what a seed
// states readably) or else bytes to build answers from, from plugins and shell hooks, with
// now and then a failed fail_closed hook's block and a re-checked answer (the engine's
// doing: its arguments dropped).
func fuzzResults(event string, data []byte) (rs []Result, values []any) {
	var list []any
	if err := json.Unmarshal(data, &list); err == nil {
		for i, v := range list {
			src := SourcePlugin
			if i%2 == 1 {
				src = SourceShell
			}
			rs = append(rs, Answered(src, "h", event, v, 0))
			values = append(values, v)
		}
		return rs, values
	}
	g := &answerGen{b: data}
	for n := g.pick(6); n > 0; n-- {
		src := []string{SourcePlugin, SourceShell, "", SourceGateway}[g.pick(4)]
		switch g.pick(10) {
		case 0:
			r := Failed(src, "h", StatusTimeout, "slow", 0)
			if event == hooknames.PreToolCall && g.pick(2) == 0 {
				r.FailClosed("blocked: plugin \"h\" failed closed (timeout: slow)")
			}
			rs = append(rs, r)
		case 1:
			v := g.value(0)
			r := Answered(src, "h", event, v, 0)
			r.Answer.Args, r.Rechecked = nil, true
			rs = append(rs, r)
			values = append(values, v)
		default:
			v := g.value(0)
			rs = append(rs, Answered(src, "h", event, v, 0))
			values = append(values, v)
		}
	}
	return rs, values
}

// fuzzSeeds are calls in the shapes the docs show, as JSON arrays of answers, by event.
var fuzzSeeds = map[string][]string{
	hooknames.PreToolCall: {
		`[{"action":"block","message":"no"}]`,
		`[null,{"action":"deny"},{"action":"block","message":"b"},{"action":"block","message":"c"}]`,
		`[{"decision":"block"}]`,
		`[{"action":"allow","decision":"block"}]`,
		`[{"action":"block","message":"  ","reason":"r"}]`,
		`[{"action":"modify","args":{"command":"ls"}},{"action":"approve"},{"action":"ask","message":"sure?"},{"action":"block"}]`,
		`[{"action":"approve"},{"action":"ask","message":"sure?"}]`,
		`[{"action":"modify","args":{"c":"1"}},{"action":"ask"}]`,
		`[{"context":"0"},{"action":null,"context":"\t\n"},{"action":"block","context":"why"},{"context":"c","decision":"blok"}]`,
		`[{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"a","permissionDecision":"defer"}},{"action":"allow","context":"b"}]`,
		`[{"action":"modify","args":{"c":"1"}},{"decision":"approve"}]`,
		`[{"action":"modify","args":{"c":"1"}},{"action":"modify","args":{"c":"2"}}]`,
		`[{"action":"approve","args":{"c":"3"}},{"action":"modify","args":{"c":"4"}}]`,
		`[{"action":"approve","args":5},{"action":"modify","args":"rm -rf /"}]`,
		`[{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":".env is private"}}]`,
		`[{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}]`,
		`[{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":"ls"}}]`,
		`[{"hookSpecificOutput":{"updatedInput":{"command":"ls"}}}]`,
		`[{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"deploy?","updatedInput":{"a":1}}}]`,
		`[{"hookSpecificOutput":{"permissionDecision":"defer"}}]`,
		`[{"decision":"block","reason":"r","hookSpecificOutput":{"updatedInput":{"command":"ls"}}}]`,
		`[{"decision":"block","hookSpecificOutput":{"permissionDecision":"allow"}}]`,
		`[{"decision":"approve","hookSpecificOutput":{"permissionDecision":"allow","updatedInput":"ls"}}]`,
		`[{"decision":"approve","hookSpecificOutput":{"updatedInput":{"command":"ls"}}}]`,
		`[{"reason":"top","hookSpecificOutput":{"permissionDecision":"deny"}}]`,
		`["block",1,true,false,[],{},{"message":"m"}]`,
	},
	hooknames.PreLLMCall: {
		`["one",{"context":"   "},{"context":"two"}]`,
		`["",{"context":"\u000b"},"\u00a0",{"contxt":"x"},42]`,
	},
	hooknames.TransformToolResult:     {`["","second"]`, `[{"result":"r"},{"output":"o"}]`, `[5,{"result":5},{"result":""}]`},
	hooknames.TransformTerminalOutput: {`[{"output":"o"},"x"]`, `[{"result":"r"},""]`},
	hooknames.TransformLLMOutput:      {`["","x"]`, `[{"response_text":""},{"response_text":" "}]`},
	hooknames.PreGatewayDispatch: {
		`[{"action":"drop"},{"action":"skip","reason":"r"}]`,
		`[{"action":"rewrite"},{"action":"skip"}]`,
		`[{"action":"rewrite","text":""},{"action":"allow"}]`,
		`[{"action":"rewrite","text":5},"skip",{"decision":"skip"}]`,
	},
	hooknames.PostToolCall: {`[{"action":"block","message":"x"},"context",{"context":"c"}]`},
	hooknames.PreAPIRequest: {
		`[null,{"action":"modify","request":{"model":"m2"}},{"action":"modify","request":{"model":"m3","system":"s"}}]`,
		`[{"action":"modify","request":{"messages":[]}},{"action":"respond","response":"offline"},{"action":"respond","response":{"content":"x"}}]`,
		`[{"action":"modify","request":"trim"},{"action":"respond"},{"action":"modfy","request":{}},true,"x"]`,
		`[{"action":"respond","response":5},{"requst":{"model":"m"}}]`,
	},
	hooknames.OnSessionStart: {`["hello",{"context":"c"}]`},
}

// FuzzNormaliseMerge holds Normalise and Merge to refNormalise and refMerge, the rules as
// docs/events.md states them, on calls of every hook with answers from plugins and shell
// hooks in every shape; and Problem to the docs' line between a mistake (reported) and an
// answer that changes nothing on purpose (not).
func FuzzNormaliseMerge(f *testing.F) {
	for i, ev := range fuzzEvents {
		for _, s := range fuzzSeeds[ev] {
			f.Add(uint8(i), []byte(s))
		}
		f.Add(uint8(i), []byte{5, 11, 0, 3, 9, 1, 4, 7, 2, 8, 6, 10, 12, 13, 14, 15})
	}
	f.Fuzz(func(t *testing.T, e uint8, data []byte) {
		event := fuzzEvents[int(e)%len(fuzzEvents)]
		rs, values := fuzzResults(event, data)
		for _, v := range values {
			checkAnswer(t, event, v)
		}
		want := refMerge(event, rs)
		got := Merge(event, rs)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Merge(%s, %s) (-reference +code):\n%s", event, showResults(rs), diff)
		}
		if (got.Outcome() == nil) != (got.Kind == None) {
			t.Fatalf("Outcome %v of a %v decision", got.Outcome(), got.Kind)
		}
	})
}

// checkAnswer holds one answer's reading and report to the reference.
func checkAnswer(t *testing.T, event string, v any) {
	t.Helper()
	a := Normalise(event, v)
	if diff := cmp.Diff(refNormalise(event, v), a); diff != "" {
		t.Fatalf("Normalise(%s, %s) (-reference +code):\n%s", event, show(v), diff)
	}
	// The same answer printed by a shell hook reads the same: JSON has no integers of its
	// own, so only the kind and the text are compared.
	if b, err := json.Marshal(v); err == nil {
		var back any
		if json.Unmarshal(b, &back) == nil {
			if j := Normalise(event, back); j.Kind != a.Kind || j.Message != a.Message || j.Text != a.Text {
				t.Fatalf("Normalise(%s, %s): %+v from Lua, %+v from JSON", event, b, a, j)
			}
		}
	}
	p := Problem(event, v, suggest.Closest)
	mistake := refReadsAnswers(event) && a.Kind == None && !refMeansNothing(event, v)
	if (p != "") != mistake {
		t.Fatalf("Problem(%s, %s) = %q; a mistake: %v", event, show(v), p, mistake)
	}
	if p != "" && !strings.HasPrefix(p, "answer ") {
		t.Fatalf("Problem(%s, %s) = %q", event, show(v), p)
	}
	for range 3 {
		if again := Problem(event, v, suggest.Closest); again != p {
			t.Fatalf("Problem(%s, %s) says %q, then %q", event, show(v), p, again)
		}
	}
	if ap := AskProblem(event, v); ap != "" && a.Kind != Ask {
		t.Fatalf("AskProblem(%s, %s) = %q for a %v answer", event, show(v), ap, a.Kind)
	}
}

func showResults(rs []Result) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Source + ":" + show(r.Result)
		if r.Rechecked {
			parts[i] += "(rechecked)"
		}
		if r.Status.Failed() {
			parts[i] += "(" + r.Status.String() + ")"
		}
	}
	return "[" + strings.Join(slices.Clip(parts), ", ") + "]"
}
