package luabind

import (
	"context"
	"errors"
)

// Call is CallTimed without the timing, for the tests: the engine always asks for it.
func (p *Plugin) Call(ctx context.Context, i int, kwargs any) (any, error) {
	v, _, err := p.s.call(ctx, i, []any{kwargs}, false)
	return v, err
}

// isTimeout reports whether err is an Error of kind KindTimeout.
func isTimeout(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindTimeout
}
