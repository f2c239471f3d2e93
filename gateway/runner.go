package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/engine"
)

// Agent is the model side of a conversation, implemented by the host.
type Agent interface {
	// Step returns the model's next step: tool calls to run, or the final response.
	Step(ctx context.Context, req StepRequest) (Step, error)
	// RunTool executes one tool call and returns its result (usually JSON).
	RunTool(ctx context.Context, call engine.ToolCall) (string, error)
	// Prompt runs a one-shot prompt outside any session (hermes.run_agent).
	Prompt(ctx context.Context, prompt string) (string, error)
}

// StepRequest is what the agent sees at each step of a turn.
type StepRequest struct {
	SessionID   string
	Platform    string
	UserMessage string       // after any rewrite by pre_gateway_dispatch
	Context     string       // injected by pre_llm_call for this turn only; never stored
	History     []Message    // the stored conversation before this turn
	Iteration   int          // 0 for the first step, then one per tool-calling step
	ToolResults []ToolResult // results of the previous step's tool calls
}

// Message is one stored message of a conversation.
type Message struct {
	Role    string `json:"role"` // "user" or "assistant"
	Content string `json:"content"`
}

// Step is one answer of the model.
type Step struct {
	Model     string
	ToolCalls []engine.ToolCall // Name, Args, ToolCallID (and DurationMS if known)
	Response  string
	Final     bool // Response is the final answer
}

