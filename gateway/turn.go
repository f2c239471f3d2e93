package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// Message is an inbound message of a chat, as the host hands it to StartTurn.
type Message struct {
	Platform, UserID, ChatID, ChatType, MessageID string
	Text                                          string
	// Internal marks a message the host made itself (a scheduled prompt):
	// pre_gateway_dispatch does not see it.
	Internal bool
	// SessionID is the host's session of the chat. NewSession says this message starts it:
	// session:start and on_session_start fire before the turn.
	SessionID  string
	NewSession bool
	// History is the conversation so far, as pre_llm_call's hooks see it; the turn's first
	// message is IsFirstTurn when it is empty.
	History []hookspec.Message
	// Model is the model the turn runs on, as hooks are told; a response to RunLLM that
	// names its model is the model for the rest of the turn.
	Model string
	// Dispatch holds the host objects pre_gateway_dispatch's hooks get (kw.gateway,
	// kw.session_store); zero: none.
	Dispatch engine.DispatchHost
	// Emit, when set, sends the turn's gateway events (session:start, agent:start,
	// agent:step, agent:end) instead of Gateway.Emit: a host that waits for their hooks
	// (Gateway.EmitSync) or records them. nil: Gateway.Emit.
	Emit func(context.Context, hookspec.Event)
	// Recorded: the model's answers come from a record that bounds them (a replayed
	// transcript), so the step limit (Options.MaxSteps) counts only the requests to the
	// model that hooks answered in a row without calling it.
	Recorded bool
}

// Turn runs the hooks of one user turn in the documented order (docs/events.md, "The order
// of a whole conversation"), so that a host wires a turn with a handful of calls:
//
//	t, err := gw.StartTurn(ctx, msg) // pre_gateway_dispatch, session start, agent:start, pre_llm_call
//	... t.RunTool(ctx, call, run) for each tool call of a model step, then t.Step(ctx, names...)
//	... t.Verify(ctx, response) when the model is done: a hook may keep it going
//	reply := t.Finish(ctx, response) // transform_llm_output, post_llm_call, agent:end, on_session_end
//
// Every call of the turn carries its chat (engine.WithOrigin), so a hook's ask names the
// chat to ask in, and Gateway.Answer reads the reply. A turn ends with Finish or Fail
// (either may be deferred: the second call does nothing); Close waits for the turns in
// flight to end before it closes the hooks. A Turn's methods are not for concurrent use,
// except RunTool.
type Turn struct {
	// Skipped: pre_gateway_dispatch skipped the message (SkipReason says why, may be
	// empty). Nothing else runs and the turn has ended.
	Skipped    bool
	SkipReason string
	// Blocked: pre_llm_call blocked the prompt. Send Blocked.Message instead of a model
	// turn; the turn has ended (on_session_end fired with completed=false).
	Blocked *engine.Block
	// Text is the message as hooks left it (pre_gateway_dispatch may rewrite it).
	Text string
	// Context is what hooks add to Text for this turn only; do not store it in the history.
	Context string

	g        *Gateway
	msg      Message
	origin   engine.Origin
	steps    int
	llmCalls int // requests to the model (RunLLM), against the step limit
	nudges   int
	ended    bool
	span     trace.Span        // the turn's (invoke_agent); nil: not traced
	parent   trace.SpanContext // the span the turn started in: a call in it runs in the turn's span
}

// StartTurn starts the turn of an inbound message: pre_gateway_dispatch (not for an
// internal message), then, for a new session, session:start and on_session_start, then
// agent:start and pre_llm_call. It fails with ErrClosed once Close has begun.
func (g *Gateway) StartTurn(ctx context.Context, m Message) (*Turn, error) {
	t := &Turn{g: g, msg: m, Text: m.Text, origin: engine.Origin{Platform: m.Platform, ChatID: m.ChatID, UserID: m.UserID}}
	if !g.turns.start(t) {
		return nil, ErrClosed
	}
	ctx = engine.WithOrigin(t.startSpan(ctx), t.origin)
	eng := g.eng
	if !m.Internal {
		ev := hookspec.DispatchEvent{Text: m.Text, Platform: m.Platform, UserID: m.UserID, ChatID: m.ChatID,
			ChatType: m.ChatType, MessageID: m.MessageID}
		switch d := eng.PreGatewayDispatch(ctx, ev, m.Dispatch); d.Action {
		case engine.DispatchSkip:
			t.Skipped, t.SkipReason = true, d.Reason
			t.end("skipped")
			return t, nil
		case engine.DispatchRewrite:
			t.Text = d.Text
		}
	}
	if m.NewSession {
		t.emit(ctx, hookspec.SessionStartEvent{Platform: m.Platform, UserID: m.UserID, SessionID: m.SessionID, SessionKey: t.sessionKey()})
		eng.OnSessionStart(ctx, t.session())
	}
	t.emit(ctx, hookspec.AgentStartEvent{Platform: m.Platform, UserID: m.UserID, SessionID: m.SessionID, Message: t.Text})
	d := eng.DecideTurn(ctx, t.llmTurn(""))
	if d.Block != nil {
		t.Blocked = d.Block
		eng.OnSessionEnd(ctx, hookspec.SessionResult{Session: t.session()})
		t.end("blocked")
		return t, nil
	}
	t.Context = d.Context
	return t, nil
}

