package luabind

import "context"

// CallInto is CallTimed, except that an answer that converts to an object (a table that is
// not a list) is converted into answer, which is cleared first and is then the value
// returned. The caller owns answer: it may reuse it for the next call once it no longer
// needs the value, whose nested tables are new maps and lists as CallTimed's. A nil
// answer is CallTimed.
func (p *Plugin) CallInto(ctx context.Context, i int, kwargs any, timed bool, answer map[string]any) (any, Timing, error) {
	return p.s.callWith(ctx, i, []any{kwargs}, nil, answer, timed)
}
