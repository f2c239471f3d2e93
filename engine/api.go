package engine

import (
	"context"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// ToolDecision is what the pre_tool_call hooks decided about one tool call.
type ToolDecision struct {
	Block    *Block         // non-nil: the call must not run
	Args     map[string]any // the arguments to run the tool with: the call's, or as hooks modified them (on a block too: what would have run)
	Modified bool           // Args differ from the call's
	Approved bool           // a hook (or, when one asked, the person) approved the call: skip the host's own prompt
	Hook     string         // the hook that decided; "" when nothing changed
	// Context is what the hooks gave the model beside this call (every context, joined
	// with a blank line in hook order, whatever each decided; a block's too): append it
	// to the tool's result, or to the block's message, after a blank line, as RunTool
	// does. "" for none.
	Context string
}

// DecideTool fires pre_tool_call and returns the one decision about the call:
// block > ask > approve > modify, modifications chained in priority order (each callback
// sees the arguments the ones before it left; the ones before the last modification are
// asked again with the final arguments, so a guard is never passed by one). An ask goes to
// Options.Approve, bounded by ApproveTimeout; no approver, a timeout, an error or a no
// blocks the call.
func (e *Engine) DecideTool(ctx context.Context, call hookspec.ToolCall) ToolDecision {
	set := e.set.Load()
	if len(set.preTool) == 0 {
		return ToolDecision{Args: call.Args}
	}
	return e.decideTool(ctx, set, call)
}

// decideTool is DecideTool with hooks to run: a function of its own, so that a call with
// none does not set up its frame.
func (e *Engine) decideTool(ctx context.Context, set *hookSet, call hookspec.ToolCall) ToolDecision {
	d := ToolDecision{Args: call.Args}
	sc := getScratch()
	defer putScratch(sc)
	sc.tool = toolArgs{call: call}
	rep := e.invoke(ctx, set, hooknames.PreToolCall, &sc.tool, false, sc)
	dec := rep.Decision
	if h := rep.decider(); h != nil && dec.Kind != hookspec.Context {
		d.Hook = h.Name
	}
	d.Context = dec.Text
	if dec.Args != nil {
		d.Args, d.Modified = dec.Args, true
	}
	switch dec.Kind {
	case hookspec.Block:
		d.Block, d.Args, d.Modified = rep.Block(), call.Args, false
		if left := lastRewrite(rep.Hooks); left != nil { // what would have run, not only what the model asked
			d.Args, d.Modified = left, true
		}
	case hookspec.Approve:
		d.Approved = true
	case hookspec.Ask:
		call.Args = d.Args
		actx, end := e.startAsk(ctx, d.Hook)
		d.Approved, d.Block = e.ask(actx, ApprovalRequest{Call: call, Message: dec.Message, Hook: d.Hook}, rep.decider().Source)
		end(d.Block)
	}
	return d
}

// PostToolCall fires post_tool_call with call.Result and call.DurationMS, and returns the
// context hooks give the model about the result ("" if none; only hooks written for Claude
// Code give one: its PostToolUse feedback). RunTool appends it to the result, and also
// applies a replaced result (Claude Code's updatedToolOutput; see PostToolResult).
func (e *Engine) PostToolCall(ctx context.Context, call hookspec.ToolCall) string {
	c, _ := e.PostToolResult(ctx, call)
	return c
}

// PostToolResult fires post_tool_call like PostToolCall and also returns the result the
// model should see instead of call.Result when a hook replaced it (nil when none did).
func (e *Engine) PostToolResult(ctx context.Context, call hookspec.ToolCall) (context string, output *string) {
	if set := e.with(hooknames.PostToolCall); set != nil {
		d := invokeTool(e, ctx, set, hooknames.PostToolCall, call, func(r Report) hookspec.Decision { return r.Decision })
		if d.Kind == hookspec.Context {
			context = d.Text
		}
		return context, d.Output
	}
	return "", nil
}

// TransformToolResult fires transform_tool_result and returns the result the model should
// see: the first string a hook returned (even ""), else call.Result unchanged. When Close
// kept its hooks from running, {"error": "[withheld: hook engine closed]"}.
func (e *Engine) TransformToolResult(ctx context.Context, call hookspec.ToolCall) string {
	set, refused := e.withOr(hooknames.TransformToolResult)
	var t textResult
	if set != nil {
		t = invokeTool(e, ctx, set, hooknames.TransformToolResult, call, Report.text)
	}
	return t.or(refused, call.Result, errorResult(withheldText))
}

// TransformTerminalOutput fires transform_terminal_output and returns the output to keep:
// the first string a hook returned (even ""), else out.Output unchanged. When Close kept its
// hooks from running, "[withheld: hook engine closed]".
func (e *Engine) TransformTerminalOutput(ctx context.Context, out hookspec.TerminalOutput) string {
	set, refused := e.withOr(hooknames.TransformTerminalOutput)
	var t textResult
	if set != nil {
		t = invokeFor(e, ctx, set, hooknames.TransformTerminalOutput, mapArgs(out.Kwargs()), Report.text)
	}
	return t.or(refused, out.Output, withheldText)
}

// PostLLMCall fires post_llm_call (an observer) with turn.AssistantResponse.
func (e *Engine) PostLLMCall(ctx context.Context, turn hookspec.LLMTurn) {
	if set := e.with(hooknames.PostLLMCall); set != nil {
		invokeFor(e, ctx, set, hooknames.PostLLMCall, mapArgs(turn.PostKwargs()), observed)
	}
}

// TransformLLMOutput fires transform_llm_output and returns the response to deliver: the
// first non-empty string a hook returned, else out.ResponseText unchanged. When Close kept
// its hooks from running, "[withheld: hook engine closed]".
func (e *Engine) TransformLLMOutput(ctx context.Context, out hookspec.LLMOutput) string {
	set, refused := e.withOr(hooknames.TransformLLMOutput)
	var t textResult
	if set != nil {
		t = invokeFor(e, ctx, set, hooknames.TransformLLMOutput, mapArgs(out.Kwargs()), Report.text)
	}
	return t.or(refused, out.ResponseText, withheldText)
}

// PreGatewayDispatch fires pre_gateway_dispatch for an inbound message and returns what to
// do with it. Internal events never fire the hook and are always allowed.
func (e *Engine) PreGatewayDispatch(ctx context.Context, ev hookspec.DispatchEvent, host DispatchHost) Dispatch {
	set := e.with(hooknames.PreGatewayDispatch)
	if ev.Internal || set == nil {
		return Dispatch{Action: DispatchAllow}
	}
	kw := map[string]any{"event": ev.Table(), "gateway": host.Gateway, "session_store": host.SessionStore}
	return invokeFor(e, ctx, set, hooknames.PreGatewayDispatch, mapArgs(kw), Report.Dispatch)
}

// OnSessionStart fires on_session_start. Context its hooks give (hooks written for Claude
// Code print it at SessionStart) is kept and given to the session's first PreLLMCall.
func (e *Engine) OnSessionStart(ctx context.Context, s hookspec.Session) {
	set := e.with(hooknames.OnSessionStart)
	if set == nil {
		return
	}
	if c := invokeFor(e, ctx, set, hooknames.OnSessionStart, mapArgs(s.StartKwargs()), Report.Context); c != "" {
		e.starts.put(s.SessionID, c, e.logger)
	}
}

// OnSessionEnd fires on_session_end (an observer).
func (e *Engine) OnSessionEnd(ctx context.Context, s hookspec.SessionResult) {
	e.starts.take(s.SessionID)
	e.observe(ctx, hooknames.OnSessionEnd, s.Kwargs)
}

// OnSessionFinalize fires on_session_finalize (an observer); s.Model is not sent.
func (e *Engine) OnSessionFinalize(ctx context.Context, s hookspec.Session) {
	e.starts.take(s.SessionID)
	e.observe(ctx, hooknames.OnSessionFinalize, s.RefKwargs)
}

// OnSessionReset fires on_session_reset (an observer); s.Model is not sent.
func (e *Engine) OnSessionReset(ctx context.Context, s hookspec.Session) {
	e.starts.take(s.SessionID)
	e.observe(ctx, hooknames.OnSessionReset, s.RefKwargs)
}

// SubagentStop fires subagent_stop (an observer).
func (e *Engine) SubagentStop(ctx context.Context, s hookspec.Subagent) {
	e.observe(ctx, hooknames.SubagentStop, s.Kwargs)
}

// PostApprovalResponse fires post_approval_response (an observer) with a.Choice.
func (e *Engine) PostApprovalResponse(ctx context.Context, a hookspec.Approval) {
	e.observe(ctx, hooknames.PostApprovalResponse, func() map[string]any { return a.Kwargs(true) })
}

// PreAPIRequest fires pre_api_request (an observer).
func (e *Engine) PreAPIRequest(ctx context.Context, a hookspec.APIRequest) {
	e.observe(ctx, hooknames.PreAPIRequest, a.Kwargs)
}

// PostAPIRequest fires post_api_request (an observer).
func (e *Engine) PostAPIRequest(ctx context.Context, a hookspec.APIRequest) {
	e.observe(ctx, hooknames.PostAPIRequest, a.Kwargs)
}

// observe fires an observer hook, building its kwargs only when something is registered.
func (e *Engine) observe(ctx context.Context, hook string, kwargs func() map[string]any) {
	if set := e.with(hook); set != nil {
		invokeFor(e, ctx, set, hook, mapArgs(kwargs()), observed)
	}
}

// Fire fires any hook with kwargs and returns the full report: every hook's result, in
// order, and the merged outcome in its wire shape. It is the one raw entry point, for
// hooks a host defines itself and for tools and tests; the typed calls cover every
// documented hook. kwargs holding a value that cannot reach a hook (a Go struct, a
// channel, a plain func) are rejected: no hook runs, the one result names the key, and a
// guard fails safe (pre_tool_call blocks). A wrap hook runs its chain around a stand-in call
// that answers at once (fireWrap).
func (e *Engine) Fire(ctx context.Context, h hookspec.Hook, kwargs map[string]any) Report {
	hook := h.String()
	set := e.set.Load()
	if len(set.callbacks(hook)) == 0 { // nothing runs: no kwargs to check, no report to build
		return Report{Event: h, Payload: kwargs, Hooks: []hookspec.Result{}, Decision: hookspec.Decision{By: -1}}
	}
	if err := checkKwargs(kwargs); err != nil {
		rep := e.rejected(hook, err)
		rep.Payload = kwargs
		return rep
	}
	var rep Report
	if h.IsWrap() {
		rep = e.fireWrap(ctx, hook, kwargs)
	} else {
		rep = e.invoke(ctx, set, hook, mapArgs(kwargs), true, nil)
	}
	if rep.Hooks == nil {
		rep.Hooks = []hookspec.Result{}
	}
	return rep
}

// invokeFor runs hook for a typed call, which keeps nothing of the report but what pick
// returns, so the report's results can go back to a pool.
func invokeFor[T any](e *Engine, ctx context.Context, set *hookSet, hook string, kw args, pick func(Report) T) T {
	sc := getScratch()
	defer putScratch(sc)
	return pick(e.invoke(ctx, set, hook, kw, false, sc))
}

// invokeTool is invokeFor for post_tool_call and transform_tool_result: their kwargs, with
// the result, live in the call's scratch.
func invokeTool[T any](e *Engine, ctx context.Context, set *hookSet, hook string, call hookspec.ToolCall, pick func(Report) T) T {
	sc := getScratch()
	defer putScratch(sc)
	sc.tool = toolArgs{call: call, withResult: true}
	return pick(e.invoke(ctx, set, hook, &sc.tool, false, sc))
}

// with returns the current hook set when something is registered for hook, else nil.
func (e *Engine) with(hook string) *hookSet {
	if set := e.set.Load(); len(set.callbacks(hook)) > 0 {
		return set
	}
	return nil
}

// withOr is with for a withholding point: with nothing registered at hook, refused reports
// that the engine closed with hooks registered there (hookSet.refuses).
func (e *Engine) withOr(hook string) (set *hookSet, refused bool) {
	s := e.set.Load()
	if len(s.callbacks(hook)) > 0 {
		return s, false
	}
	return nil, s.refuses(hook)
}

// textResult is what Text returns, as one value for invokeFor.
type textResult struct {
	s       string
	ok      bool
	refused bool // Report.refused
}

func (r Report) text() textResult {
	s, ok := r.Text()
	return textResult{s, ok, r.refused()}
}

// or is what a transform returns: instead when the engine refused the call (refused: before
// its hooks ran; t.refused: Close ended them), else the text a hook gave, else in.
func (t textResult) or(refused bool, in, instead string) string {
	switch {
	case refused || t.refused:
		return instead
	case t.ok:
		return t.s
	}
	return in
}

// observed is the pick of observers: nothing to decide.
func observed(Report) struct{} { return struct{}{} }

// lastRewrite is the arguments of the last modification among results, nil when none: a
// blocked call's arguments as the hooks left them. Every guard that ran after that
// modification, or was asked again, was shown them; a guard whose first answer blocked
// may have seen the call before a later rewrite.
func lastRewrite(results []hookspec.Result) map[string]any {
	for i := len(results) - 1; i >= 0; i-- {
		if a := results[i].Answer; a.Kind == hookspec.Modify && a.Args != nil {
			return a.Args
		}
	}
	return nil
}
