package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// answersHome answers every typed call that returns a map from a Lua answer: a modify (in
// Claude Code's form) that makes the guard before it be asked again, an approval, an ask
// with arguments, an allowed approval with arguments, a context and a transform.
func answersHome(t *testing.T) string {
	return testutil.Home(t, testutil.Merge(
		pluginFiles("a-guard", "priority: 10\nstates: 2\n", `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command:sub(1, 3) == "ask" then return {action = "ask", message = "sure?"} end
    return {action = "approve", args = {command = kw.args.command}}
  end)
  ctx.register_hook("pre_approval_request", function(kw)
    if kw.command:sub(1, 3) == "ask" then return end -- the tool call's own question: the approver answers
    return {action = "allow", args = {command = kw.command .. "?", list = {kw.command}}, remember = true}
  end)
  ctx.register_hook("pre_llm_call", function(kw) return {context = "for " .. kw.sender_id} end)
  ctx.register_hook("transform_tool_result", function(kw) return {result = kw.result .. "."} end)
end
`),
		pluginFiles("b-rewrite", "priority: 5\nstates: 2\n", one("pre_tool_call",
			`if kw.args.command:sub(1, 3) ~= "ask" then return {hookSpecificOutput = {updatedInput = {command = kw.args.command .. "!"}}} end`)),
	))
}

// decisions are what the typed calls returned for one input.
type decisions struct {
	Tool     ToolDecision
	Approval ApprovalDecision
	Turn     TurnDecision
	Result   string
}

func decideAll(e *Engine, i int) decisions {
	ctx := context.Background()
	cmd := fmt.Sprintf("cmd-%d", i)
	if i%3 == 0 {
		cmd = fmt.Sprintf("ask-%d", i)
	}
	return decisions{
		Tool:     e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": cmd}}),
		Approval: e.PreApprovalRequest(ctx, hookspec.Approval{Command: cmd}),
		Turn:     e.DecideTurn(ctx, hookspec.LLMTurn{SessionID: "s", SenderID: cmd}),
		Result:   e.TransformToolResult(ctx, hookspec.ToolCall{Name: "terminal", Result: cmd}),
	}
}

// A Lua answer of a typed call is converted into a map the call's scratch keeps for the
// next call (refs.go): nothing a typed call returns may be that map or hold it. Decisions
// taken by goroutines at once still read as they did once later calls have reused every
// scratch (and, under -race, no call writes a map another goroutine reads).
func TestTypedDecisionsOutliveTheAnswerMaps(t *testing.T) {
	logs := slog.New(slog.NewTextHandler(io.Discard, nil)) // audited: the audit reads the report too
	e := engineWith(t, answersHome(t), Options{Logger: logs, Approve: func(context.Context, ApprovalRequest) (bool, error) { return true, nil }})
	const inputs, workers, rounds = 16, 4, 8
	want := make([]decisions, inputs)
	for i := range want {
		want[i] = decideAll(e, i)
	}
	if d := want[1].Tool; d.Args["command"] != "cmd-1!" || !d.Modified || !d.Approved {
		t.Fatalf("DecideTool = %+v, want cmd-1! approved", d)
	}
	if d := want[0].Tool; d.Args["command"] != "ask-0" || !d.Approved {
		t.Fatalf("DecideTool = %+v (%+v), want ask-0 asked and approved", d, d.Block)
	}
	if d := want[1].Approval; d.Args["command"] != "cmd-1?" || !d.Allow {
		t.Fatalf("PreApprovalRequest = %+v, want cmd-1? allowed", d)
	}
	if want[1].Turn.Context != "for cmd-1" || want[1].Result != "cmd-1." {
		t.Fatalf("DecideTurn, TransformToolResult = %+v, %q", want[1].Turn, want[1].Result)
	}
	kept := make([][]decisions, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds * inputs {
				i := (r + w) % inputs
				kept[w] = append(kept[w], decideAll(e, i))
				if r > 0 { // the one before, after this call reused the scratch
					j := (r - 1 + w) % inputs
					if diff := cmp.Diff(want[j], kept[w][r-1]); diff != "" {
						t.Errorf("input %d, read after the next call (-want +got):\n%s", j, diff)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for r, d := range kept[w] {
			if diff := cmp.Diff(want[(r+w)%inputs], d); diff != "" {
				t.Fatalf("input %d, read after every call (-want +got):\n%s", (r+w)%inputs, diff)
			}
		}
	}
}

// Fire's report outlives the call: each result's answer is its own map, not a scratch's.
func TestFireReportKeepsItsAnswers(t *testing.T) {
	e, _ := newEngine(t, answersHome(t))
	ctx := context.Background()
	kw := func(cmd string) map[string]any {
		return map[string]any{"tool_name": "terminal", "args": map[string]any{"command": cmd}, "task_id": "", "session_id": "", "tool_call_id": ""}
	}
	rep := e.Fire(ctx, hookspec.PreToolCall, kw("one"))
	want := []any{
		map[string]any{"action": "approve", "args": map[string]any{"command": "one!"}}, // asked again after the rewrite
		map[string]any{"hookSpecificOutput": map[string]any{"updatedInput": map[string]any{"command": "one!"}}},
	}
	check := func(when string) {
		t.Helper()
		got := []any{rep.Hooks[0].Result, rep.Hooks[1].Result}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Fire's answers %s (-want +got):\n%s", when, diff)
		}
	}
	check("at once")
	for i := range 8 {
		decideAll(e, i)
		e.Fire(ctx, hookspec.PreToolCall, kw(fmt.Sprint(i)))
	}
	check("after more calls")
}
