package engine

import "context"

func newHookSet() *hookSet {
	return &hookSet{byHook: map[string][]callback{}, drained: make(chan struct{})}
}

// closedSet is the hook set of a closed engine: pre_tool_call blocks, nothing else runs.
func closedSet() *hookSet {
	s := newHookSet()
	s.preTool = []callback{closedGuard{}}
	s.byHook[PreToolCall] = s.preTool
	return s
}

// closedGuard is a closed engine's answer to every tool call: blocked, never allowed.
type closedGuard struct{}

func (closedGuard) stats() *hookMetrics { return nil }

func (closedGuard) fire(context.Context, string, args, bool) HookResult {
	return HookResult{Source: SourceEngine, Name: "engine", Status: StatusError, Err: ErrClosed.Error(),
		value: map[string]any{"action": "block", "message": "blocked: " + ErrClosed.Error()}}
}

// discard closes what s started that prev does not run (a load that failed).
func (s *hookSet) discard(prev *hookSet) {
	s.keep = map[any]bool{}
	if prev != nil {
		for _, p := range prev.loaded {
			s.keep[p] = true
		}
		for _, h := range prev.hooks {
			s.keep[h] = true
		}
	}
	s.close()
}
