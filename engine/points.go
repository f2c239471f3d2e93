package engine

import (
	"context"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// The typed calls of the lifecycle points other agents' hooks need (SPEC §4.5): pre_verify,
// post_tool_failure, pre_compact, post_compact, on_notification, pre_approval_request as a
// directive, and a blocked prompt (DecideTurn).

// VerifyDecision is what pre_verify's hooks decided about an agent about to stop.
type VerifyDecision struct {
	// Continue: do not stop; give Reason to the agent as the next user turn and let it go
	// on. Never true once v.Nudges reached max_verify_nudges.
	Continue bool
	Reason   string // why the hook wants the agent to go on (also set when Capped)
	Hook     string // the hook that asked; "" when none did
	// Capped: a hook asked to go on, but this user turn already had max_verify_nudges of
	// them, so the agent stops.
	Capped bool
}

// PreVerify fires pre_verify: the agent's final answer is ready. A hook may answer
// {action="continue", reason=...}; the host then gives the reason back as the next user
// turn instead of stopping, and calls PreVerify again with Nudges one higher when the agent
// is about to stop again. Once v.Nudges reaches max_verify_nudges (config.yaml, default 3)
// no hook can keep the agent going: the decision is Capped. A subagent about to stop is
// v.Subagent, its Nudges counted apart from the agent's: a Continue is its next instruction.
func (e *Engine) PreVerify(ctx context.Context, v hookspec.Verify) VerifyDecision {
	set := e.with(hooknames.PreVerify)
	if set == nil {
		return VerifyDecision{}
	}
	sc := getScratch()
	defer putScratch(sc)
	rep := e.invoke(ctx, set, hooknames.PreVerify, mapArgs(v.Kwargs()), false, sc)
	if rep.Decision.Kind != hookspec.Continue {
		return VerifyDecision{}
	}
	d := VerifyDecision{Continue: true, Reason: rep.Decision.Message, Hook: rep.decider().Name}
	if v.Nudges >= set.maxVerifyNudges() {
		d.Continue, d.Capped = false, true
		if v.Subagent != nil {
			e.logger.Info("pre_verify: a hook asked to keep a subagent going, but it reached max_verify_nudges; it stops",
				"hook", d.Hook, "session_id", v.SessionID, "agent_id", v.Subagent.ID, "agent_type", v.Subagent.Type,
				"nudges", v.Nudges, "max_verify_nudges", set.maxVerifyNudges())
			return d
		}
		e.logger.Info("pre_verify: a hook asked to keep going, but this turn reached max_verify_nudges; the agent stops",
			"hook", d.Hook, "session_id", v.SessionID, "nudges", v.Nudges, "max_verify_nudges", set.maxVerifyNudges())
	}
	return d
}

// lowerNudges is the max_verify_nudges a load uses: the user home's, bounded by the
// managed home's (an administrator's cap holds; nil: the default).
func lowerNudges(user, managed *config) *int {
	n := user.maxNudges
	if managed != nil && managed.maxNudges != nil && (n == nil || *managed.maxNudges < *n) {
		n = managed.maxNudges
	}
	return n
}

// maxVerifyNudges is the set's max_verify_nudges.
func (s *hookSet) maxVerifyNudges() int {
	if s.maxNudges == nil {
		return hookspec.DefaultMaxVerifyNudges
	}
	return *s.maxNudges
}

// PostToolFailure fires post_tool_failure for a tool call that failed and returns the
// context hooks give the model about the failure ("" if none; hooks written for Claude
// Code give it). RunTool appends it to the result.
func (e *Engine) PostToolFailure(ctx context.Context, f hookspec.ToolFailure) string {
	if set := e.with(hooknames.PostToolFailure); set != nil {
		return invokeFor(e, ctx, set, hooknames.PostToolFailure, mapArgs(f.Kwargs()), Report.Context)
	}
	return ""
}

// PreCompact fires pre_compact before the host summarises c.Messages and returns the
// instructions hooks add for the summary ("" if none), to give the summariser with
// c.Instructions.
func (e *Engine) PreCompact(ctx context.Context, c hookspec.Compaction) string {
	if set := e.with(hooknames.PreCompact); set != nil {
		return invokeFor(e, ctx, set, hooknames.PreCompact, mapArgs(c.PreKwargs()), Report.Context)
	}
	return ""
}

// PostCompact fires post_compact (an observer) with c.Summary.
func (e *Engine) PostCompact(ctx context.Context, c hookspec.Compaction) {
	e.observe(ctx, hooknames.PostCompact, c.PostKwargs)
}

// OnNotification fires on_notification (an observer): the agent wants the user's attention.
func (e *Engine) OnNotification(ctx context.Context, n hookspec.Notification) {
	e.observe(ctx, hooknames.OnNotification, n.Kwargs)
}

// ApprovalDecision is what pre_approval_request's hooks answered to an approval request.
type ApprovalDecision struct {
	// Answered: a hook answered, so the person is not asked. False: ask the person.
	Answered bool
	Allow    bool           // the request is granted (else denied, with Message)
	Message  string         // why it was denied
	Args     map[string]any // the arguments to run with when a hook changed them; nil when not
	Remember bool           // the hook asked the host to record the answer as a rule
	Hook     string         // the hook that answered
}

// PreApprovalRequest fires pre_approval_request before a dangerous command asks the user
// (a.Choice is not sent). A hook may answer the request itself: {action="allow", args=?,
// remember=?} or {action="deny", message=?, remember=?}; a deny decides over every allow.
// The person is asked only when the decision is not Answered.
func (e *Engine) PreApprovalRequest(ctx context.Context, a hookspec.Approval) ApprovalDecision {
	set := e.with(hooknames.PreApprovalRequest)
	if set == nil {
		return ApprovalDecision{}
	}
	sc := getScratch()
	defer putScratch(sc)
	rep := e.invoke(ctx, set, hooknames.PreApprovalRequest, mapArgs(a.Kwargs(false)), false, sc)
	dec := rep.Decision
	switch dec.Kind {
	case hookspec.Allow:
		return ApprovalDecision{Answered: true, Allow: true, Args: dec.Args, Remember: dec.Remember, Hook: rep.decider().Name}
	case hookspec.Deny:
		return ApprovalDecision{Answered: true, Message: dec.Message, Remember: dec.Remember, Hook: rep.decider().Name}
	}
	return ApprovalDecision{}
}

// TurnDecision is what pre_llm_call's hooks decided about a submitted prompt.
type TurnDecision struct {
	// Block: the prompt must not be sent; show Block.Message instead of a model turn.
	Block *Block
	// Context to append to the user message for this turn only ("" if none; "" when
	// blocked). Do not store it in the conversation history.
	Context string
}

// DecideTurn fires pre_llm_call and returns the one decision about the turn: a hook's
// {action="block", message=...} decides over every context. The first turn of a session
// also gets the context on_session_start's hooks gave, first (kept for the next turn when
// this one is blocked).
func (e *Engine) DecideTurn(ctx context.Context, turn hookspec.LLMTurn) TurnDecision {
	set := e.set.Load()
	if set.closed && !set.refuses(hooknames.PreLLMCall) { // a closed engine adds nothing, not even what a session's start left
		return TurnDecision{}
	}
	start := e.starts.take(turn.SessionID)
	if len(set.callbacks(hooknames.PreLLMCall)) == 0 {
		return TurnDecision{Context: start}
	}
	sc := getScratch()
	defer putScratch(sc)
	sc.turn = turnArgs{turn: turn}
	rep := e.invoke(ctx, set, hooknames.PreLLMCall, &sc.turn, false, sc)
	if rep.Decision.Kind == hookspec.Block {
		if start != "" {
			e.starts.put(turn.SessionID, start, e.logger)
		}
		h := rep.decider()
		return TurnDecision{Block: &Block{Message: rep.Decision.Message, Source: h.Source, Hook: h.Name}}
	}
	c := rep.Context()
	switch {
	case start == "":
		return TurnDecision{Context: c}
	case c == "":
		return TurnDecision{Context: start}
	}
	return TurnDecision{Context: start + "\n\n" + c}
}
