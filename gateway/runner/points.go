package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// The runner's side of the lifecycle points other agents' hooks need: the agent about to
// stop (pre_verify), an approval a hook answers itself, a compaction of the history and a
// notification.

// verify fires pre_verify for the final response of a subagent that hooks kept going
// v.Nudges times already. ok: a hook keeps it going, and reason is its next instruction.
func (r *Runner) verify(ctx context.Context, v hookspec.Verify) (reason string, ok bool) {
	return r.verifyNote(r.eng.PreVerify(ctx, v), v)
}

// verifyNote notes what pre_verify decided for the final response of a turn, or of a
// subagent, that hooks kept going v.Nudges times already. ok: a hook keeps it going, and
// reason is its next user turn (a subagent's next instruction).
func (r *Runner) verifyNote(d engine.VerifyDecision, v hookspec.Verify) (reason string, ok bool) {
	switch {
	case d.Capped && v.Subagent != nil:
		r.note("%s asked to keep going (%s), but subagent %s already kept going %d times (max_verify_nudges); it stops", d.Hook, d.Reason, v.Subagent.ID, v.Nudges)
	case d.Capped:
		r.note("%s asked to keep going (%s), but this turn already kept going %d times (max_verify_nudges); the agent stops", d.Hook, d.Reason, v.Nudges)
	case d.Continue && v.Subagent != nil:
		r.note("subagent %s (%s) keeps going: %s asked (%d of at most max_verify_nudges for it)", v.Subagent.ID, v.Subagent.Type, d.Hook, v.Nudges+1)
		r.flow("next instruction to subagent %s, from %s: %q", v.Subagent.ID, d.Hook, d.Reason)
		return d.Reason, true
	case d.Continue:
		r.note("the agent keeps going: %s asked (%d of at most max_verify_nudges this turn)", d.Hook, v.Nudges+1)
		r.flow("next user turn, from %s: %q", d.Hook, d.Reason)
		return d.Reason, true
	}
	return "", false
}

// replaySubagent replays a subagent line: a subagent of the most recent session about to
// stop. A completed one fires pre_verify with the subagent named; while a hook keeps it
// going (at most max_verify_nudges times for this subagent), the transcript's next line is
// its next stop, a subagent line of the same agent_id. Once it stops, subagent_stop fires.
func (r *Runner) replaySubagent(ctx context.Context, agent *TranscriptAgent, l Line) error {
	ctx = r.traced(ctx, "")
	sub := &hookspec.VerifySubagent{ID: l.AgentID, Type: l.Role, TranscriptPath: l.AgentTranscriptPath}
	if sub.ID == "" {
		sub.ID = fmt.Sprintf("subagent-%d", l.N)
	}
	r.mu.Lock()
	v := hookspec.Verify{SessionID: r.lastID, Model: r.opts.Model, Subagent: sub}
	for _, s := range r.sessions {
		if s.id == r.lastID {
			v.Platform = s.platform
		}
	}
	r.mu.Unlock()
	for ; l.Status == "" || l.Status == "completed"; v.Nudges++ {
		if v.Nudges > 0 { // the stop of a subagent kept going
			r.flow("subagent %s (%s) about to stop again: %q", sub.ID, sub.Type, shorten(l.Summary, 120))
		}
		v.Response = l.Summary
		if _, ok := r.verify(ctx, v); !ok {
			break
		}
		next, ok := agent.nextSubagent()
		switch {
		case !ok:
			return fmt.Errorf("a hook kept subagent %s going: the transcript needs its next stop, a subagent line, after line %d", sub.ID, l.N)
		case next.AgentID != "" && next.AgentID != sub.ID:
			return fmt.Errorf("a hook kept subagent %s going: line %d is a stop of subagent %s, not of %s", sub.ID, next.N, next.AgentID, sub.ID)
		}
		l = next
	}
	r.HandleSubagent(ctx, hookspec.Subagent{Role: l.Role, Summary: l.Summary, Status: l.Status, DurationMS: l.DurationMS})
	return nil
}

// hookApproval fires pre_approval_request: when a hook answers, choice is its answer as a
// person's choice would be ("once", "always" when it asks to remember, "deny") and ok is
// true; the person is not to be asked.
func (r *Runner) hookApproval(ctx context.Context, a hookspec.Approval) (choice string, ok bool) {
	d := r.eng.PreApprovalRequest(ctx, a)
	if !d.Answered {
		return "", false
	}
	switch {
	case !d.Allow:
		choice = "deny"
		r.note("approval of %q denied by %s: %s", a.Command, d.Hook, d.Message)
	case d.Remember:
		choice = "always"
	default:
		choice = "once"
	}
	if d.Allow {
		r.note("approval of %q granted by %s (%s)", a.Command, d.Hook, choice)
	}
	if d.Args != nil {
		args, _ := json.Marshal(d.Args)
		r.note("%s answered with arguments of its own (%s); an approval request cannot change them: only pre_tool_call can", d.Hook, args)
	}
	return choice, true
}

// HandleCompact summarises the most recent session's history: pre_compact with the
// messages (its instructions are noted), then the history is replaced by c.Summary, then
// post_compact.
func (r *Runner) HandleCompact(ctx context.Context, c hookspec.Compaction) {
	ctx = r.traced(ctx, "")
	r.mu.Lock()
	c.SessionID = r.lastID
	for _, s := range r.sessions {
		if s.id == r.lastID {
			c.Platform = s.platform
		}
	}
	r.mu.Unlock()
	history := r.historyOf(c.SessionID)
	c.Messages = history
	if extra := r.eng.PreCompact(ctx, c); extra != "" {
		r.note("instructions for the summary from hooks: %q", extra)
	}
	r.mu.Lock()
	r.history[c.SessionID] = []hookspec.Message{{Role: "user", Content: c.Summary}}
	r.mu.Unlock()
	r.flow("history of %s (%d messages) summarised: %q", c.SessionID, len(history), shorten(c.Summary, 120))
	r.eng.PostCompact(ctx, c)
}

// HandleNotification fires on_notification for the most recent session.
func (r *Runner) HandleNotification(ctx context.Context, n hookspec.Notification) {
	r.mu.Lock()
	n.SessionID = r.lastID
	for _, s := range r.sessions {
		if s.id == r.lastID {
			n.Platform = s.platform
		}
	}
	r.mu.Unlock()
	r.eng.OnNotification(r.traced(ctx, ""), n)
}
