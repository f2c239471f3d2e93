package engine

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	htest "github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/store"
)

// storeWarning is the warning of config.yaml's store: when the host gives the store, or "".
func storeWarning(e *Engine) string {
	for _, w := range e.Warnings() {
		if strings.Contains(w.Msg, "store") {
			return w.String()
		}
	}
	return ""
}

// A backend the host gives is the store of every home it is given to, in place of
// config.yaml's, which is neither opened nor created; it is kept across reloads, and Close
// leaves it open: it is the host's.
func TestHostStoreBackend(t *testing.T) {
	ctx := context.Background()
	b, err := store.Open(t.TempDir(), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	homeA := htest.Home(t, htest.Merge(pluginFiles("counter", "", counter),
		map[string]string{"config.yaml": "# the hooks' settings\nstore:\n  url: \"memcached://x\"\n"}))
	homeB := htest.Home(t, pluginFiles("counter", "", counter))
	engA, err := New(ctx, Options{Home: homeA, Store: b})
	if err != nil {
		t.Fatal(err)
	}
	engB, err := New(ctx, Options{Home: homeB, Store: b})
	if err != nil {
		t.Fatal(err)
	}
	if w := engA.Warnings(); len(w) != 1 || !strings.HasSuffix(w[0].File, "config.yaml") || w[0].Line != 2 || !strings.Contains(w[0].Msg, "store: is ignored") {
		t.Errorf("warnings %v, want one: config.yaml:2: store: is ignored", w)
	}
	if w := storeWarning(engB); w != "" {
		t.Errorf("a home without store: warned %q", w)
	}
	turn := hookspec.LLMTurn{SessionID: "s"}
	if c := engA.DecideTurn(ctx, turn).Context; c != "call 1" {
		t.Errorf("home A: %q, want call 1", c)
	}
	if c := engB.DecideTurn(ctx, turn).Context; c != "call 2" {
		t.Errorf("home B: %q, want call 2 (the same backend, the same namespace)", c)
	}
	if err := engA.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if c := engA.DecideTurn(ctx, turn).Context; c != "call 3" {
		t.Errorf("home A after a reload: %q, want call 3", c)
	}
	if got, err := engB.Store(); err != nil || got != b {
		t.Errorf("Store() = %v, %v; want the host's backend", got, err)
	}
	engA.Close(ctx)
	engB.Close(ctx)
	if _, ok, err := b.Get(ctx, "plugin:counter", "calls"); err != nil || !ok {
		t.Errorf("the host's backend after Close: found %v, %v; want it open and holding the count", ok, err)
	}
	if _, err := os.Stat(store.StateDir(homeB)); err == nil {
		t.Error("the database in the home was created")
	}
}

// A store URL the host gives is the store in place of config.yaml's: opened on first use,
// shared by the homes given it, closed by Close.
func TestHostStoreURL(t *testing.T) {
	r := htest.StartRedis(t)
	ctx := context.Background()
	homeA := htest.Home(t, htest.Merge(pluginFiles("counter", "timeout: 1\n", counter),
		map[string]string{"config.yaml": "store: {url: \"redis://127.0.0.1:1/0\"}\n"}))
	homeB := htest.Home(t, pluginFiles("counter", "timeout: 1\n", counter))
	turn := hookspec.LLMTurn{SessionID: "s"}
	for i, home := range []string{homeA, homeB} {
		eng, err := New(ctx, Options{Home: home, StoreURL: r.URL})
		if err != nil {
			t.Fatal(err)
		}
		if c, want := eng.DecideTurn(ctx, turn).Context, []string{"call 1", "call 2"}[i]; c != want {
			t.Errorf("home %d: %q, want %q", i, c, want)
		}
		if w := storeWarning(eng); (home == homeA) != strings.Contains(w, "config.yaml:1: store: is ignored") {
			t.Errorf("home %d: store warning %q", i, w)
		}
		b, err := eng.Store()
		if err != nil {
			t.Fatal(err)
		}
		eng.Close(ctx)
		if _, _, err := b.Get(ctx, "plugin:counter", "calls"); err == nil {
			t.Errorf("home %d: the connection is still open after Close", i)
		}
		if _, err := os.Stat(store.StateDir(home)); err == nil {
			t.Errorf("home %d: the database in the home was created", i)
		}
	}
}

// A store the host gives that cannot be used fails New, naming the option.
func TestHostStoreInvalid(t *testing.T) {
	home := htest.Home(t, pluginFiles("counter", "", counter))
	b, err := store.Open(t.TempDir(), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Home: home, StoreURL: "memcached://x"}, `engine: Options.StoreURL: store: url "memcached://x"`},
		{Options{Home: home, StoreURL: "redis://127.0.0.1:6379/0", Store: b}, "engine: Options.Store and Options.StoreURL are both set"},
	} {
		if _, err := New(context.Background(), tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New: %v, want an error containing %q", err, tc.want)
		}
	}
}

// A dry run keeps its scratch store even when the host gives one: the host's is untouched.
func TestDryRunLeavesTheHostStore(t *testing.T) {
	ctx := context.Background()
	b, err := store.Open(t.TempDir(), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	eng, err := New(ctx, Options{Home: htest.Home(t, pluginFiles("counter", "", counter)), Store: b, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if c := eng.DecideTurn(ctx, hookspec.LLMTurn{}).Context; c != "call 1" {
		t.Errorf("context %q", c)
	}
	if ns, err := b.Namespaces(ctx); err != nil || len(ns) != 0 {
		t.Errorf("the host's backend holds %q (%v) after a dry run", ns, err)
	}
	if got, err := eng.Store(); err != nil || got == b {
		t.Errorf("the dry run's store: %v, %v; want a scratch one", got, err)
	}
}