// RunTool runs one tool call of the turn through engine.Engine.RunTool (pre_tool_call, the
// tool, the transforms and post_tool_call), with the turn's session and chat. It is safe
// to call for several calls of a step at once.
func (t *Turn) RunTool(ctx context.Context, call hookspec.ToolCall, run func(context.Context, hookspec.ToolCall) (string, error)) engine.ToolRun {
	if call.SessionID == "" {
		call.SessionID = t.msg.SessionID
	}
	ctx, span := t.childSpan(t.in(ctx), "execute_tool "+call.Name, func() []attribute.KeyValue {
		return []attribute.KeyValue{attrOperation.String("execute_tool"), engine.AttrToolName.String(call.Name),
			engine.AttrToolCallID.String(call.ToolCallID), engine.AttrConversationID.String(call.SessionID)}
	})
	defer span.End()
	r := t.g.eng.RunTool(ctx, call, run)
	if span.IsRecording() {
		span.SetAttributes(attrBlocked.Bool(r.Block != nil))
	}
	return r
}

// Step emits agent:step for a model step that called the tools named.
func (t *Turn) Step(ctx context.Context, toolNames ...string) {
	t.steps++
	t.emit(t.in(ctx), hookspec.AgentStepEvent{Platform: t.msg.Platform, UserID: t.msg.UserID, SessionID: t.msg.SessionID,
		Iteration: t.steps, ToolNames: toolNames})
}

// Verify fires pre_verify when the model is about to give response as its final answer.
// goOn: a hook wants the agent to keep going; give reason to the model as the next user
// message, and call Verify again when it is done. The turn's max_verify_nudges bounds it.
func (t *Turn) Verify(ctx context.Context, response string) (reason string, goOn bool) {
	d := t.g.eng.PreVerify(t.in(ctx), hookspec.Verify{SessionID: t.msg.SessionID, UserMessage: t.Text,
		Response: response, Nudges: t.nudges, Model: t.msg.Model, Platform: t.msg.Platform})
	if !d.Continue {
		return "", false
	}
	t.nudges++
	return d.Reason, true
}

// Finish ends the turn with the model's final response and returns the reply to deliver:
// transform_llm_output, post_llm_call, agent:end, on_session_end (completed). After the
// turn ended it returns response as it is and fires nothing.
func (t *Turn) Finish(ctx context.Context, response string) string {
	if t.ended {
		return response
	}
	defer t.end("finished")
	ctx = t.in(ctx)
	eng := t.g.eng
	reply := eng.TransformLLMOutput(ctx, hookspec.LLMOutput{ResponseText: response, SessionID: t.msg.SessionID,
		Model: t.msg.Model, Platform: t.msg.Platform})
	eng.PostLLMCall(ctx, t.llmTurn(reply))
	t.emit(ctx, hookspec.AgentEndEvent{Platform: t.msg.Platform, UserID: t.msg.UserID, SessionID: t.msg.SessionID,
		Message: t.Text, Response: reply})
	eng.OnSessionEnd(ctx, hookspec.SessionResult{Session: t.session(), Completed: true})
	return reply
}

// Fail ends a turn that did not reach a final response (the model failed, the user
// interrupted): on_session_end with completed=false (and interrupted as given). After the
// turn ended it does nothing.
func (t *Turn) Fail(ctx context.Context, interrupted bool) {
	if t.ended {
		return
	}
	defer t.end(map[bool]string{true: "interrupted", false: "failed"}[interrupted])
	t.g.eng.OnSessionEnd(t.in(ctx), hookspec.SessionResult{Session: t.session(), Interrupted: interrupted})
}

// emit sends a gateway event of the turn (Message.Emit).
func (t *Turn) emit(ctx context.Context, ev hookspec.Event) {
	if t.msg.Emit != nil {
		t.msg.Emit(ctx, ev)
		return
	}
	t.g.Emit(ctx, ev)
}

// end ends the turn (and its span, with outcome) once.
func (t *Turn) end(outcome string) {
	if !t.ended {
		t.ended = true
		t.endSpan(outcome)
		t.g.turns.done(t)
	}
}

func (t *Turn) session() hookspec.Session {
	return hookspec.Session{SessionID: t.msg.SessionID, Model: t.msg.Model, Platform: t.msg.Platform}
}

func (t *Turn) llmTurn(response string) hookspec.LLMTurn {
	return hookspec.LLMTurn{SessionID: t.msg.SessionID, UserMessage: t.Text, ConversationHistory: t.msg.History,
		IsFirstTurn: len(t.msg.History) == 0, Model: t.msg.Model, Platform: t.msg.Platform, SenderID: t.msg.UserID,
		AssistantResponse: response}
}

// sessionKey names the chat: platform:chat, else platform:user.
func (t *Turn) sessionKey() string {
	if t.msg.ChatID != "" {
		return t.msg.Platform + ":" + t.msg.ChatID
	}
	return t.msg.Platform + ":" + t.msg.UserID
}

