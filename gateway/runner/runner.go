package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

// Agent is the model side of a conversation, implemented by the host.
//
// An error of Step or RunTool that is context.Canceled (errors.Is) while the runner's ctx is
// live says the user interrupted the turn: it ends without a reply, with on_session_end's
// interrupted=true (a tool call's failure is reported interrupted too).
type Agent interface {
	// Step returns the model's next step: tool calls to run, or the final response.
	Step(ctx context.Context, req StepRequest) (Step, error)
	// RunTool executes one tool call and returns its result (usually JSON).
	RunTool(ctx context.Context, call hookspec.ToolCall) (string, error)
	// Prompt runs a one-shot prompt outside any session (hermes.run_agent).
	Prompt(ctx context.Context, prompt string) (string, error)
}

// StepRequest is what the agent sees at each step of a turn.
type StepRequest struct {
	SessionID   string
	Platform    string
	UserMessage string             // after any rewrite by pre_gateway_dispatch
	Context     string             // injected by pre_llm_call for this turn only; never stored
	History     []hookspec.Message // the stored conversation before this turn
	Iteration   int                // 0 for the first step, then one per tool-calling step
	ToolResults []ToolResult       // results of the previous step's tool calls
	// Request is the whole request to the model as the hooks left it (pre_api_request,
	// wrap_llm_call): what a live agent sends to its model.
	Request hookspec.LLMRequest
}

// Step is one answer of the model.
type Step struct {
	Model     string
	ToolCalls []hookspec.ToolCall // Name, Args, ToolCallID (and DurationMS if known)
	Response  string
	Final     bool // Response is the final answer
}

// ToolResult is what the model gets back for one tool call.
type ToolResult struct {
	Call    hookspec.ToolCall
	Result  string
	Blocked bool
}

// Inbound is a message arriving from a platform.
type Inbound struct {
	Platform, UserID, ChatID, ChatType, MessageID, Text string
	Internal                                            bool
}

// Command is a slash command arriving from a platform.
type Command struct {
	Platform, UserID, ChatID, Name, Args string
}

// Options configure a Runner. The zero value works.
type Options struct {
	// Sync runs gateway hooks with EmitSync (waiting for them) instead of Emit, so the
	// timeline shows their results. Replays use it; a live gateway should not.
	Sync bool
	// Model is reported to hooks when the agent does not say; "" means "unknown".
	Model string
	// System and Tools are the system prompt and tool definitions of every request to the
	// model (llmstep.go); empty: none.
	System string
	Tools  []map[string]any
}

// Runner is the reference gateway: it drives conversations through the engine's hooks
// and the gateway's event hooks in the documented order, and records a Timeline.
// Its methods are safe for concurrent use; each call handles one inbound event.
type Runner struct {
	eng   *engine.Engine
	gw    *gateway.Gateway
	agent Agent
	opts  Options

	tracer trace.Tracer // the engine's; nil: no spans

	mu       sync.Mutex
	sessions map[string]*session // by session key
	nextID   int
	lastID   string
	timeline Timeline
	history  map[string][]hookspec.Message // by session id, as the session store keeps it
}

type session struct {
	id, key, platform, userID string
	started                   bool
	reserved                  int // messages that reserved it (reserve)
}

// New builds a runner over gw and its engine, with agent answering for the model.
func New(gw *gateway.Gateway, agent Agent, opts Options) *Runner {
	eng := gw.Engine()
	if opts.Model == "" {
		opts.Model = "unknown"
	}
	return &Runner{eng: eng, gw: gw, agent: agent, opts: opts, tracer: eng.Tracer(), sessions: map[string]*session{}, history: map[string][]hookspec.Message{}}
}

