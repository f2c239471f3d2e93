package engine

import (
	"context"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

func newHookSet() *hookSet {
	return &hookSet{byHook: map[string][]callback{}, drained: make(chan struct{})}
}

// withholding are the points where a hook could change what leaves the process: a tool
// call, an inbound message, the prompt, the request to the model, and what a tool or the
// model said. A closed engine never lets a call at one of them go on as if its hooks had
// run.
var withholding = [...]string{
	hooknames.PreToolCall, hooknames.PreGatewayDispatch, hooknames.PreLLMCall,
	hooknames.PreAPIRequest, hooknames.WrapLLMCall,
	hooknames.TransformToolResult, hooknames.TransformTerminalOutput, hooknames.TransformLLMOutput,
}

// withholds reports whether hook is one of withholding.
func withholds(hook string) bool {
	for _, h := range withholding {
		if h == hook {
			return true
		}
	}
	return false
}

// closedSet is the hook set of a closed engine whose last set was prev: the guards
// (pre_tool_call and pre_gateway_dispatch) refuse; so does every other withholding point
// prev had hooks at (pre_llm_call blocks the prompt; RunLLM does not call the model; the
// transforms withhold their input). Nothing else runs.
func closedSet(prev *hookSet) *hookSet {
	s := newHookSet()
	s.closed = true
	s.preTool = []callback{closedGuard{}}
	s.byHook[hooknames.PreToolCall] = s.preTool
	s.byHook[hooknames.PreGatewayDispatch] = s.preTool
	s.withheld = map[string]bool{}
	for _, h := range withholding {
		if len(prev.callbacks(h)) > 0 {
			s.withheld[h] = true
		}
	}
	if s.withheld[hooknames.PreLLMCall] {
		s.byHook[hooknames.PreLLMCall] = s.preTool
	}
	return s
}

// refuses reports whether a call at hook must not go on: the engine closed while hooks were
// registered at hook, which did not run.
func (s *hookSet) refuses(hook string) bool { return s.withheld[hook] }

// withheldText is what a closed engine's transform_terminal_output and
// transform_llm_output return in place of an output their hooks did not see.
const withheldText = "[withheld: hook engine closed]"

// closedGuard is a closed engine's answer to a guard: blocked, or skipped, never allowed.
type closedGuard struct{}

func (closedGuard) stats() *hookMetrics { return nil }

func (closedGuard) fire(_ context.Context, hook string, _ args, _ bool, _ map[string]any, r *hookspec.Result) {
	*r = refusal(hook, ErrClosed)
}

// refusal is the engine's own result when it cannot run a hook for why: an error that a
// guard turns into a refusal (pre_tool_call blocks, pre_gateway_dispatch skips), since the
// engine never answers "allowed" when unsure.
func refusal(hook string, why error) hookspec.Result {
	r := hookspec.Failed(hookspec.SourceEngine, "engine", hookspec.StatusError, why.Error(), 0)
	switch hook {
	case hooknames.PreToolCall, hooknames.PreLLMCall:
		r.Answer = refuseWith(hook, "blocked: "+why.Error())
	case hooknames.PreGatewayDispatch:
		r.Answer = refuseWith(hook, why.Error())
	}
	return r
}

// refuseWith is the answer by which a guard at hook (hooknames.CanBlock) refuses, saying
// message: pre_approval_request denies, pre_gateway_dispatch skips the message, the others
// block.
func refuseWith(hook, message string) hookspec.Answer {
	switch hook {
	case hooknames.PreApprovalRequest:
		return hookspec.Answer{Kind: hookspec.Deny, Message: message}
	case hooknames.PreGatewayDispatch:
		return hookspec.Answer{Kind: hookspec.Skip, Message: message}
	}
	return hookspec.Answer{Kind: hookspec.Block, Message: message}
}

// discard closes what s started that prev does not run (a load that failed).
func (s *hookSet) discard(prev *hookSet) {
	s.keep = prev.running()
	s.close()
}

// running is the set of plugins and shell hooks s runs (none for a nil s), which closing
// another set must keep.
func (s *hookSet) running() map[any]bool {
	keep := map[any]bool{}
	if s == nil {
		return keep
	}
	for _, p := range s.loaded {
		keep[p] = true
	}
	for _, h := range s.hooks {
		keep[h] = true
	}
	return keep
}
