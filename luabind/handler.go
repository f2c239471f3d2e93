package luabind

import (
	"context"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Handler is a loaded gateway hook handler: a file defining a global function handle.
// Call is safe for concurrent use.
type Handler struct{ s *script }

// LoadHandler compiles src, runs it in a new sandboxed state and checks that it defines a
// global function named fn (for gateway hooks, "handle").
func LoadHandler(ctx context.Context, src []byte, fn string, opts Options) (*Handler, error) {
	s, err := newScript(src, opts)
	if err != nil {
		return nil, err
	}
	s.tableArg = 1 // handle(event_type, context)
	s.setup = func(_ context.Context, st *state) error {
		f, ok := st.L.GetGlobal(fn).(*lua.LFunction)
		if !ok {
			return &Error{Kind: KindLoad, File: opts.File, Msg: "no global function " + fn + ": define `function " + fn + "(event_type, context) ... end`"}
		}
		st.fns = []*lua.LFunction{f}
		return nil
	}
	if err := s.start(ctx); err != nil {
		s.close()
		return nil, err
	}
	return &Handler{s: s}, nil
}

// Call runs the handler's function with args converted to Lua, under the hook's timeout,
// and returns its first result converted to Go.
func (h *Handler) Call(ctx context.Context, args ...any) (any, error) {
	v, _, err := h.s.call(ctx, 0, args, false)
	return v, err
}

// Close releases the handler's Lua states; calls in flight finish first.
func (h *Handler) Close() { h.s.close() }