// HostFuncs returns the functions a runner offers to Lua hooks through the hermes module:
// run_agent(prompt) runs a one-shot prompt through agent and returns its text.
func HostFuncs(agent Agent) map[string]hookspec.Func {
	return map[string]hookspec.Func{
		"run_agent": func(ctx context.Context, args []any) (any, error) {
			prompt, ok := firstString(args)
			if !ok {
				return nil, fmt.Errorf("run_agent(prompt): prompt must be a string")
			}
			return agent.Prompt(ctx, prompt)
		},
	}
}

func firstString(args []any) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	s, ok := args[0].(string)
	return s, ok
}

// Startup emits gateway:startup.
func (r *Runner) Startup(ctx context.Context, platforms []string) {
	ctx, span := r.span(ctx, "startup", "", nil)
	defer span.End()
	r.emit(ctx, hookspec.StartupEvent{Platforms: platforms})
}

// traced is ctx with the runner's trace: every firing of the engine's hooks is recorded in
// the timeline, with a note when a transform replaced something (callID names the tool call
// a tool transform is about).
func (r *Runner) traced(ctx context.Context, callID string) context.Context {
	return engine.WithTrace(ctx, func(rep engine.Report) { r.report(rep, callID) })
}

// report records one firing of the engine's hooks (see traced).
func (r *Runner) report(rep engine.Report, callID string) {
	r.record(Entry{Event: rep.Event.String(), Hooks: rep.Hooks, Outcome: rep.Outcome})
	if rep.Decision.Kind != hookspec.Replace {
		return
	}
	switch rep.Event {
	case hookspec.TransformLLMOutput:
		r.note("response rewritten by transform_llm_output")
	case hookspec.TransformTerminalOutput:
		r.note("terminal output of %s replaced by transform_terminal_output", callID)
	case hookspec.TransformToolResult:
		r.note("tool result of %s replaced by transform_tool_result", callID)
	}
}

// turnTrace is what the trace of one message's turn tells the runner beyond the timeline:
// the hook of pre_verify that last asked to keep going.
type turnTrace struct {
	in           Inbound
	s            *session
	asked        bool
	hook, reason string
}

// tracedTurn is ctx with the trace of the turn of a message: traced's, with the notes of
// what the turn's hooks decided (pre_gateway_dispatch skipped or rewrote the message,
// pre_llm_call blocked the prompt), each attached to its firing.
func (r *Runner) tracedTurn(ctx context.Context, tt *turnTrace) context.Context {
	return engine.WithTrace(ctx, func(rep engine.Report) {
		r.report(rep, "")
		switch rep.Event {
		case hookspec.PreGatewayDispatch:
			switch d := rep.Dispatch(); d.Action {
			case engine.DispatchSkip:
				r.note("message skipped by %s: %s", d.Hook, d.Reason)
			case engine.DispatchRewrite:
				r.note("message rewritten by %s: %q -> %q", d.Hook, tt.in.Text, d.Text)
			}
		case hookspec.PreLLMCall:
			if rep.Decision.Kind == hookspec.Block {
				r.note("prompt blocked by %s: %s", deciderName(rep), rep.Decision.Message)
				r.flow("reply out to %s (the prompt was not sent): %q", tt.s.userID, rep.Decision.Message)
			}
		case hookspec.PreVerify:
			tt.asked = rep.Decision.Kind == hookspec.Continue
			tt.hook, tt.reason = deciderName(rep), rep.Decision.Message
		}
	})
}

// deciderName is the name of the hook whose answer decided rep, or "".
func deciderName(rep engine.Report) string {
	if by := rep.Decision.By; by >= 0 && by < len(rep.Hooks) {
		return rep.Hooks[by].Name
	}
	return ""
}