// ToolResult is what the model gets back for one tool call.
type ToolResult struct {
	Call    engine.ToolCall
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

// Approval is a dangerous command that asked the user, and the answer.
type Approval struct {
	Command, Description, PatternKey string
	PatternKeys                      []string
	SessionKey, Surface, Choice      string
}

// Subagent is a finished child of a delegation.
type Subagent struct {
	Role, Summary, Status string
	DurationMS            int64
}

// RunnerOptions configure a Runner. The zero value works.
type RunnerOptions struct {
	// Sync runs gateway hooks with EmitSync (waiting for them) instead of Emit, so the
	// timeline shows their results. Replays use it; a live gateway should not.
	Sync bool
	// Model is reported to hooks when the agent does not say; "" means "unknown".
	Model string
}

// Runner is the reference gateway: it drives conversations through the engine's hooks
// and the gateway's event hooks in the documented order, and records a Timeline.
// Its methods are safe for concurrent use; each call handles one inbound event.
type Runner struct {
	eng   *engine.Engine
	gw    *Gateway
	agent Agent
	opts  RunnerOptions

	mu       sync.Mutex
	sessions map[string]*session // by session key
	nextID   int
	lastID   string
	timeline Timeline
	history  map[string][]Message // by session id, as the session store keeps it
}

type session struct {
	id, key, platform, userID string
	started                   bool
}

// NewRunner builds a runner over eng and gw (gw may be nil: no gateway hooks).
func NewRunner(eng *engine.Engine, gw *Gateway, agent Agent, opts RunnerOptions) *Runner {
	if opts.Model == "" {
		opts.Model = "unknown"
	}
	return &Runner{eng: eng, gw: gw, agent: agent, opts: opts, sessions: map[string]*session{}, history: map[string][]Message{}}
}

// HostFuncs returns the functions a runner offers to Lua hooks through the hermes module:
// run_agent(prompt) runs a one-shot prompt through agent and returns its text.
func HostFuncs(agent Agent) map[string]engine.Func {
	return map[string]engine.Func{
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
	r.emit(ctx, GatewayStartup, map[string]any{"platforms": toAny(platforms)}, "")
}

// HandleMessage runs one inbound message through the whole lifecycle and returns the
// response delivered to the user ("" when the message was skipped).
func (r *Runner) HandleMessage(ctx context.Context, in Inbound) (string, error) {
	text := in.Text
	if !in.Internal {
		ev := engine.DispatchEvent{Text: in.Text, Platform: in.Platform, UserID: in.UserID, ChatID: in.ChatID,
			ChatType: in.ChatType, MessageID: in.MessageID}
		rep := r.fire(ctx, engine.PreGatewayDispatch, map[string]any{"event": ev.Table(), "gateway": r.gatewayFacade(ctx), "session_store": r.storeFacade(ctx)})
		switch d := rep.Dispatch(); d.Action {
		case engine.DispatchSkip:
			r.note("message skipped by %s: %s", d.Hook, d.Reason)
			return "", nil
		case engine.DispatchRewrite:
			r.note("message rewritten by %s: %q -> %q", d.Hook, in.Text, d.Text)
			text = d.Text
		}
	}
	s, first := r.session(in.Platform, in.UserID, in.ChatID)
	if first {
		r.emit(ctx, SessionStart, map[string]any{"platform": s.platform, "user_id": s.userID, "session_id": s.id, "session_key": s.key}, "")
		r.fire(ctx, engine.OnSessionStart, map[string]any{"session_id": s.id, "model": r.opts.Model, "platform": s.platform})
	}
	return r.turn(ctx, s, in, text)
}

// turn runs the agent loop for one message.
func (r *Runner) turn(ctx context.Context, s *session, in Inbound, text string) (string, error) {
	base := map[string]any{"platform": s.platform, "user_id": s.userID, "session_id": s.id}
	r.emit(ctx, AgentStart, with(base, "message", text), "")
	history := r.historyOf(s.id)
	rep := r.fire(ctx, engine.PreLLMCall, map[string]any{
		"session_id": s.id, "user_message": text, "conversation_history": messagesAny(history),
		"is_first_turn": len(history) == 0, "model": r.opts.Model, "platform": s.platform, "sender_id": in.UserID,
	})
	req := StepRequest{SessionID: s.id, Platform: s.platform, UserMessage: text, Context: rep.Context(), History: history}
	if req.Context != "" {
		r.note("context injected for this turn (%d bytes), not stored in history", len(req.Context))
	}
	model := r.opts.Model
	for {
		step, err := r.agent.Step(ctx, req)
		if err != nil {
			r.note("turn failed: %v", err)
			r.fire(ctx, engine.OnSessionEnd, map[string]any{"session_id": s.id, "completed": false, "interrupted": false, "model": model, "platform": s.platform})
			return "", err
		}
		if step.Model != "" {
			model = step.Model
		}
		if !step.Final || len(step.ToolCalls) > 0 {
			req.Iteration++
			req.ToolResults = r.runTools(ctx, s, step.ToolCalls)
			r.emit(ctx, AgentStep, with(with(base, "iteration", req.Iteration), "tool_names", toolNames(step.ToolCalls)), "")
			if !step.Final {
				continue
			}
		}
		out := r.fire(ctx, engine.TransformLLMOutput, map[string]any{"response_text": step.Response, "session_id": s.id, "model": model, "platform": s.platform})
		response := step.Response
		if t, ok := out.Text(); ok {
			response = t
			r.note("response rewritten by transform_llm_output")
		}
		r.fire(ctx, engine.PostLLMCall, map[string]any{
			"session_id": s.id, "user_message": text, "assistant_response": response,
			"conversation_history": messagesAny(history), "model": model, "platform": s.platform,
		})
		r.appendHistory(s.id, Message{Role: "user", Content: text}, Message{Role: "assistant", Content: response})
		r.emit(ctx, AgentEnd, with(with(base, "message", text), "response", response), "")
		r.fire(ctx, engine.OnSessionEnd, map[string]any{"session_id": s.id, "completed": true, "interrupted": false, "model": model, "platform": s.platform})
		return response, nil
	}
}

// runTools runs one step's tool calls through pre_tool_call, the tool, the terminal
// transform, post_tool_call and transform_tool_result.
func (r *Runner) runTools(ctx context.Context, s *session, calls []engine.ToolCall) []ToolResult {
	var results []ToolResult
	for _, call := range calls {
		call.SessionID, call.TaskID = s.id, s.id
		kw := map[string]any{"tool_name": call.Name, "args": argsOf(call), "task_id": call.TaskID, "session_id": call.SessionID, "tool_call_id": call.ToolCallID}
		if blk := r.fire(ctx, engine.PreToolCall, kw).Block(); blk != nil {
			res, _ := json.Marshal(map[string]string{"error": blk.Message})
			r.note("tool call %s (%s) blocked by %s: %s", call.ToolCallID, call.Name, blk.Hook, blk.Message)
			results = append(results, ToolResult{Call: call, Result: string(res), Blocked: true})
			continue
		}
		start := time.Now()
		result, err := r.agent.RunTool(ctx, call)
		if err != nil {
			res, _ := json.Marshal(map[string]string{"error": err.Error()})
			result = string(res)
		}
		if call.DurationMS == 0 {
			call.DurationMS = time.Since(start).Milliseconds()
		}
		if call.Name == "terminal" {
			result = r.terminalOutput(ctx, call, result)
		}
		kw = with(with(kw, "result", result), "duration_ms", call.DurationMS)
		r.fire(ctx, engine.PostToolCall, kw)
		if t, ok := r.fire(ctx, engine.TransformToolResult, kw).Text(); ok {
			result = t
			r.note("tool result of %s replaced by transform_tool_result", call.ToolCallID)
		}
		results = append(results, ToolResult{Call: call, Result: result})
	}
	return results
}

// terminalOutput applies transform_terminal_output to a terminal result of the form
// {"output": "...", "exit_code": n}.
func (r *Runner) terminalOutput(ctx context.Context, call engine.ToolCall, result string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(result), &obj) != nil {
		return result
	}
	output, ok := obj["output"].(string)
	if !ok {
		return result
	}
	exit, _ := obj["exit_code"].(float64)
	cmd, _ := argsOf(call)["command"].(string)
	cwd, _ := os.Getwd()
	rep := r.fire(ctx, engine.TransformTerminalOutput, map[string]any{"command": cmd, "output": output, "exit_code": int(exit), "cwd": cwd, "task_id": call.TaskID})
	t, ok := rep.Text()
	if !ok {
		return result
	}
	obj["output"] = t
	b, _ := json.Marshal(obj)
	r.note("terminal output of %s replaced by transform_terminal_output", call.ToolCallID)
	return string(b)
}

// HandleCommand emits command:<name>; /new and /reset also finalize the session and
// start a new one: on_session_finalize (old id) -> session:end -> session:reset ->
// on_session_reset (new id).
func (r *Runner) HandleCommand(ctx context.Context, c Command) {
	r.emit(ctx, CommandPrefix+c.Name, map[string]any{"platform": c.Platform, "user_id": c.UserID, "command": c.Name, "args": c.Args}, "")
	if c.Name != "new" && c.Name != "reset" {
		return
	}
	key := sessionKey(c.Platform, c.UserID, c.ChatID)
	r.mu.Lock()
	old := r.sessions[key]
	r.mu.Unlock()
	var oldID any
	if old != nil {
		oldID = old.id
	}
	r.fire(ctx, engine.OnSessionFinalize, map[string]any{"session_id": oldID, "platform": c.Platform})
	keyed := map[string]any{"platform": c.Platform, "user_id": c.UserID, "session_key": key}
	r.emit(ctx, SessionEnd, keyed, "")
	s := r.newSession(c.Platform, c.UserID, key)
	r.emit(ctx, SessionReset, keyed, "")
	r.fire(ctx, engine.OnSessionReset, map[string]any{"session_id": s.id, "platform": c.Platform})
}

// HandleApproval fires pre_approval_request and post_approval_response.
func (r *Runner) HandleApproval(ctx context.Context, a Approval) {
	kw := map[string]any{"command": a.Command, "description": a.Description, "pattern_key": a.PatternKey,
		"pattern_keys": toAny(a.PatternKeys), "session_key": a.SessionKey, "surface": a.Surface}
	r.fire(ctx, engine.PreApprovalRequest, kw)
	r.fire(ctx, engine.PostApprovalResponse, with(kw, "choice", a.Choice))
}

// HandleSubagent fires subagent_stop for the most recent session.
func (r *Runner) HandleSubagent(ctx context.Context, s Subagent) {
	r.mu.Lock()
	parent := r.lastID
	r.mu.Unlock()
	var role any
	if s.Role != "" {
		role = s.Role
	}
	r.fire(ctx, engine.SubagentStop, map[string]any{"parent_session_id": parent, "child_role": role,
		"child_summary": s.Summary, "child_status": s.Status, "duration_ms": s.DurationMS})
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
	for _, s := range live {
		r.fire(ctx, engine.OnSessionFinalize, map[string]any{"session_id": s.id, "platform": s.platform})
	}
	if r.gw == nil {
		return nil
	}
	r.record(Entry{Event: "shutdown", Note: "gateway hooks drained"})
	return r.gw.Close(ctx)
}

// session returns the session of a chat, creating it if needed, and whether this call starts
// it: of concurrent messages to a new chat, exactly one does.
func (r *Runner) session(platform, userID, chatID string) (*session, bool) {
	key := sessionKey(platform, userID, chatID)
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[key]
	if s == nil {
		s = r.addSession(platform, userID, key)
	}
	r.lastID = s.id
	first := !s.started
	s.started = true
	return s, first
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

func (r *Runner) historyOf(id string) []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.history[id])
}

func (r *Runner) appendHistory(id string, msgs ...Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.history[id] = append(r.history[id], msgs...)
}

// History returns the stored conversation of a session (what a session store would keep).
func (r *Runner) History(sessionID string) []Message { return r.historyOf(sessionID) }

func with(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for kk, vv := range m {
		out[kk] = vv
	}
	out[k] = v
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func toolNames(calls []engine.ToolCall) []any {
	out := make([]any, len(calls))
	for i, c := range calls {
		out[i] = c.Name
	}
	return out
}

func argsOf(c engine.ToolCall) map[string]any {
	if c.Args == nil {
		return map[string]any{}
	}
	return c.Args
}

func messagesAny(ms []Message) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	return out
}
