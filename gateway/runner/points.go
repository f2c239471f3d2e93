package runner

import (
	"context"
	"encoding/json"

	"github.com/hermes-hooks/hermes/hookspec"
)

// The runner's side of the lifecycle points other agents' hooks need: the agent about to
// stop (pre_verify), an approval a hook answers itself, a compaction of the history and a
// notification.

// verify fires pre_verify for the final response of a turn that hooks kept going nudges
// times already. ok: a hook keeps the agent going, and reason is its next user turn.
func (r *Runner) verify(ctx context.Context, s *session, text, response, model string, nudges int) (reason string, ok bool) {
	d := r.eng.PreVerify(ctx, hookspec.Verify{SessionID: s.id, UserMessage: text, Response: response, Nudges: nudges,
		Model: model, Platform: s.platform})
	switch {
	case d.Capped:
		r.note("%s asked to keep going (%s), but this turn already kept going %d times (max_verify_nudges); the agent stops", d.Hook, d.Reason, nudges)
	case d.Continue:
		r.note("the agent keeps going: %s asked (%d of at most max_verify_nudges this turn)", d.Hook, nudges+1)
		r.flow("next user turn, from %s: %q", d.Hook, d.Reason)
		return d.Reason, true
	}
	return "", false
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
	c.Messages = messagesAny(history)
	if extra := r.eng.PreCompact(ctx, c); extra != "" {
		r.note("instructions for the summary from hooks: %q", extra)
	}
	r.mu.Lock()
	r.history[c.SessionID] = []Message{{Role: "user", Content: c.Summary}}
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
