package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/modules/modulestest"
	storemod "github.com/hermes-hooks/hermes/luabind/internal/modules/store"
)

// memBackend is a Backend in a map; update runs fn twice on its first call, as a backend
// does when another writer changed the key meanwhile.
type memBackend struct {
	m        map[string]any
	conflict bool
	waiting  func() bool // whether the call is in a wait, seen from the backend
}

func (b *memBackend) Get(_ context.Context, k string) (any, bool, error) {
	if !b.waiting() {
		return nil, false, errors.New("get outside a wait")
	}
	v, ok := b.m[k]
	return v, ok, nil
}
func (b *memBackend) Set(_ context.Context, k string, v any, _ time.Duration) error {
	b.m[k] = v
	return nil
}
func (b *memBackend) Incr(context.Context, string, int64, time.Duration) (int64, error) {
	return 0, errors.New("disk full")
}
func (b *memBackend) Delete(context.Context, string) (bool, error)   { return false, nil }
func (b *memBackend) Keys(context.Context, string) ([]string, error) { return nil, nil }
func (b *memBackend) Update(_ context.Context, k string, fn func(any, bool) (any, error)) (any, error) {
	if b.conflict {
		b.conflict = false
		if _, err := fn(b.m[k], true); err != nil {
			return nil, err
		}
	}
	v, err := fn(b.m[k], true)
	if err == nil {
		b.m[k] = v
	}
	return v, err
}

// Backend calls are waits, the function update calls is not (its allocations are Lua's),
// it runs again on a conflict, and backend errors name the operation.
func TestStoreWaitsAndErrors(t *testing.T) {
	vu := modulestest.New(t)
	b := &memBackend{m: map[string]any{"n": int64(1)}, conflict: true}
	b.waiting = func() bool { return vu.Waits > vu.Ended }
	vu.Require("store", storemod.Module{Backend: b})
	err := vu.L.DoString(`
calls = 0
assert(store.get("n") == 1)
local v = store.update("n", function(old)
  calls = calls + 1
  return old + 10
end)
assert(v == 11 and calls == 2, "update: " .. tostring(v) .. ", " .. calls .. " calls")`)
	if err != nil {
		t.Fatal(err)
	}
	if b.m["n"] != int64(11) {
		t.Errorf("stored %v, want 11", b.m["n"])
	}
	if vu.Waits != vu.Ended {
		t.Errorf("%d waits begun, %d ended", vu.Waits, vu.Ended)
	}
	err = vu.L.DoString(`store.incr("n")`)
	if err == nil || !strings.Contains(err.Error(), "store.incr: disk full") {
		t.Errorf("incr on a failing backend: %v, want store.incr: disk full", err)
	}
}
