package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestReplayEndsAtStepLimit: a pre_api_request hook that answers every request with a tool
// call would keep a turn asking the model for ever; the replay ends at the gateway's step
// limit (DefaultMaxSteps when unset) with gateway.ErrStepLimit, a note in the timeline, and
// on_session_end told the turn did not complete.
func TestReplayEndsAtStepLimit(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"plugins/loop/plugin.yaml": "name: loop\n",
		"plugins/loop/handler.lua": `function register(ctx)
  ctx.register_hook("pre_api_request", function(kw)
    return {action = "respond", response = {content = "", stop_reason = "tool_use",
      tool_calls = {{id = "c1", name = "terminal", args = {command = "true"}}}}}
  end)
  ctx.register_hook("on_session_end", function(kw)
    if not kw.completed then print("session ended, not completed") end
  end)
end`,
	})
	for _, max := range []int{0, 4} {
		want := max
		if want == 0 {
			want = gateway.DefaultMaxSteps
		}
		type result struct {
			tl  Timeline
			err error
		}
		done := make(chan result, 1)
		go func() {
			tl, err := Replay(context.Background(), "t.jsonl", strings.NewReader(`{"type":"message","platform":"cli","user_id":"u1","text":"hi"}
{"type":"llm","model":"m","response":"never reached"}
`), gateway.Options{MaxSteps: max, Engine: engine.Options{Home: home}})
			done <- result{tl, err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(60 * time.Second):
			t.Fatalf("MaxSteps %d: the replay did not end: the turn loops", max)
		}
		if !errors.Is(r.err, gateway.ErrStepLimit) {
			t.Errorf("MaxSteps %d: Replay error %v, want gateway.ErrStepLimit", max, r.err)
		}
		steps, stopped, ended := 0, false, false
		for _, e := range r.tl.Events {
			switch {
			case e.Event == "pre_api_request":
				steps++
			case strings.HasPrefix(e.Note, "turn stopped: gateway: the turn reached its step limit"):
				stopped = true
			case e.Event == "on_session_end":
				ended = true
			}
		}
		if steps != want || !stopped || !ended {
			t.Errorf("MaxSteps %d: %d requests to the model, stop noted %v, on_session_end fired %v; want %d, true, true",
				max, steps, stopped, ended, want)
		}
	}
}

// A transcript's recorded steps are the agent's, bounded by its lines: a turn of more steps
// than the limit replays whole; only steps hooks answer without the agent count.
func TestReplayRunsEveryRecordedStep(t *testing.T) {
	home := testutil.Home(t, map[string]string{})
	var b strings.Builder
	b.WriteString(`{"type":"message","platform":"cli","user_id":"u1","text":"hi"}` + "\n")
	const steps = 12
	for i := range steps {
		fmt.Fprintf(&b, `{"type":"llm","model":"m","tool_calls":[{"id":"c%d","name":"terminal","args":{"command":"ls"},"result":"{}"}]}`+"\n", i)
	}
	b.WriteString(`{"type":"llm","model":"m","response":"done"}` + "\n")
	tl, err := Replay(context.Background(), "t.jsonl", strings.NewReader(b.String()), gateway.Options{MaxSteps: 4, Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatalf("Replay of %d recorded steps with MaxSteps 4: %v", steps+1, err)
	}
	calls := 0
	for _, e := range tl.Events {
		if e.Event == "flow" && strings.HasPrefix(e.Flow, "tool call ") {
			calls++
		}
	}
	if calls != steps {
		t.Errorf("%d tool calls replayed, want %d", calls, steps)
	}
}
