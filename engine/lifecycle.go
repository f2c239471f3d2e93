package engine

import (
	"context"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

func newHookSet() *hookSet {
	return &hookSet{byHook: map[string][]callback{}, drained: make(chan struct{})}
}

// closedSet is the hook set of a closed engine: the guards (pre_tool_call and
// pre_gateway_dispatch) refuse, nothing else runs.
func closedSet() *hookSet {
	s := newHookSet()
	s.closed = true
	s.preTool = []callback{closedGuard{}}
	s.byHook[hooknames.PreToolCall] = s.preTool
	s.byHook[hooknames.PreGatewayDispatch] = s.preTool
	return s
}

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
	case hooknames.PreToolCall:
		r.FailClosed("blocked: " + why.Error())
	case hooknames.PreGatewayDispatch:
		r.Answer = hookspec.Answer{Kind: hookspec.Skip, Message: why.Error()}
	}
	return r
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
