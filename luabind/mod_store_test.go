package luabind

import (
	"context"
	"errors"
	"github.com/hermes-hooks/hermes/hookspec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/store"
)

// sqliteStore is a namespace of a fresh store database.
func sqliteStore(t *testing.T, ns string) hookspec.Store {
	t.Helper()
	b, err := store.Open(t.TempDir(), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return store.NewView(func(context.Context) (store.Backend, error) { return b, nil }, ns)
}

// What a handler writes with the store module, and what it reads back.
func TestStoreModule(t *testing.T) {
	s := sqliteStore(t, "plugin:p")
	got, err := eval(t, `
local store = require("store")
store.set("profile", {name = "ada", langs = {"go", "lua"}, n = 3})
local out = {}
out.profile = store.get("profile")
out.missing = store.get("nope")
out.incr = {store.incr("calls"), store.incr("calls"), store.incr("calls", 10), store.incr("calls", -2)}
store.set("session:a", 1); store.set("session:b", 2); store.set("other", 3)
out.keys = store.keys("session:")
out.deleted = {store.delete("session:a"), store.delete("session:a")}
out.updated = store.update("list", function(old) old = old or {}; table.insert(old, "x"); return old end)
out.updated2 = store.update("list", function(old) table.insert(old, "y"); return old end)
store.set("other", nil)
out.other = store.get("other")
return out`, nil, Options{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"profile": map[string]any{"name": "ada", "langs": []any{"go", "lua"}, "n": int64(3)},
		"incr":    []any{int64(1), int64(2), int64(12), int64(10)},
		"keys":    []any{"session:a", "session:b"},
		"deleted": []any{true, false},
		"updated": []any{"x"}, "updated2": []any{"x", "y"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Mistakes are errors that name the function and the argument.
func TestStoreModuleErrors(t *testing.T) {
	s := sqliteStore(t, "plugin:p")
	cases := map[string]string{
		`require("store").incr("k", 1.5)`:                                    "bad argument #2 to incr (an integer expected, got 1.5)",
		`require("store").set("k", function() end)`:                          "bad argument #2 to set (unsupported value of type function",
		`require("store").set("k", 1, -1)`:                                   "bad argument #3 to set (ttl in seconds expected",
		`require("store").set("", 1)`:                                        "store.set: the key is empty",
		`local s = require("store"); s.set("t", {a = 1}); s.incr("t")`:       `store.incr: value is not an integer: {"a":1}`,
		`require("store").update("k", function() error("nope") end)`:         "nope",
		`require("store").update("k", function() return function() end end)`: "cannot be stored",
		`require("store").get()`:                                             "bad argument #1 to get (string expected, got nil)",
	}
	for src, want := range cases {
		_, err := eval(t, src, nil, Options{Store: s})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n  error %v\n  want %q", src, err, want)
		}
	}
	if _, err := eval(t, `require("store").update("k", function() error("nope") end)`, nil, Options{Store: s}); err == nil {
		t.Fatal("no error")
	}
	if v, _ := eval(t, `return require("store").get("k")`, nil, Options{Store: s}); v != nil {
		t.Errorf("a failed update wrote %v", v)
	}
	if _, err := eval(t, `require("store")`, nil, Options{}); err == nil || !strings.Contains(err.Error(), "the host gave this hook no store") {
		t.Errorf("no store: %v", err)
	}
}

// blockingStore never answers before its context ends, like a backend that hangs.
type blockingStore struct{ hookspec.Store }

func (blockingStore) Incr(ctx context.Context, _ string, _ int64, _ time.Duration) (int64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

// A store call that does not answer ends with the hook's timeout: the call's error.
func TestStoreModuleHonoursTheTimeout(t *testing.T) {
	start := time.Now()
	_, err := eval(t, `return require("store").incr("k")`, nil, Options{Store: blockingStore{}, Timeout: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "timed out after 100ms") {
		t.Fatalf("err %v", err)
	}
	var le *Error
	if !errors.As(err, &le) || time.Since(start) > 5*time.Second {
		t.Errorf("err %#v after %v", err, time.Since(start))
	}
}

// Four states of one plugin share one store: counts from concurrent calls add up.
func TestStoreSharedByStates(t *testing.T) {
	s := sqliteStore(t, "plugin:p")
	p := loadPlugin(t, `function register(ctx) ctx.register_hook("x", function(kw) return require("store").incr("n") end) end`, Options{Store: s, States: 4})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 25 {
				if _, err := p.Call(context.Background(), 0, nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n, _ := p.Call(context.Background(), 0, nil); n != int64(101) {
		t.Errorf("n = %v, want 101", n)
	}
}
