package runner

import (
	"context"
	"fmt"
	"io"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

// Entry is one step of a timeline: a hook firing (plugin/shell hooks or gateway event),
// a host action (gateway.send, session_store.append_to_transcript), or a note of what the
// runner did.
type Entry struct {
	Event   string            `json:"event"`
	Hooks   []hookspec.Result `json:"hooks"`
	Outcome any               `json:"outcome"`
	Note    string            `json:"note,omitempty"`
	// Flow, on an entry whose Event is "flow", is what flowed through the gateway there: the
	// message that came in, a tool call and its result, the reply that went out.
	Flow string `json:"flow,omitempty"`
}

// Timeline is everything a runner did, in order.
type Timeline struct {
	Events []Entry `json:"events"`
}

// Timeline returns a copy of what the runner recorded so far.
func (r *Runner) Timeline() Timeline {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Timeline{Events: append([]Entry{}, r.timeline.Events...)}
}

func (r *Runner) record(e Entry) {
	if e.Hooks == nil {
		e.Hooks = []hookspec.Result{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timeline.Events = append(r.timeline.Events, e)
}

// flow records what flowed through the gateway: a message in, a tool call, a reply out.
func (r *Runner) flow(format string, args ...any) {
	r.record(Entry{Event: "flow", Flow: fmt.Sprintf(format, args...)})
}

// note records what the runner did, attached to the latest entry.
func (r *Runner) note(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	if n := len(r.timeline.Events); n > 0 && r.timeline.Events[n-1].Note == "" && r.timeline.Events[n-1].Event != "flow" {
		r.timeline.Events[n-1].Note = msg
		return
	}
	r.timeline.Events = append(r.timeline.Events, Entry{Event: "note", Hooks: []hookspec.Result{}, Note: msg})
}

// emit sends a gateway event: EmitSync in Sync mode (recorded with results), else Emit.
func (r *Runner) emit(ctx context.Context, ev hookspec.Event) {
	if !r.opts.Sync {
		r.gw.Emit(ctx, ev)
		return
	}
	rs := r.gw.EmitSync(ctx, ev)
	if len(rs) == 0 {
		return
	}
	var outcome []any
	for _, h := range rs {
		if h.Result != nil {
			outcome = append(outcome, h.Result)
		}
	}
	r.record(Entry{Event: ev.EventName(), Hooks: rs, Outcome: outcome})
}

// gatewayFacade is the `gateway` object of pre_gateway_dispatch: send(platform,
// chat_id, text), recorded in the timeline.
func (r *Runner) gatewayFacade(ctx context.Context) map[string]any {
	return map[string]any{"send": hookspec.Func(func(_ context.Context, args []any) (any, error) {
		if len(args) > 0 {
			if _, isTable := args[0].(map[string]any); isTable { // gateway:send(...) passes the table first
				args = args[1:]
			}
		}
		if len(args) < 3 {
			return nil, fmt.Errorf("gateway.send(platform, chat_id, text): want 3 arguments, got %d", len(args))
		}
		r.record(Entry{Event: "gateway.send", Outcome: map[string]any{"platform": args[0], "chat_id": args[1], "text": args[2]}})
		return true, nil
	})}
}

// storeFacade is the `session_store` object of pre_gateway_dispatch:
// append_to_transcript(session_id, text), recorded in the timeline.
func (r *Runner) storeFacade(ctx context.Context) map[string]any {
	return map[string]any{"append_to_transcript": hookspec.Func(func(_ context.Context, args []any) (any, error) {
		if len(args) > 0 {
			if _, isTable := args[0].(map[string]any); isTable {
				args = args[1:]
			}
		}
		if len(args) < 2 {
			return nil, fmt.Errorf("session_store.append_to_transcript(session_id, text): want 2 arguments, got %d", len(args))
		}
		r.record(Entry{Event: "session_store.append_to_transcript", Outcome: map[string]any{"session_id": args[0], "text": args[1]}})
		return true, nil
	})}
}

// Play drives r from transcript lines, with agent answering the llm lines. It returns an
// error only for a transcript the runner cannot follow; hook failures are in the timeline.
func (r *Runner) Play(ctx context.Context, agent *TranscriptAgent) error {
	for {
		l, ok := agent.next()
		if !ok {
			break
		}
		switch l.Type {
		case "startup":
			r.Startup(ctx, l.Platforms)
		case "message":
			if _, err := r.HandleMessage(ctx, Inbound{Platform: l.Platform, UserID: l.UserID, ChatID: l.ChatID,
				ChatType: l.ChatType, MessageID: l.MessageID, Text: l.Text, Internal: l.Internal}); err != nil {
				return fmt.Errorf("line %d: %w", l.N, err)
			}
		case "llm":
			return fmt.Errorf("line %d: an llm line outside a message turn (a message must come first)", l.N)
		case "command":
			r.HandleCommand(ctx, Command{Platform: l.Platform, UserID: l.UserID, ChatID: l.ChatID, Name: l.Name, Args: l.Args})
		case "approval":
			r.HandleApproval(ctx, hookspec.Approval{Command: l.Command, Description: l.Description, PatternKey: l.PatternKey,
				PatternKeys: l.PatternKeys, SessionKey: r.lastSessionKey(), Surface: "gateway", Choice: l.Choice})
		case "subagent":
			if err := r.replaySubagent(ctx, agent, l); err != nil {
				return fmt.Errorf("line %d: %v", l.N, err)
			}
		case "compact":
			r.HandleCompact(ctx, hookspec.Compaction{Trigger: l.Trigger, Instructions: l.Instructions, Summary: l.Summary})
		case "notification":
			r.HandleNotification(ctx, hookspec.Notification{Message: l.Text, Title: l.Title, Type: l.NotificationType})
		case "shutdown":
			if err := r.Shutdown(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// approveFromTranscript answers a hook's ask (which no approval hook answered: the engine
// asks them first) with the approval line that follows the llm step being replayed: any
// choice but "deny" lets the call run; no approval line is no answer, so the call is
// blocked.
func (r *Runner) approveFromTranscript(agent *TranscriptAgent, req engine.ApprovalRequest) (bool, error) {
	l, ok := agent.nextApproval()
	if !ok {
		return false, fmt.Errorf("the transcript has no approval line after this step to answer it")
	}
	r.note("%s asked about %s (%s); the person chose %s", req.Hook, req.Call.ToolCallID, req.Message, l.Choice)
	return l.Choice != "deny", nil
}

func (r *Runner) lastSessionKey() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sessions {
		if s.id == r.lastID {
			return s.key
		}
	}
	return ""
}

// Replay parses the transcript read from rd (name is used in errors) and replays it against
// a new gateway (and its engine) built from opts, returning the timeline. A hook's ask
// is answered by the transcript's approval line; the runner's agent answers
// hermes.run_agent.
func Replay(ctx context.Context, name string, rd io.Reader, opts gateway.Options) (Timeline, error) {
	lines, err := ParseTranscript(name, rd)
	if err != nil {
		return Timeline{}, err
	}
	agent := NewTranscriptAgent(lines)
	var r *Runner
	if opts.Engine.Approve == nil { // a hook's ask is answered by the approval line that follows the step
		opts.Engine.Approve = func(ctx context.Context, req engine.ApprovalRequest) (bool, error) {
			return r.approveFromTranscript(agent, req)
		}
	}
	opts.Engine.HostFuncs = mergeFuncs(opts.Engine.HostFuncs, HostFuncs(agent))
	opts.HostFuncs = mergeFuncs(opts.HostFuncs, HostFuncs(agent))
	lctx, load := loadSpan(ctx, opts.Engine.TracerProvider)
	gw, err := gateway.New(lctx, opts)
	load.End()
	if err != nil {
		return Timeline{}, err
	}
	defer gw.Close(ctx)
	ropts := Options{Sync: true, Model: firstModel(lines)}
	for _, l := range lines { // the first startup line says what every request offers the model
		if l.Type == "startup" {
			ropts.System, ropts.Tools = l.System, l.Tools
			break
		}
	}
	r = New(gw, agent, ropts)
	if err := r.Play(ctx, agent); err != nil {
		return r.Timeline(), fmt.Errorf("%s: %w", name, err)
	}
	return r.Timeline(), nil
}

func mergeFuncs(a, b map[string]hookspec.Func) map[string]hookspec.Func {
	out := make(map[string]hookspec.Func, len(a)+len(b))
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// firstModel is the model of the transcript's first llm line that names one, so that hooks
// fired before the first step (on_session_start, pre_llm_call) see it too.
func firstModel(lines []Line) string {
	for _, l := range lines {
		if l.Type == "llm" && l.Model != "" {
			return l.Model
		}
	}
	return ""
}