// HandleMessage runs one inbound message through the whole lifecycle, as a gateway.Turn,
// and returns the response delivered to the user ("" when the message was skipped).
func (r *Runner) HandleMessage(ctx context.Context, in Inbound) (string, error) {
	ctx, span := r.span(ctx, "message", in.Platform, nil)
	defer span.End()
	r.flow("message in from %s on %s: %q", in.UserID, in.Platform, in.Text)
	s, first, created := r.reserve(in.Platform, in.UserID, in.ChatID)
	tt := &turnTrace{in: in, s: s}
	ctx = r.tracedTurn(ctx, tt)
	history := r.historyOf(s.id)
	t, err := r.gw.StartTurn(ctx, gateway.Message{Platform: in.Platform, UserID: in.UserID, ChatID: in.ChatID,
		ChatType: in.ChatType, MessageID: in.MessageID, Text: in.Text, Internal: in.Internal,
		SessionID: s.id, NewSession: first, History: history, Model: r.opts.Model,
		Dispatch: engine.DispatchHost{Gateway: r.gatewayFacade(ctx), SessionStore: r.storeFacade(ctx)},
		Emit:     r.turnEmit(s), Recorded: true})
	if err != nil || t.Skipped {
		r.release(s, first, created)
		return "", err
	}
	defer t.Fail(ctx, false)
	r.mu.Lock()
	r.lastID = s.id
	r.mu.Unlock()
	if t.Blocked != nil {
		return t.Blocked.Message, nil
	}
	return r.turn(ctx, t, tt, history)
}

// turnEmit sends the gateway events of a turn of s (gateway.Message.Emit): the reply goes
// out, and into the history, as agent:end fires.
func (r *Runner) turnEmit(s *session) func(context.Context, hookspec.Event) {
	return func(ctx context.Context, ev hookspec.Event) {
		if end, ok := ev.(hookspec.AgentEndEvent); ok {
			r.appendHistory(s.id, hookspec.Message{Role: "user", Content: end.Message}, hookspec.Message{Role: "assistant", Content: end.Response})
			r.flow("reply out to %s: %q", s.userID, end.Response)
		}
		r.emit(ctx, ev)
	}
}

// turn runs the agent loop of a turn pre_llm_call let through: the steps, and pre_verify
// when the agent is about to stop (a hook's continue gives its reason to the agent as the
// next user turn, at most max_verify_nudges times). The gateway's step limit
// (gateway.Options.MaxSteps) bounds the steps hooks answer in a row without the agent
// (pre_api_request's respond, a wrap hook that never calls next): past it the turn ends
// without a reply, with gateway.ErrStepLimit. The agent's own steps are the agent's to
// bound (a transcript's, by its lines).
func (r *Runner) turn(ctx context.Context, t *gateway.Turn, tt *turnTrace, history []hookspec.Message) (string, error) {
	s := tt.s
	req := StepRequest{SessionID: s.id, Platform: s.platform, UserMessage: t.Text, Context: t.Context, History: history}
	if req.Context != "" {
		r.note("context injected for this turn (%d bytes), not stored in history", len(req.Context))
	}
	nudges := 0
	for {
		step, err := r.step(ctx, t, s, req)
		if interrupted(ctx, err) {
			return r.interrupt(ctx, t, err.Error())
		}
		if errors.Is(err, gateway.ErrStepLimit) {
			r.note("turn stopped: %v; no reply", err)
			t.Fail(ctx, false)
			return "", err
		}
		if err != nil {
			r.note("turn failed: %v", err)
			t.Fail(ctx, false)
			return "", err
		}
		if !step.Final || len(step.ToolCalls) > 0 {
			req.Iteration++
			var cut string
			req.ToolResults, cut = r.runTools(ctx, t, s, step.ToolCalls)
			if cut != "" {
				return r.interrupt(ctx, t, cut)
			}
			t.Step(ctx, toolNames(step.ToolCalls)...)
			if !step.Final {
				continue
			}
		}
		tt.asked = false
		if reason, ok := t.Verify(ctx, step.Response); ok || tt.asked {
			r.verifyNote(engine.VerifyDecision{Continue: ok, Capped: !ok, Reason: tt.reason, Hook: tt.hook},
				hookspec.Verify{Nudges: nudges})
			if ok {
				nudges++
				req.UserMessage, req.ToolResults = reason, nil
				req.Iteration++
				continue
			}
		}
		return t.Finish(ctx, step.Response), nil
	}
}

