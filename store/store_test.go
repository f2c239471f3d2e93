package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// backends opens each backend on a fresh store: the database in a temporary home, and a
// redis-server started for the test.
func backends(t *testing.T) map[string]Backend {
	t.Helper()
	out := map[string]Backend{}
	sq, err := Open(t.TempDir(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	out["sqlite"] = sq
	r := testutil.StartRedis(t)
	rb, err := Open("", Config{URL: r.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rb.Close() })
	out["redis"] = rb
	return out
}

func view(b Backend, ns string) *View {
	return NewView(func(context.Context) (Backend, error) { return b, nil }, ns)
}

// What a hook relies on, on every backend: values round-trip as JSON values, incr counts,
// namespaces are separate, keys list by prefix, delete says whether the key was there.
func TestViewOperations(t *testing.T) {
	ctx := context.Background()
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			a, other := view(b, "plugin:a"), view(b, "plugin:b")
			value := map[string]any{"n": int64(3), "f": 1.5, "s": "x", "l": []any{int64(1), "two"}, "t": true, "null": nil}
			if err := a.Set(ctx, "session:1", value, 0); err != nil {
				t.Fatal(err)
			}
			got, ok, err := a.Get(ctx, "session:1")
			if err != nil || !ok {
				t.Fatalf("get: %v %v", ok, err)
			}
			if diff := cmp.Diff(value, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			if _, ok, _ := other.Get(ctx, "session:1"); ok {
				t.Error("another namespace sees the key")
			}
			for i := range 3 {
				if n, err := a.Incr(ctx, "count", 2, 0); err != nil || n != int64(2*(i+1)) {
					t.Errorf("incr %d: %d %v", i, n, err)
				}
			}
			if n, err := a.Incr(ctx, "count", -6, 0); err != nil || n != 0 {
				t.Errorf("incr -6: %d %v", n, err)
			}
			if _, err := a.Incr(ctx, "session:1", 1, 0); !errors.Is(err, ErrNotInteger) {
				t.Errorf("incr of a table: %v", err)
			}
			a.Set(ctx, "session:2", "y", 0)
			a.Set(ctx, "sessions", int64(1), 0)
			keys, err := a.Keys(ctx, "session:")
			if err != nil || !cmp.Equal(keys, []string{"session:1", "session:2"}) {
				t.Errorf("keys session: = %q %v", keys, err)
			}
			if keys, _ := a.Keys(ctx, "*"); len(keys) != 0 {
				t.Errorf("a glob character matched: %q", keys)
			}
			if keys, _ := other.Keys(ctx, ""); len(keys) != 0 {
				t.Errorf("other namespace keys: %q", keys)
			}
			if ok, err := a.Delete(ctx, "session:2"); !ok || err != nil {
				t.Errorf("delete: %v %v", ok, err)
			}
			if ok, _ := a.Delete(ctx, "session:2"); ok {
				t.Error("deleted twice")
			}
			if err := a.Set(ctx, "sessions", nil, 0); err != nil {
				t.Error(err)
			}
			if _, ok, _ := a.Get(ctx, "sessions"); ok {
				t.Error("set nil kept the key")
			}
			ns, err := b.Namespaces(ctx)
			if err != nil || !cmp.Equal(ns, []string{"plugin:a"}) {
				t.Errorf("namespaces %q %v", ns, err)
			}
			for _, bad := range []string{"", strings.Repeat("k", MaxKeyBytes+1)} {
				if err := a.Set(ctx, bad, 1, 0); err == nil {
					t.Errorf("key of %d bytes accepted", len(bad))
				}
			}
			if err := a.Set(ctx, "big", strings.Repeat("x", MaxValueBytes), 0); err == nil {
				t.Error("a value over the limit was accepted")
			}
		})
	}
}

