package hookspec

import (
	"context"
	"time"
)

// Store is the store as one hook sees it: its own namespace of state that outlives a call,
// behind the Lua store module, with values as JSON values as Go holds them (nil, bool,
// int64, float64, string, []any, map[string]any). Every method honours ctx (the call's, with
// the hook's timeout). The engine gives each hook its own (store.View); luabind's store
// module calls it.
type Store interface {
	Get(ctx context.Context, key string) (value any, found bool, err error)
	Set(ctx context.Context, key string, value any, ttl time.Duration) error
	Incr(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error)
	Delete(ctx context.Context, key string) (bool, error)
	Keys(ctx context.Context, prefix string) ([]string, error)
	// Update calls fn with the value at key and stores its result atomically; fn may run
	// again when another writer changed the key meanwhile. It runs in the caller's goroutine.
	Update(ctx context.Context, key string, fn func(old any, found bool) (any, error)) (any, error)
}