// interrupted reports whether err, from the agent, is the user interrupting the turn (a
// cancelled step or tool call while ctx itself goes on).
func interrupted(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) && ctx.Err() == nil
}

// interrupt ends a turn the user interrupted (why says where): no reply, and on_session_end
// with interrupted=true.
func (r *Runner) interrupt(ctx context.Context, t *gateway.Turn, why string) (string, error) {
	r.note("turn interrupted: %s; no reply", why)
	t.Fail(ctx, true)
	return "", nil
}

// runTools runs one step's tool calls, each through engine.RunTool: pre_tool_call, the
// tool, the terminal transform, post_tool_call and transform_tool_result. A call the user
// interrupted ends the step: cut says which, and the later calls do not run.
func (r *Runner) runTools(ctx context.Context, t *gateway.Turn, s *session, calls []hookspec.ToolCall) (results []ToolResult, cut string) {
	for _, call := range calls {
		call.SessionID, call.TaskID = s.id, s.id
		args, _ := json.Marshal(call.Args)
		r.flow("tool call %s: %s %s", call.ToolCallID, call.Name, args)
		run := t.RunTool(r.traced(ctx, call.ToolCallID), call, r.agent.RunTool)
		if blk := run.Block; blk != nil {
			r.note("tool call %s (%s) blocked by %s: %s", call.ToolCallID, call.Name, blk.Hook, blk.Message)
		}
		if run.Modified {
			ran, _ := json.Marshal(run.Args)
			r.flow("tool call %s ran with the arguments hooks left: %s", call.ToolCallID, ran)
		}
		r.flow("tool result %s, as the model sees it: %s", call.ToolCallID, shorten(run.Result, 120))
		results = append(results, ToolResult{Call: call, Result: run.Result, Blocked: run.Block != nil})
		if interrupted(ctx, run.Err) {
			return results, fmt.Sprintf("tool call %s (%s): %v", call.ToolCallID, call.Name, run.Err)
		}
	}
	return results, ""
}

// HandleCommand emits command:<name>; /new and /reset also finalize the session and
// start a new one: on_session_finalize (old id) -> session:end -> session:reset ->
// on_session_reset (new id).
func (r *Runner) HandleCommand(ctx context.Context, c Command) {
	ctx, span := r.span(ctx, "command", "", func() []attribute.KeyValue { return []attribute.KeyValue{attrCommand.String(c.Name)} })
	defer span.End()
	ctx = r.traced(ctx, "")
	r.emit(ctx, hookspec.CommandEvent{Platform: c.Platform, UserID: c.UserID, Command: c.Name, Args: c.Args})
	if c.Name != "new" && c.Name != "reset" {
		return
	}
	key := sessionKey(c.Platform, c.UserID, c.ChatID)
	r.mu.Lock()
	old := r.sessions[key]
	r.mu.Unlock()
	finalized := hookspec.Session{Platform: c.Platform}
	if old != nil {
		finalized.SessionID = old.id
	}
	r.eng.OnSessionFinalize(ctx, finalized)
	r.emit(ctx, hookspec.SessionEndEvent{Platform: c.Platform, UserID: c.UserID, SessionKey: key})
	s := r.newSession(c.Platform, c.UserID, key)
	r.emit(ctx, hookspec.SessionResetEvent{Platform: c.Platform, UserID: c.UserID, SessionKey: key})
	r.eng.OnSessionReset(ctx, hookspec.Session{SessionID: s.id, Platform: c.Platform})
}