// ErrUnclearAnswer is Answer's error for a message that answers the questions waiting on its
// chat but does not say which one: its message says how to answer.
var ErrUnclearAnswer = errors.New("gateway: the answer does not say which question it answers")

// Answer reads m, a message that arrived on a chat, as the answer to an approval request of
// that chat waiting for one (engine.Options.Approve returned engine.ErrAnswerLater) whose
// question reached the user (engine.Engine.Delivered): "yes", "y", "ok", "approve", "allow"
// (and /approve) let the call run; "no", "n", "deny" (and /deny) block it. Followed by a
// request's Code ("yes 7", "/deny 7") it answers that request; alone, it answers the one
// question waiting on the chat. Only the user whose turn asked answers it: in a group chat,
// another member's "yes" is an ordinary message, and so is a "yes" before any question
// was delivered.
//
// It reports whether m answered a request. When it did not and err is nil, the host
// handles m as usual. When err is not nil (it wraps ErrUnclearAnswer), m was an answer
// that answered nothing: several questions wait and it names none, or it names one that
// does not wait; send err's message to the user, which says how to answer, and do not
// handle m as a message. Call it before taking the chat's own lock: the turn that asked
// holds it while it waits.
func (g *Gateway) Answer(m Message) (bool, error) {
	words := strings.Fields(strings.ToLower(strings.TrimPrefix(strings.TrimSpace(m.Text), "/")))
	if len(words) == 0 || len(words) > 2 {
		return false, nil
	}
	var allow bool
	switch words[0] {
	case "yes", "y", "ok", "approve", "allow":
		allow = true
	case "no", "n", "deny":
	default:
		return false, nil
	}
	var asked []engine.ApprovalRequest // delivered to this user on this chat, oldest first
	for _, req := range g.eng.Pending() {
		if o := req.Origin; req.Delivered && o.Platform == m.Platform && o.ChatID == m.ChatID && o.UserID == m.UserID {
			asked = append(asked, req)
		}
	}
	if len(asked) == 0 {
		return false, nil
	}
	codes := make([]string, len(asked))
	for i, req := range asked {
		codes[i] = req.Code
	}
	howTo := fmt.Sprintf("answer %q or %q", words[0]+" "+codes[0], "no "+codes[0])
	if len(words) == 2 {
		code := strings.TrimPrefix(words[1], "#")
		i := slices.Index(codes, code)
		if i < 0 {
			return false, fmt.Errorf("%w: no question %s waits for your answer here (waiting: %s); %s", ErrUnclearAnswer,
				code, strings.Join(codes, ", "), howTo)
		}
		return g.eng.Answer(asked[i].ID, allow) == nil, nil
	}
	if len(asked) > 1 {
		return false, fmt.Errorf("%w: %d questions wait for your answer here (%s): name one, e.g. %s", ErrUnclearAnswer,
			len(asked), strings.Join(codes, ", "), howTo)
	}
	return g.eng.Answer(asked[0].ID, allow) == nil, nil
}

// turnCount counts the turns in flight, for Close, which names those never ended.
type turnCount struct {
	mu      sync.Mutex
	open    map[*Turn]struct{}
	closing bool
	gaveUp  bool          // a Close stopped waiting: a later one does not wait again
	idle    chan struct{} // closed when open drops to 0 while closing
}

// start counts a new turn; false once Close has begun.
func (c *turnCount) start(t *Turn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	if c.open == nil {
		c.open = map[*Turn]struct{}{}
	}
	c.open[t] = struct{}{}
	return true
}

func (c *turnCount) done(t *Turn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.open, t)
	if len(c.open) == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// unended is the error of a Close that gave up waiting (ctx is done) for the turns still
// open: it names each (its platform, chat and session), so the host finds the code path
// that neither finished nor failed it; nil when none is open.
func (c *turnCount) unended(ctx context.Context) error {
	c.mu.Lock()
	c.gaveUp = true
	names := make([]string, 0, len(c.open))
	for t := range c.open {
		names = append(names, t.name())
	}
	c.mu.Unlock()
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	const most = 5
	if len(names) > most {
		names = append(names[:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	return fmt.Errorf("gateway: Close stopped waiting for %s never ended (%s): end every turn with Finish or Fail, e.g. defer t.Fail(ctx, false) after StartTurn: %w",
		plural(len(names), "turn"), strings.Join(names, "; "), context.Cause(ctx))
}

// name names a turn in Close's error.
func (t *Turn) name() string {
	s := "platform " + t.msg.Platform
	if t.msg.ChatID != "" {
		s += ", chat " + t.msg.ChatID
	}
	if t.msg.SessionID != "" {
		s += ", session " + t.msg.SessionID
	}
	return s
}

// plural is "1 turn", "2 turns".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// close refuses new turns and returns a channel closed once none is in flight.
func (c *turnCount) close() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
	ch := make(chan struct{})
	if len(c.open) == 0 || c.gaveUp {
		close(ch)
	} else {
		c.idle = ch
	}
	return ch
}
