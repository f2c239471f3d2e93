package gateway

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// log is a host function hooks call to say they ran, in order.
type log struct {
	mu   sync.Mutex
	seen []string
}

func (l *log) fn(_ context.Context, args []any) (any, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, fmt.Sprint(args...))
	return nil, nil
}

func (l *log) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// everyHook is a plugin that says when each hook of a turn runs; its pre_gateway_dispatch
// skips "spam", rewrites "hi" and its pre_llm_call blocks "secret".
const everyHook = `
local names = {"on_session_start", "post_tool_call", "transform_tool_result", "transform_terminal_output",
  "pre_verify", "transform_llm_output", "post_llm_call", "on_session_end"}
function register(ctx)
  local h = require("hermes")
  for _, n in ipairs(names) do ctx.register_hook(n, function() h.ran(n) end) end
  ctx.register_hook("pre_gateway_dispatch", function(kw)
    h.ran("pre_gateway_dispatch")
    if kw.event.text == "spam" then return {action = "skip", reason = "spam"} end
    if kw.event.text == "hi" then return {action = "rewrite", text = "hello"} end
  end)
  ctx.register_hook("pre_llm_call", function(kw)
    h.ran("pre_llm_call")
    if kw.user_message == "secret" then return {action = "block", message = "not that"} end
    return "ctx for " .. kw.user_message
  end)
  ctx.register_hook("pre_tool_call", function(kw) h.ran("pre_tool_call") end)
end`

func turnGateway(t *testing.T, approve func(context.Context, engine.ApprovalRequest) (bool, error)) (*Gateway, *log, *log) {
	t.Helper()
	home := testutil.Home(t, testutil.Merge(
		map[string]string{"plugins/every/plugin.yaml": "name: every\n", "plugins/every/handler.lua": everyHook},
		hookFiles("events", `events: ["session:*", "agent:*"]`, `function handle(ev) require("hermes").ran(ev) end`),
	))
	hooks, events := &log{}, &log{}
	g, err := New(context.Background(), Options{
		Engine:    engine.Options{Home: home, Approve: approve, HostFuncs: map[string]hookspec.Func{"ran": hooks.fn}},
		HostFuncs: map[string]hookspec.Func{"ran": events.fn},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(context.Background()) })
	return g, hooks, events
}

// A turn fires every hook in the order of docs/events.md, and the gateway events beside.
func TestTurnOrder(t *testing.T) {
	g, hooks, events := turnGateway(t, nil)
	ctx := context.Background()
	tr, err := g.StartTurn(ctx, Message{Platform: "cli", UserID: "u", Text: "hi", SessionID: "s1", NewSession: true})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Text != "hello" || tr.Context != "ctx for hello" || tr.Skipped || tr.Blocked != nil {
		t.Fatalf("turn %+v, want the rewritten text and its context", tr)
	}
	var ranWith hookspec.ToolCall
	run := tr.RunTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}},
		func(_ context.Context, c hookspec.ToolCall) (string, error) {
			ranWith = c
			return `{"output": ""}`, nil
		})
	if run.Block != nil || ranWith.SessionID != "s1" {
		t.Fatalf("tool run %+v with %+v, want it run in the turn's session", run, ranWith)
	}
	tr.Step(ctx, "terminal")
	if _, goOn := tr.Verify(ctx, "done"); goOn {
		t.Fatal("pre_verify kept going")
	}
	if reply := tr.Finish(ctx, "done"); reply != "done" {
		t.Errorf("reply %q", reply)
	}
	tr.Finish(ctx, "again") // ended: nothing fires
	tr.Fail(ctx, false)
	want := []string{"pre_gateway_dispatch", "on_session_start", "pre_llm_call", "pre_tool_call", "transform_terminal_output",
		"post_tool_call", "transform_tool_result", "pre_verify", "transform_llm_output", "post_llm_call", "on_session_end"}
	if got := hooks.get(); !slices.Equal(got, want) {
		t.Errorf("hooks ran\n %v\nwant\n %v", got, want)
	}
	g.Close(ctx)
	if got, want := events.get(), []string{"session:start", "agent:start", "agent:step", "agent:end"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// A skipped message runs nothing more; a blocked prompt ends the turn with on_session_end.
func TestTurnSkippedAndBlocked(t *testing.T) {
	g, hooks, _ := turnGateway(t, nil)
	ctx := context.Background()
	tr, _ := g.StartTurn(ctx, Message{Platform: "cli", Text: "spam", SessionID: "s1", NewSession: true})
	if !tr.Skipped || tr.SkipReason != "spam" {
		t.Fatalf("turn %+v, want skipped", tr)
	}
	if got := hooks.get(); !slices.Equal(got, []string{"pre_gateway_dispatch"}) {
		t.Errorf("a skipped message ran %v", got)
	}
	tr, _ = g.StartTurn(ctx, Message{Platform: "cli", Text: "secret", SessionID: "s1", Internal: true})
	if tr.Blocked == nil || tr.Blocked.Message != "not that" {
		t.Fatalf("turn %+v, want blocked", tr)
	}
	if got := hooks.get(); !slices.Equal(got, []string{"pre_gateway_dispatch", "pre_llm_call", "on_session_end"}) {
		t.Errorf("hooks %v: an internal message skips pre_gateway_dispatch, a block ends the turn", got)
	}
	closed := make(chan error)
	go func() { closed <- g.Close(ctx) }()
	if err := <-closed; err != nil { // both turns ended: nothing to wait for
		t.Fatal(err)
	}
}

// Close waits for the turns in flight: a turn started before Close finishes on an engine
// that still runs, and no turn starts after Close began.
func TestCloseDrainsTurns(t *testing.T) {
	g, hooks, _ := turnGateway(t, nil)
	ctx := context.Background()
	tr, _ := g.StartTurn(ctx, Message{Platform: "cli", Text: "go", SessionID: "s1"})
	closed := make(chan error)
	go func() { closed <- g.Close(ctx) }()
	for { // until Close has begun: a turn started before that ends at once
		late, err := g.StartTurn(ctx, Message{Platform: "cli", Text: "late"})
		if errors.Is(err, ErrClosed) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		late.Fail(ctx, false)
		runtime.Gosched()
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) with a turn in flight", err)
	default:
	}
	run := tr.RunTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}},
		func(context.Context, hookspec.ToolCall) (string, error) { return "ok", nil })
	if run.Block != nil {
		t.Fatalf("a turn in flight met a closed engine: %+v", run.Block)
	}
	tr.Finish(ctx, "done")
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if got := hooks.get(); !slices.Contains(got, "post_llm_call") {
		t.Errorf("hooks %v: the turn's end did not run", got)
	}
}

