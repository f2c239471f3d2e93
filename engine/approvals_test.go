package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// An approver that sends the question and returns ErrAnswerLater leaves the call waiting for
// Answer, which may come from any goroutine (a later message on the chat): yes runs the
// call, no blocks it; the request names the chat of the call's origin.
func TestAnswerLater(t *testing.T) {
	home := testutil.Home(t, pluginFiles("careful", "", one("pre_tool_call", `return {action = "ask", message = "deploy to prod?"}`)))
	for _, allow := range []bool{true, false} {
		asked := make(chan ApprovalRequest, 1)
		e := engineWith(t, home, Options{Approve: func(_ context.Context, r ApprovalRequest) (bool, error) {
			asked <- r
			return false, ErrAnswerLater
		}})
		ctx := WithOrigin(context.Background(), Origin{Platform: "telegram", ChatID: "c1", UserID: "ada"})
		done := make(chan ToolDecision)
		go func() {
			done <- e.DecideTool(ctx, hookspec.ToolCall{Name: "deploy", Args: map[string]any{"env": "prod"}})
		}()
		req := <-asked
		if req.Origin != (Origin{Platform: "telegram", ChatID: "c1", UserID: "ada"}) || req.ID == "" || req.Hook != "careful" {
			t.Fatalf("request %+v, want the chat of the call, an id and the hook", req)
		}
		if p := e.Pending(); len(p) != 1 || p[0].ID != req.ID || p[0].Delivered || req.Code == "" {
			t.Fatalf("pending %+v, want the request, with a code, not delivered", p)
		}
		if err := e.Delivered(req.ID); err != nil {
			t.Fatal(err)
		}
		if p := e.Pending(); len(p) != 1 || !p[0].Delivered {
			t.Fatalf("pending %+v after Delivered, want it delivered", p)
		}
		if err := e.Answer(req.ID, allow); err != nil {
			t.Fatal(err)
		}
		d := <-done
		if d.Approved != allow || (d.Block == nil) != allow {
			t.Errorf("answer %v: decision %+v", allow, d)
		}
		if err := e.Answer(req.ID, true); !errors.Is(err, ErrNoSuchApproval) {
			t.Errorf("a second answer: %v, want ErrNoSuchApproval", err)
		}
		if err := e.Delivered(req.ID); !errors.Is(err, ErrNoSuchApproval) {
			t.Errorf("Delivered after the answer: %v, want ErrNoSuchApproval", err)
		}
		if p := e.Pending(); len(p) != 0 {
			t.Errorf("pending after the answer: %+v", p)
		}
	}
}

// A request left for later that nobody answers blocks at ApproveTimeout, and one waiting
// when the engine closes blocks then: a guard's ask never turns into a yes by default.
func TestAnswerLaterNeverAnswered(t *testing.T) {
	home := testutil.Home(t, pluginFiles("careful", "", one("pre_tool_call", `return {action = "ask", message = "sure?"}`)))
	later := func(context.Context, ApprovalRequest) (bool, error) { return false, ErrAnswerLater }
	e := engineWith(t, home, Options{Approve: later, ApproveTimeout: 20 * time.Millisecond})
	if d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "x"}); d.Block == nil || !strings.Contains(d.Block.Message, "no answer came within 20ms") {
		t.Errorf("decision %+v, want blocked for want of an answer", d)
	}

	asked := make(chan struct{}, 1)
	e = engineWith(t, home, Options{Approve: func(context.Context, ApprovalRequest) (bool, error) {
		asked <- struct{}{}
		return false, ErrAnswerLater
	}})
	done := make(chan ToolDecision)
	go func() { done <- e.DecideTool(context.Background(), hookspec.ToolCall{Name: "x"}) }()
	<-asked
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	e.Close(ctx)
	if d := <-done; d.Block == nil {
		t.Errorf("decision %+v after Close, want blocked", d)
	}
}

// An ask is an approval: a pre_approval_request hook may answer it (the person is not
// asked), and post_approval_response hears the choice, whoever made it.
func TestAskGoesThroughApprovalHooks(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("careful", "", one("pre_tool_call", `return {action = "ask", message = "deploy to prod?"}`)),
		pluginFiles("policy", "", `
function register(ctx)
  ctx.register_hook("pre_approval_request", function(kw)
    if kw.pattern_key ~= "hook:careful" or kw.description ~= "deploy to prod?" then return end
    if kw.command:find("staging") then return {action = "allow"} end
    if kw.command:find("canary") then return {action = "allow", args = {command = "deploy canary --dry-run"}} end
  end)
  ctx.register_hook("post_approval_response", function(kw)
    require("hermes").heard(kw.command .. " " .. kw.choice .. " " .. kw.surface)
  end)
end`),
	))
	var heard []string
	var mu sync.Mutex
	hear := func(_ context.Context, args []any) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, fmt.Sprint(args...))
		return nil, nil
	}
	asked := 0
	e := engineWith(t, home, Options{HostFuncs: map[string]hookspec.Func{"heard": hear},
		Approve: func(context.Context, ApprovalRequest) (bool, error) { asked++; return false, nil }})
	ctx := WithOrigin(context.Background(), Origin{Platform: "slack", ChatID: "c"})
	if d := e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "deploy staging"}}); !d.Approved || asked != 0 {
		t.Errorf("staging: %+v, asked %d times, want approved by the hook without asking", d, asked)
	}
	if d := e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "deploy prod"}}); d.Block == nil || asked != 1 {
		t.Errorf("prod: %+v, asked %d times, want the person asked and the no kept", d, asked)
	}
	// An approval of other arguments does not run these: the call is blocked.
	if d := e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "deploy canary"}}); d.Block == nil ||
		!strings.Contains(d.Block.Message, "allowed other arguments") || asked != 1 {
		t.Errorf("canary: %+v, asked %d times, want blocked without asking", d, asked)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"deploy staging once gateway", "deploy prod deny gateway", "deploy canary deny gateway"}; !slices.Equal(heard, want) {
		t.Errorf("post_approval_response heard %q, want %q", heard, want)
	}
}
