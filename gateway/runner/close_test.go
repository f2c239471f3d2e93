package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// heldAgent answers a step once released; entered says the turn is waiting on it.
type heldAgent struct {
	entered, release chan struct{}
}

func (a *heldAgent) Step(ctx context.Context, _ StepRequest) (Step, error) {
	close(a.entered)
	<-a.release
	return Step{Response: "done", Final: true}, nil
}

func (a *heldAgent) RunTool(context.Context, hookspec.ToolCall) (string, error) { return "", nil }
func (a *heldAgent) Prompt(context.Context, string) (string, error)             { return "", nil }

// closing starts gw.Close(ctx) and returns once Close has begun (StartTurn refuses new
// turns), with the channel of Close's error.
func closing(t *testing.T, ctx context.Context, gw *gateway.Gateway) <-chan error {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- gw.Close(ctx) }()
	for {
		turn, err := gw.StartTurn(context.Background(), gateway.Message{Platform: "probe", Internal: true})
		if errors.Is(err, gateway.ErrClosed) {
			return closed
		}
		if err != nil {
			t.Fatal(err)
		}
		turn.Fail(context.Background(), false)
	}
}

// A runner's turn is a gateway turn: Close waits for it to end before it closes the hooks,
// and a Close that stops waiting names it.
func TestCloseWaitsForARunnersTurn(t *testing.T) {
	for _, giveUp := range []bool{false, true} {
		g, _ := newGateway(t, testutil.Home(t, map[string]string{}), gateway.Options{})
		agent := &heldAgent{entered: make(chan struct{}), release: make(chan struct{})}
		r := New(g, agent, Options{})
		replied := make(chan string, 1)
		go func() {
			reply, _ := r.HandleMessage(context.Background(), Inbound{Platform: "telegram", UserID: "u1", ChatID: "c1", Text: "hi"})
			replied <- reply
		}()
		<-agent.entered
		ctx, cancel := context.WithCancel(context.Background())
		closed := closing(t, ctx, g)
		if giveUp {
			cancel()
			err := <-closed
			if err == nil || !strings.Contains(err.Error(), "platform telegram, chat c1, session sess-1") {
				t.Errorf("Close that stopped waiting: %v, want an error naming the runner's turn", err)
			}
			close(agent.release)
			<-replied
			continue
		}
		close(agent.release)
		if err := <-closed; err != nil {
			t.Errorf("Close: %v", err)
		}
		if !hasFlow(r.Timeline(), `reply out to u1: "done"`) { // recorded before the turn ends
			t.Error("Close returned before the runner's turn ended")
		}
		<-replied
		cancel()
	}
}

func hasFlow(tl Timeline, flow string) bool {
	for _, e := range tl.Events {
		if e.Event == "flow" && e.Flow == flow {
			return true
		}
	}
	return false
}