// A TTL expires the key; incr and update keep the expiry; a set without TTL removes it. The
// keys that must keep their expiry through several calls get an hour, so that a busy machine
// cannot expire them between the calls; the expiry itself is shown on keys of 50ms.
func TestTTL(t *testing.T) {
	ctx := context.Background()
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			v := view(b, "plugin:ttl")
			if err := v.Set(ctx, "short", "x", 50*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			if n, err := v.Incr(ctx, "gone", 1, 50*time.Millisecond); n != 1 || err != nil {
				t.Fatalf("incr with ttl: %d %v", n, err)
			}
			v.Set(ctx, "counter", int64(1), time.Hour)
			v.Incr(ctx, "counter", 1, 0)
			v.Update(ctx, "counter", func(old any, _ bool) (any, error) { return old.(int64) + 1, nil })
			if n, err := v.Incr(ctx, "window", 1, time.Hour); n != 1 || err != nil {
				t.Fatalf("incr with ttl: %d %v", n, err)
			}
			v.Incr(ctx, "window", 1, 3*time.Hour) // an existing key keeps its expiry...
			v.Set(ctx, "forever", int64(1), 0)
			v.Incr(ctx, "forever", 1, time.Hour) // ...or its lack of one
			v.Set(ctx, "kept", "x", time.Hour)
			v.Set(ctx, "kept", "y", 0)
			entries, _ := b.Entries(ctx, "plugin:ttl")
			for _, e := range entries {
				if (e.Expires == nil) != (e.Key == "kept" || e.Key == "forever") {
					t.Errorf("%s expires %v", e.Key, e.Expires)
				}
				if e.Key == "window" && e.Expires != nil && e.Expires.After(time.Now().Add(2*time.Hour)) {
					t.Errorf("window expires %v, want its first hour kept, not the second incr's 3h", e.Expires)
				}
			}
			if c, _, _ := v.Get(ctx, "counter"); c != int64(3) {
				t.Errorf("counter = %v, want 3", c)
			}
			waitExpired(t, v, "short", "gone")
			if keys, _ := v.Keys(ctx, ""); !cmp.Equal(keys, []string{"counter", "forever", "kept", "window"}) {
				t.Errorf("keys after expiry: %q", keys)
			}
			if n, err := v.Incr(ctx, "gone", 1, 0); n != 1 || err != nil {
				t.Errorf("incr of an expired key: %d %v", n, err)
			}
		})
	}
}

// Concurrent incr and update from many goroutines lose nothing; update's function may run
// again, and sees the latest value when it does.
func TestConcurrentIncrAndUpdate(t *testing.T) {
	ctx := context.Background()
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			v := view(b, "plugin:c")
			const workers, each = 8, 25
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range each {
						if _, err := v.Incr(ctx, "n", 1, 0); err != nil {
							t.Error(err)
						}
						id := fmt.Sprintf("%d-%d", w, i)
						_, err := v.Update(ctx, "ids", func(old any, _ bool) (any, error) {
							list, _ := old.([]any)
							return append(list, id), nil
						})
						if err != nil {
							t.Error(err)
						}
					}
				})
			}
			wg.Wait()
			n, _, _ := v.Get(ctx, "n")
			ids, _, _ := v.Get(ctx, "ids")
			seen := map[any]bool{}
			for _, id := range ids.([]any) {
				if seen[id] {
					t.Errorf("id %v twice", id)
				}
				seen[id] = true
			}
			if n != int64(workers*each) || len(seen) != workers*each {
				t.Errorf("n = %v, %d distinct ids; want %d of each", n, len(seen), workers*each)
			}
		})
	}
}