// HandleApproval fires pre_approval_request and post_approval_response. When a hook
// answers the request, the person is not asked: the hook's answer is the choice ("once",
// "always" when it asks to remember, or "deny"), not a.Choice.
func (r *Runner) HandleApproval(ctx context.Context, a hookspec.Approval) {
	ctx, span := r.span(ctx, "approval", "", nil)
	defer span.End()
	ctx = r.traced(ctx, "")
	if choice, ok := r.hookApproval(ctx, a); ok {
		if a.Choice != "" && a.Choice != choice {
			r.note("the person was not asked (a hook answered %s); the transcript's choice %s is not used", choice, a.Choice)
		}
		a.Choice = choice
	}
	r.eng.PostApprovalResponse(ctx, a)
}

// HandleSubagent fires subagent_stop for the most recent session.
func (r *Runner) HandleSubagent(ctx context.Context, s hookspec.Subagent) {
	r.mu.Lock()
	s.ParentSessionID = r.lastID
	r.mu.Unlock()
	ctx, span := r.span(ctx, "subagent", "", nil)
	defer span.End()
	r.eng.SubagentStop(r.traced(ctx, ""), s)
}

// Shutdown finalizes every live session and drains the gateway hooks.
func (r *Runner) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	live := make([]*session, 0, len(r.sessions))
	for _, s := range r.sessions {
		live = append(live, s)
	}
	r.mu.Unlock()
	slices.SortFunc(live, func(a, b *session) int { return compareIDs(a.id, b.id) })
	ctx, span := r.span(ctx, "shutdown", "", nil)
	defer span.End()
	ctx = r.traced(ctx, "")
	for _, s := range live {
		r.eng.OnSessionFinalize(ctx, hookspec.Session{SessionID: s.id, Platform: s.platform})
	}
	r.record(Entry{Event: "shutdown", Note: "gateway hooks drained"})
	return r.gw.Close(ctx)
}

// reserve returns the session of a chat for a message, creating it if needed (created),
// and whether this message starts it (first): of concurrent messages to a new chat, exactly
// one does. A message that does not become a turn gives it back with release.
func (r *Runner) reserve(platform, userID, chatID string) (s *session, first, created bool) {
	key := sessionKey(platform, userID, chatID)
	r.mu.Lock()
	defer r.mu.Unlock()
	s = r.sessions[key]
	if s == nil {
		s, created = r.addSession(platform, userID, key), true
	}
	first = !s.started
	s.started = true
	s.reserved++
	return s, first, created
}

// release gives back the session reserve returned for a message that did not become a
// turn (pre_gateway_dispatch skipped it): the chat's next message starts it, and a session
// the message created, and no other message reserved meanwhile, is forgotten, its number
// given back when no later one was taken.
func (r *Runner) release(s *session, first, created bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if first {
		s.started = false
	}
	if created && s.reserved == 1 && r.sessions[s.key] == s {
		delete(r.sessions, s.key)
		if s.id == fmt.Sprintf("sess-%d", r.nextID) {
			r.nextID--
		}
	}
}

func (r *Runner) newSession(platform, userID, key string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addSession(platform, userID, key)
}

// addSession creates the session of key, replacing any; r.mu must be held.
func (r *Runner) addSession(platform, userID, key string) *session {
	r.nextID++
	s := &session{id: fmt.Sprintf("sess-%d", r.nextID), key: key, platform: platform, userID: userID}
	r.sessions[key] = s
	return s
}

func sessionKey(platform, userID, chatID string) string {
	if chatID != "" {
		return platform + ":" + chatID
	}
	return platform + ":" + userID
}

func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func (r *Runner) historyOf(id string) []hookspec.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.history[id])
}

func (r *Runner) appendHistory(id string, msgs ...hookspec.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.history[id] = append(r.history[id], msgs...)
}

// History returns the stored conversation of a session (what a session store would keep).
func (r *Runner) History(sessionID string) []hookspec.Message { return r.historyOf(sessionID) }

func toolNames(calls []hookspec.ToolCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Name
	}
	return out
}

// shorten cuts s to n runes, marking the cut.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}