// A hook's ask is put to the chat of the turn; the reply, a later message on the same chat,
// answers it through Answer once the host said the question was delivered. A "yes" sent
// before that, other text and other chats answer nothing: they are ordinary messages.
func TestTurnAskAnsweredByALaterMessage(t *testing.T) {
	g, asked := askLaterGateway(t, `function() return {action = "ask", message = "sure?"} end`, 1)
	defer closeSoon(g) // a failure leaves a turn waiting for its answer
	for _, reply := range []string{"/approve", "No"} {
		ctx := context.Background()
		tr, _ := g.StartTurn(ctx, Message{Platform: "slack", ChatID: "c7", UserID: "u", Text: "go"})
		done := make(chan engine.ToolRun)
		go func() {
			done <- tr.RunTool(ctx, hookspec.ToolCall{Name: "x"}, func(context.Context, hookspec.ToolCall) (string, error) { return "ran", nil })
		}()
		req := <-asked
		if req.Origin != (engine.Origin{Platform: "slack", ChatID: "c7", UserID: "u"}) || req.Code == "" {
			t.Fatalf("asked on %+v with code %q, want the turn's chat and a code", req.Origin, req.Code)
		}
		// The question has not reached the user: their "ok" is about something else.
		if ok, err := g.Answer(Message{Platform: "slack", ChatID: "c7", UserID: "u", Text: "ok"}); ok || err != nil {
			t.Fatalf("an ok before the question was delivered: answered %v, %v", ok, err)
		}
		if p := g.Engine().Pending(); len(p) != 1 || p[0].Delivered {
			t.Fatalf("pending %+v, want the request waiting, not delivered", p)
		}
		if err := g.Engine().Delivered(req.ID); err != nil {
			t.Fatal(err)
		}
		for _, m := range []Message{
			{Platform: "slack", ChatID: "c8", UserID: "u", Text: "yes"},       // another chat
			{Platform: "telegram", ChatID: "c7", UserID: "u", Text: "yes"},    // another platform
			{Platform: "slack", ChatID: "c7", UserID: "mallory", Text: "yes"}, // another member of the chat
			{Platform: "slack", ChatID: "c7", UserID: "u", Text: "what?"},     // no answer
			{Platform: "slack", ChatID: "c7", UserID: "u", Text: "yes please do it"},
		} {
			if ok, err := g.Answer(m); ok || err != nil {
				t.Fatalf("%+v answered the request: %v, %v", m, ok, err)
			}
		}
		if ok, err := g.Answer(Message{Platform: "slack", ChatID: "c7", UserID: "u", Text: reply}); !ok || err != nil {
			t.Fatalf("%q did not answer: %v", reply, err)
		}
		run := <-done
		if allowed := strings.HasPrefix(reply, "/approve"); (run.Block == nil) != allowed || (run.Result == "ran") != allowed {
			t.Errorf("reply %q: run %+v", reply, run)
		}
		tr.Finish(ctx, "done")
	}
	if err := g.Engine().Delivered("approval-1"); !errors.Is(err, engine.ErrNoSuchApproval) {
		t.Errorf("Delivered of an answered request: %v, want ErrNoSuchApproval", err)
	}
}