// Update's function errors write nothing; returning nil deletes the key.
func TestUpdateErrorsAndDeletes(t *testing.T) {
	ctx := context.Background()
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			v := view(b, "plugin:u")
			v.Set(ctx, "k", "before", 0)
			if _, err := v.Update(ctx, "k", func(any, bool) (any, error) { return nil, errors.New("no") }); err == nil || err.Error() != "no" {
				t.Errorf("err %v", err)
			}
			if got, _, _ := v.Get(ctx, "k"); got != "before" {
				t.Errorf("after a failed update: %v", got)
			}
			if _, err := v.Update(ctx, "k", func(any, bool) (any, error) { return nil, nil }); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := v.Get(ctx, "k"); ok {
				t.Error("update to nil kept the key")
			}
			got, err := v.Update(ctx, "fresh", func(old any, found bool) (any, error) {
				if found || old != nil {
					t.Errorf("fresh key: %v %v", old, found)
				}
				return "new", nil
			})
			if got != "new" || err != nil {
				t.Errorf("update of a fresh key: %v %v", got, err)
			}
		})
	}
}

// A call never outlives its context: a backend that does not answer is the call's error.
func TestDeadlines(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			v := view(b, "plugin:d")
			if err := v.Set(ctx, "k", 1, 0); err == nil || !errors.Is(err, context.Canceled) {
				t.Errorf("set with a cancelled context: %v", err)
			}
		})
	}
	// Redis that is not there: every call fails within its deadline.
	b, err := Open("", Config{URL: "redis://127.0.0.1:1/0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := view(b, "plugin:d").Incr(ctx, "k", 1, 0); err == nil || !strings.Contains(err.Error(), "redis 127.0.0.1:1") {
		t.Errorf("incr on a redis that is down: %v", err)
	}
}

// A database file that is not a database is reported with its path and kept as it is.
func TestCorruptDatabaseIsKept(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(StateDir(home), "store.db")
	os.MkdirAll(filepath.Dir(path), 0o700)
	junk := []byte(strings.Repeat("this is not a database\n", 400))
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(home, Config{})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "left as it is") {
		t.Fatalf("open of a corrupt file: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(junk) {
		t.Error("the corrupt file was changed")
	}
	if _, err := Open(home, Config{URL: "memcached://x"}); err == nil {
		t.Error("an unknown url scheme was accepted")
	}
}