// With two questions waiting on a chat, a bare "yes" answers neither: Answer says why and
// how to answer; the answer that names a question's code answers that one, and a code
// that names none answers nothing, saying which wait.
func TestTurnAskTwoQuestionsNeedTheCode(t *testing.T) {
	g, asked := askLaterGateway(t, `function(kw) return {action = "ask", message = "run " .. kw.tool_name .. "?"} end`, 2)
	defer closeSoon(g) // a failure leaves a turn waiting for its answer
	ctx := context.Background()
	tr, _ := g.StartTurn(ctx, Message{Platform: "slack", ChatID: "c7", UserID: "u", Text: "go"})
	done := map[string]chan engine.ToolRun{"build": make(chan engine.ToolRun), "deploy": make(chan engine.ToolRun)}
	for name, ch := range done {
		go func() {
			ch <- tr.RunTool(ctx, hookspec.ToolCall{Name: name}, func(context.Context, hookspec.ToolCall) (string, error) { return "ran", nil })
		}()
	}
	reqs := map[string]engine.ApprovalRequest{}
	for range 2 {
		r := <-asked
		reqs[r.Call.Name] = r
		if err := g.Engine().Delivered(r.ID); err != nil {
			t.Fatal(err)
		}
	}
	build, deploy := reqs["build"], reqs["deploy"]
	if build.Code == deploy.Code {
		t.Fatalf("two questions with one code %q", build.Code)
	}
	from := func(text string) Message { return Message{Platform: "slack", ChatID: "c7", UserID: "u", Text: text} }
	ok, err := g.Answer(from("yes"))
	if ok || !errors.Is(err, ErrUnclearAnswer) || !(strings.Contains(err.Error(), `"yes `+build.Code+`"`) || strings.Contains(err.Error(), `"yes `+deploy.Code+`"`)) {
		t.Fatalf("a bare yes with two questions: %v, %v; want no answer and how to answer", ok, err)
	}
	if p := g.Engine().Pending(); len(p) != 2 {
		t.Fatalf("pending %+v after a bare yes, want both waiting", p)
	}
	if ok, err := g.Answer(from("yes 999999")); ok || !errors.Is(err, ErrUnclearAnswer) || !strings.Contains(err.Error(), deploy.Code) {
		t.Fatalf("a code naming no question: %v, %v", ok, err)
	}
	if ok, err := g.Answer(from("/approve " + deploy.Code)); !ok || err != nil {
		t.Fatalf("the code form did not answer: %v", err)
	}
	if run := <-done["deploy"]; run.Block != nil || run.Result != "ran" {
		t.Errorf("deploy: %+v, want run", run)
	}
	// One question left: a bare answer is clear again.
	if ok, err := g.Answer(from("no")); !ok || err != nil {
		t.Fatalf("a bare no with one question: %v, %v", ok, err)
	}
	if run := <-done["build"]; run.Block == nil {
		t.Errorf("build: %+v, want blocked", run)
	}
	tr.Finish(ctx, "done")
}

// A turn nobody ended holds Close to its deadline; Close's error then names it (platform,
// chat, session) and the idiom that ends it, and says the deadline once.
func TestCloseNamesTurnsNeverEnded(t *testing.T) {
	g, _, _ := turnGateway(t, nil)
	ctx := context.Background()
	if _, err := g.StartTurn(ctx, Message{Platform: "telegram", ChatID: "c9", Text: "go", SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	ended, _ := g.StartTurn(ctx, Message{Platform: "slack", ChatID: "c1", Text: "go", SessionID: "s2"})
	ended.Fail(ctx, false)
	cctx, cancel := context.WithCancel(ctx)
	cancel() // the deadline has passed
	err := g.Close(cctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v, want the context's error", err)
	}
	msg := err.Error()
	for _, want := range []string{"1 turn never ended", "platform telegram, chat c9, session s1", "defer t.Fail(ctx, false)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Close's error %q does not say %q", msg, want)
		}
	}
	if err := g.Close(context.Background()); err != nil { // Close may be called again: it does not wait again
		t.Errorf("second Close = %v", err)
	}
	if strings.Contains(msg, "s2") {
		t.Errorf("Close's error %q names a turn that ended", msg)
	}
	if n := strings.Count(msg, context.Canceled.Error()); n != 1 {
		t.Errorf("Close's error says %q %d times, want once: %q", context.Canceled, n, msg)
	}
}

// closeSoon closes g, giving up on the turns still open after a while: a test that failed
// while a turn waited for an answer then ends instead of waiting for it.
func closeSoon(g *Gateway) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	g.Close(ctx)
}

// askLaterGateway is a gateway whose pre_tool_call plugin asks with callback (a Lua
// function) and whose approver answers later: each question comes out of asked (room for n).
func askLaterGateway(t *testing.T, callback string, n int) (*Gateway, chan engine.ApprovalRequest) {
	home := testutil.Home(t, map[string]string{"plugins/careful/plugin.yaml": "name: careful\n",
		"plugins/careful/handler.lua": `function register(ctx) ctx.register_hook("pre_tool_call", ` + callback + `) end`})
	asked := make(chan engine.ApprovalRequest, n)
	g, err := New(context.Background(), Options{Engine: engine.Options{Home: home,
		Approve: func(_ context.Context, r engine.ApprovalRequest) (bool, error) {
			asked <- r
			return false, engine.ErrAnswerLater
		}}})
	if err != nil {
		t.Fatal(err)
	}
	return g, asked
}