// A hook cannot hold more than MaxHookKeys keys in the database: a new key is refused with
// a message saying what to do, a key it holds can still change, a deleted or expired key
// makes room, and another hook is not affected. A database made before the count existed
// is counted when opened.
func TestQuota(t *testing.T) {
	if raceEnabled {
		t.Skip("fills a namespace with 100,000 keys through one goroutine: run without -race")
	}
	ctx := context.Background()
	home := t.TempDir()
	b, err := Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	db := b.(*breaker).Backend.(*sqliteBackend).db
	// Fill plugin:q to the quota, 10 of its keys already expired, in one statement.
	if _, err := db.Exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
		INSERT INTO kv SELECT 'plugin:q', 'k' || i, '1', 1, CASE WHEN i <= 10 THEN 1 END FROM c`, MaxHookKeys); err != nil {
		t.Fatal(err)
	}
	v := view(b, "plugin:q")
	if err := v.Set(ctx, "k20", int64(2), 0); err != nil {
		t.Errorf("a key the hook holds: %v", err)
	}
	if err := v.Set(ctx, "new1", 1, 0); err != nil { // the expired keys made room
		t.Errorf("with expired keys to sweep: %v", err)
	}
	for i := range 9 { // the sweep freed 10 places; new1 took one
		if err := v.Set(ctx, fmt.Sprintf("more%d", i), 1, 0); err != nil {
			t.Fatalf("room after the sweep: %d: %v", i, err)
		}
	}
	_, err = v.Incr(ctx, "over", 1, 0)
	if !errors.Is(err, ErrQuota) || !strings.Contains(err.Error(), "store.delete") || strings.Count(err.Error(), "store:") != 1 {
		t.Errorf("over the quota: %v", err)
	}
	if _, err := v.Update(ctx, "over", func(any, bool) (any, error) { return 1, nil }); !errors.Is(err, ErrQuota) {
		t.Errorf("update over the quota: %v", err)
	}
	if err := view(b, "plugin:other").Set(ctx, "k", 1, 0); err != nil {
		t.Errorf("another hook: %v", err)
	}
	if _, err := v.Delete(ctx, "k30"); err != nil {
		t.Fatal(err)
	}
	if err := v.Set(ctx, "over", 1, 0); err != nil {
		t.Errorf("after a delete: %v", err)
	}
	b.Close()
	// An old database: drop the count and its triggers, add a key, and open it again.
	raw, _ := sql.Open("sqlite", "file:"+filepath.Join(StateDir(home), "store.db"))
	for _, q := range []string{"DROP TRIGGER kv_quota", "DROP TRIGGER kv_count_insert", "DROP TRIGGER kv_count_delete",
		"DROP TRIGGER kv_bytes_insert", "DROP TRIGGER kv_bytes_delete", "DROP TRIGGER kv_bytes_update", "DROP TABLE keys",
		"INSERT INTO kv VALUES ('plugin:q', 'extra', '1', 1, NULL)"} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	raw.Close()
	b, err = Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := view(b, "plugin:q").Set(ctx, "again", 1, 0); !errors.Is(err, ErrQuota) {
		t.Errorf("a reopened old database was not counted: %v", err)
	}
}

// openBackends opens each backend with cfg on a fresh store.
func openBackends(t *testing.T, cfg Config) map[string]Backend {
	t.Helper()
	out := map[string]Backend{}
	sq, err := Open(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	out["sqlite"] = sq
	r := testutil.StartRedis(t)
	cfg.URL = r.URL
	rb, err := Open("", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rb.Close() })
	out["redis"] = rb
	return out
}

// No namespace reaches the keys of another, whatever characters their names hold: "/"
// (the separator of Redis keys), ":", "%", and the characters of SCAN's patterns.
func TestNamespacesAreApart(t *testing.T) {
	ctx := context.Background()
	names := []string{"plugin:a", "plugin:a/b", "plugin:a%2Fb", "plugin:a%", "plugin:a/", "plugin:a:b", "plugin:*", "plugin:?", "plugin:[a]", `plugin:\`, "plugin:^a", "plugin:a*", "plugin"}
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			// Each namespace keeps the keys that, joined to its name, spell another's.
			for _, ns := range names {
				v := view(b, ns)
				for _, key := range []string{"x", "b/x", "/x", "*", "secret"} {
					if err := v.Set(ctx, key, ns, 0); err != nil {
						t.Fatal(ns, key, err)
					}
				}
			}
			for _, ns := range names {
				v := view(b, ns)
				keys, err := v.Keys(ctx, "")
				if err != nil || !cmp.Equal(keys, []string{"*", "/x", "b/x", "secret", "x"}) {
					t.Errorf("%s lists %q %v", ns, keys, err)
				}
				for _, key := range keys {
					if got, _, err := v.Get(ctx, key); got != ns || err != nil {
						t.Errorf("%s reads %q at %q (%v)", ns, got, key, err)
					}
				}
				entries, err := b.Entries(ctx, ns)
				if err != nil || len(entries) != 5 {
					t.Errorf("%s has %d entries %v", ns, len(entries), err)
				}
			}
			got, err := b.Namespaces(ctx)
			want := slices.Sorted(slices.Values(names))
			if err != nil || !cmp.Equal(got, want) {
				t.Errorf("namespaces %q %v, want %q", got, err, want)
			}
			// Deleting every key of one leaves the others whole.
			a := view(b, "plugin:a")
			for _, key := range []string{"x", "b/x", "/x", "*", "secret"} {
				if ok, err := a.Delete(ctx, key); !ok || err != nil {
					t.Errorf("delete %q: %v %v", key, ok, err)
				}
			}
			for _, ns := range names[1:] {
				if keys, _ := view(b, ns).Keys(ctx, ""); len(keys) != 5 {
					t.Errorf("after plugin:a deleted its keys, %s holds %q", ns, keys)
				}
			}
		})
	}
}

// usedBytes is what the backend counts for ns, and what its entries add up to.
func usedBytes(t *testing.T, b Backend, ns string) (counted, actual int64) {
	t.Helper()
	ctx := context.Background()
	entries, err := b.Entries(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		actual += int64(len(e.Key) + len(e.Value))
	}
	if c, ok := b.(*breaker); ok {
		b = c.Backend
	}
	switch b := b.(type) {
	case *sqliteBackend:
		err = b.db.QueryRow("SELECT COALESCE((SELECT bytes FROM keys WHERE ns = ?), 0)", ns).Scan(&counted)
	case *redisBackend:
		counted, err = b.c.Get(ctx, b.keys(ns, "")[2]).Int64()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return counted, actual
}

// A hook's keys and values may take MaxBytes bytes together: a write that would pass it is
// refused before it writes anything, with a message naming the quota and how to raise it; a
// write that takes no more room goes through; a delete, or keys that expired, make room;
// another hook is not affected. The count follows every kind of write.
func TestByteQuota(t *testing.T) {
	ctx := context.Background()
	const quota = 1000
	for name, b := range openBackends(t, Config{MaxBytes: quota}) {
		t.Run(name, func(t *testing.T) {
			v := view(b, "plugin:q")
			value := strings.Repeat("v", 96) // "k0" + `"vvv..."`: 100 bytes
			for i := range 10 {
				if err := v.Set(ctx, fmt.Sprintf("k%d", i), value, 0); err != nil {
					t.Fatalf("write %d within the quota: %v", i, err)
				}
			}
			if c, a := usedBytes(t, b, "plugin:q"); c != quota || a != quota {
				t.Fatalf("counted %d bytes, the keys hold %d; want %d", c, a, quota)
			}
			err := v.Set(ctx, "k10", "x", 0)
			if !errors.Is(err, ErrByteQuota) || !strings.Contains(err.Error(), "quota of 1000 bytes") ||
				!strings.Contains(err.Error(), "store: {max_bytes: ...} in config.yaml") || strings.Count(err.Error(), "store:") != 2 {
				t.Errorf("over the quota: %v", err)
			}
			if err := v.Set(ctx, "k0", value+"x", 0); !errors.Is(err, ErrByteQuota) {
				t.Errorf("a larger value: %v", err)
			}
			if _, err := v.Incr(ctx, "n", 1, 0); !errors.Is(err, ErrByteQuota) {
				t.Errorf("incr of a new key: %v", err)
			}
			if _, err := v.Update(ctx, "k1", func(old any, _ bool) (any, error) { return old.(string) + "x", nil }); !errors.Is(err, ErrByteQuota) {
				t.Errorf("update to a larger value: %v", err)
			}
			if got, _, _ := v.Get(ctx, "k1"); got != value {
				t.Errorf("a refused update wrote %q", got)
			}
			if err := v.Set(ctx, "k0", strings.Repeat("w", 96), 0); err != nil {
				t.Errorf("a value of the same size: %v", err)
			}
			if err := v.Set(ctx, "k1", "short", 0); err != nil {
				t.Errorf("a smaller value: %v", err)
			}
			if err := view(b, "plugin:other").Set(ctx, "k", value, 0); err != nil {
				t.Errorf("another hook: %v", err)
			}
			// k1 freed 91 bytes: a counter fits, and then 83 bytes more, 6 bytes short of the quota.
			if n, err := v.Incr(ctx, "n", 1, 0); err != nil || n != 1 {
				t.Fatalf("incr with room: %d %v", n, err)
			}
			if _, err := v.Update(ctx, "u", func(any, bool) (any, error) { return strings.Repeat("u", 80), nil }); err != nil {
				t.Fatalf("update with room: %v", err)
			}
			if _, err := v.Incr(ctx, "n", 1e15, 0); !errors.Is(err, ErrByteQuota) {
				t.Errorf("an incr that grows the value past the quota: %v", err)
			}
			if got, _, _ := v.Get(ctx, "n"); got != int64(1) {
				t.Errorf("a refused incr left %v", got)
			}
			if c, a := usedBytes(t, b, "plugin:q"); c != a || c > quota {
				t.Errorf("counted %d bytes, the keys hold %d (quota %d)", c, a, quota)
			}
			if _, err := v.Delete(ctx, "k2"); err != nil {
				t.Fatal(err)
			}
			if err := v.Set(ctx, "k10", value, 0); err != nil {
				t.Errorf("after a delete: %v", err)
			}
			if _, err := v.Update(ctx, "k10", func(any, bool) (any, error) { return nil, nil }); err != nil {
				t.Errorf("update deleting: %v", err)
			}
			// Keys that expired make room when a write needs it.
			for _, k := range []string{"k3", "k4"} {
				if err := v.Set(ctx, k, value, time.Millisecond); err != nil {
					t.Fatal(err)
				}
			}
			waitExpired(t, v, "k3", "k4")
			if err := v.Set(ctx, "k11", strings.Repeat("v", 250), 0); err != nil {
				t.Errorf("with expired keys to sweep: %v", err)
			}
			if c, a := usedBytes(t, b, "plugin:q"); c != a || c > quota {
				t.Errorf("at the end, counted %d bytes, the keys hold %d (quota %d)", c, a, quota)
			}
		})
	}
}

// waitExpired waits until keys are gone, as a hook would see them.
func waitExpired(t *testing.T, v *View, keys ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, k := range keys {
		for {
			if _, ok, _ := v.Get(context.Background(), k); !ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not expire", k)
			}
			time.Sleep(time.Millisecond) // waiting for the clock, not for a goroutine
		}
	}
}

// Writers racing for the last bytes of the quota, in any number: exactly as many writes as
// fit go through.
func TestByteQuotaConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	const quota, size, writers = 100 * 100, 100, 150
	for name, b := range openBackends(t, Config{MaxBytes: quota}) {
		t.Run(name, func(t *testing.T) {
			v := view(b, "plugin:race")
			var mu sync.Mutex
			ok, refused := 0, 0
			var wg sync.WaitGroup
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					key := fmt.Sprintf("k%03d", i)
					value := strings.Repeat("v", size-len(key)-2)
					var err error
					switch i % 3 {
					case 0:
						err = v.Set(ctx, key, value, 0)
					case 1:
						_, err = v.Update(ctx, key, func(any, bool) (any, error) { return value, nil })
					default:
						err = v.Set(ctx, key, value, time.Hour)
					}
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						ok++
					case errors.Is(err, ErrByteQuota):
						refused++
					default:
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if ok != quota/size || refused != writers-quota/size {
				t.Errorf("%d writes went through and %d were refused; want %d and %d", ok, refused, quota/size, writers-quota/size)
			}
			if c, a := usedBytes(t, b, "plugin:race"); c != quota || a != quota {
				t.Errorf("counted %d bytes, the keys hold %d; want %d", c, a, quota)
			}
		})
	}
}

// With the default quota, a loop writing the largest values a hook may write stops at
// 64 MiB, with the quota's error: not at the disk's or the memory's end.
func TestDefaultByteQuotaStopsALoop(t *testing.T) {
	if raceEnabled {
		t.Skip("writes 64 MiB through one goroutine: run without -race")
	}
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	ctx := context.Background()
	value := strings.Repeat("x", MaxValueBytes-2)
	for name, b := range openBackends(t, Config{}) {
		t.Run(name, func(t *testing.T) {
			v := view(b, "plugin:loop")
			for i := range 1024 { // 1 GiB without the quota
				err := v.Set(ctx, fmt.Sprintf("k%04d", i), value, 0)
				if err == nil {
					continue
				}
				if !errors.Is(err, ErrByteQuota) || !strings.Contains(err.Error(), "quota of 64MiB") {
					t.Fatalf("write %d: %v", i, err)
				}
				if i != DefaultMaxBytes/(MaxValueBytes+5) {
					t.Errorf("the loop stopped at write %d, want %d", i, DefaultMaxBytes/(MaxValueBytes+5))
				}
				return
			}
			t.Fatal("1 GiB written")
		})
	}
}

// A database whose count has no bytes yet (made by an earlier version) is counted when
// opened, once.
func TestByteCountOfAnOldDatabase(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	b, err := Open(home, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := view(b, "plugin:old").Set(ctx, fmt.Sprintf("k%d", i), strings.Repeat("v", 96), 0); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	raw, _ := sql.Open("sqlite", "file:"+filepath.Join(StateDir(home), "store.db"))
	for _, q := range []string{"DROP TRIGGER kv_bytes_insert", "DROP TRIGGER kv_bytes_delete", "DROP TRIGGER kv_bytes_update", "ALTER TABLE keys DROP COLUMN bytes"} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	raw.Close()
	for range 2 {
		b, err = Open(home, Config{MaxBytes: 600})
		if err != nil {
			t.Fatal(err)
		}
		if c, a := usedBytes(t, b, "plugin:old"); c != 500 || a != 500 {
			t.Errorf("counted %d bytes, the keys hold %d; want 500", c, a)
		}
		b.Close()
	}
	b, _ = Open(home, Config{MaxBytes: 600})
	defer b.Close()
	if err := view(b, "plugin:old").Set(ctx, "k5", strings.Repeat("v", 97), 0); !errors.Is(err, ErrByteQuota) {
		t.Errorf("a write past the quota of a reopened old database: %v", err)
	}
}

// A store URL that cannot be used is named in the error without its password or query
// values, whether ParseConfig or Open finds it wrong.
func TestBadURLErrorShowsNoSecret(t *testing.T) {
	for _, u := range []string{
		"redis://bob:Pw5ecret@cache.example:port/0",
		"redis://bob:Pw5ecret@cache.example:6379/db?password=Q5ecret",
		"rediss://bob:Pw5ecret@cache.example:6379/0?dial_timeout=soon&password=Q5ecret",
		"http://bob:Pw5ecret@cache.example/?password=Q5ecret",
	} {
		_, perr := ParseConfig(Config{URL: u})
		b, oerr := Open(t.TempDir(), Config{URL: u})
		if b != nil {
			b.Close()
		}
		for _, err := range []error{perr, oerr} {
			if err == nil || !strings.Contains(err.Error(), "store: url") {
				t.Errorf("%s: error %v, want one about the URL", u, err)
			} else if strings.Contains(err.Error(), "5ecret") {
				t.Errorf("%s: error shows a secret: %v", u, err)
			}
		}
	}
}

// Every operation of a view opens the backend within its caller's context (a store call
// keeps to the hook's timeout even when it has to open the database first).
func TestViewOpensWithinTheCallersContext(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "the call's")
	refused := errors.New("not opened")
	var got []any
	v := NewView(func(c context.Context) (Backend, error) {
		got = append(got, c.Value(key{}))
		return nil, refused
	}, "plugin:p")
	v.Get(ctx, "k")
	v.Set(ctx, "k", 1, 0)
	v.Incr(ctx, "k", 1, 0)
	v.Delete(ctx, "k")
	v.Keys(ctx, "")
	v.Update(ctx, "k", func(any, bool) (any, error) { return 1, nil })
	if len(got) != 6 || slices.ContainsFunc(got, func(x any) bool { return x != "the call's" }) {
		t.Errorf("the contexts the backend was opened within: %v, want the call's, six times", got)
	}
}
