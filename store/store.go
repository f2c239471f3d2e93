package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/internal/jsonvalue"
	"github.com/hermes-hooks/hermes/internal/netguard"
	"github.com/redis/go-redis/v9"
)

// Limits of what a hook may keep.
const (
	MaxKeyBytes   = 1 << 10 // a key
	MaxValueBytes = 1 << 20 // a value, as JSON
	MaxKeys       = 10000   // keys returned by one Keys call
	MaxHookKeys   = 100000  // keys one hook may hold
	maxUpdateRuns = 64      // times Update runs its function before giving up on conflicts
)

// Bounds of the byte quota of a hook (store: {max_bytes: ...} in config.yaml): the bytes
// of its keys and values together.
const (
	DefaultMaxBytes = 64 << 20
	MinMaxBytes     = 64 << 10
	MaxMaxBytes     = 64 << 30
)

// ErrConflict is Update's error when other writers kept changing the key.
var ErrConflict = errors.New("store: the key kept changing under update; try again")

// ErrQuota is the error of a write that would give a hook more than MaxHookKeys keys.
var ErrQuota = fmt.Errorf("the hook already holds %d keys, the most one may keep: delete some (store.delete) or give them a TTL", MaxHookKeys)

// ErrByteQuota is (wrapped in) the error of a write that would take the bytes of a hook's
// keys and values past its byte quota.
var ErrByteQuota = errors.New("the hook's byte quota")

// byteQuotaError is a write past the byte quota max, saying how to get room or raise it.
type byteQuotaError struct{ max int64 }

func (e byteQuotaError) Error() string {
	return fmt.Sprintf("store: the write would take the hook's keys and values past its quota of %s: delete some (store.delete), give them a TTL, or raise store: {max_bytes: ...} in config.yaml",
		FormatSize(e.max))
}

func (e byteQuotaError) Is(target error) bool { return target == ErrByteQuota }

// FormatSize writes n bytes in the largest unit of config.yaml's sizes that divides it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		name  string
		bytes int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.bytes == 0 {
			return fmt.Sprintf("%d%s", n/u.bytes, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// ErrNotInteger is Incr's error for a value that is not an integer.
var ErrNotInteger = errors.New("value is not an integer")

// Backend is a store: namespaces of keys holding JSON text. Implementations are safe for
// concurrent use by many goroutines and processes.
type Backend interface {
	Get(ctx context.Context, ns, key string) (value []byte, found bool, err error)
	// Set stores value; ttl > 0 makes it expire, else it is kept until deleted.
	Set(ctx context.Context, ns, key string, value []byte, ttl time.Duration) error
	// Incr adds n to the integer at key (a missing key is 0) atomically and returns the
	// sum; the key keeps its expiry, and a key it creates expires after ttl when ttl > 0.
	Incr(ctx context.Context, ns, key string, n int64, ttl time.Duration) (int64, error)
	Delete(ctx context.Context, ns, key string) (bool, error)
	// Keys lists the live keys of ns starting with prefix, sorted, at most MaxKeys+1.
	Keys(ctx context.Context, ns, prefix string) ([]string, error)
	// Update reads key, calls fn with its value, and writes fn's result (del: delete the
	// key) if nobody wrote the key in between; else it calls fn again with the new value.
	// The key keeps its expiry. fn runs in the caller's goroutine.
	Update(ctx context.Context, ns, key string, fn func(old []byte, found bool) (value []byte, del bool, err error)) ([]byte, error)
	// Entries lists every live key of ns with its value and expiry, for people.
	Entries(ctx context.Context, ns string) ([]Entry, error)
	// Namespaces lists the namespaces that hold live keys.
	Namespaces(ctx context.Context) ([]string, error)
	// Where names the backend for messages: a file, or a redis address.
	Where() string
	Close() error
}

// Entry is one key of a namespace.
type Entry struct {
	Key     string          `json:"key"`
	Value   json.RawMessage `json:"value"`
	Expires *time.Time      `json:"expires,omitempty"`
}

// Config is the `store:` section of config.yaml.
type Config struct {
	URL    string // "" = the SQLite database in <home>/state; "redis://..." or "rediss://..."
	Prefix string // redis only: the prefix of every key; "" = "hermes:"
	// MaxBytes is the byte quota of each namespace: the bytes of its keys and values
	// together; 0 = DefaultMaxBytes. A write that would pass it fails with ErrByteQuota.
	MaxBytes int64
}

// maxBytes is the byte quota cfg sets.
func (cfg Config) maxBytes() int64 {
	if cfg.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return cfg.MaxBytes
}

// ParseConfig checks cfg without opening anything and says which backend it names
// ("sqlite" or "redis").
func ParseConfig(cfg Config) (string, error) {
	switch {
	case cfg.URL == "":
		return "sqlite", nil
	case strings.HasPrefix(cfg.URL, "redis://"), strings.HasPrefix(cfg.URL, "rediss://"), strings.HasPrefix(cfg.URL, "unix://"):
		if _, err := redis.ParseURL(cfg.URL); err != nil {
			return "", urlError(cfg.URL, err)
		}
		return "redis", nil
	}
	return "", fmt.Errorf("store: url %q: expected redis://host:port/db (or none, for the database in the home)", netguard.RedactURL(cfg.URL))
}

// urlError says why url cannot be used, naming it without its password or query values
// (the parser's own error repeats the URL whole, so only its cause is kept).
func urlError(rawURL string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("store: url %q: %v", netguard.RedactURL(rawURL), err)
}

// Open opens the backend cfg names for the home, with the default Options.
func Open(home string, cfg Config) (Backend, error) { return OpenWith(home, cfg, Options{}) }

// OpenWith opens the backend cfg names for the home, behind a circuit breaker
// (breaker.go): once it failed o.FailAfter times in a row (Redis unreachable or silent,
// SQLite locked by another process, its disk full or failing), calls fail at once with an
// UnavailableError for a back-off, then one call tries it again.
func OpenWith(home string, cfg Config, o Options) (Backend, error) {
	return OpenContext(context.Background(), home, cfg, o)
}

// OpenContext is OpenWith, ending with ctx: opening the database in the home waits for
// another process that holds it (15 s at most), and ctx ends that wait sooner.
func OpenContext(ctx context.Context, home string, cfg Config, o Options) (Backend, error) {
	kind, err := ParseConfig(cfg)
	if err != nil {
		return nil, err
	}
	if kind == "sqlite" {
		s, err := openSQLite(ctx, home, cfg.maxBytes(), o.opTimeout())
		if err != nil {
			return nil, err
		}
		return newBreaker(s, s.path, o), nil
	}
	r, err := openRedis(cfg, o)
	if err != nil {
		return nil, err
	}
	return newBreaker(r, r.name, o), nil
}

// View is one hook's namespace of a backend, with Go values: what the Lua store module
// calls. Values are JSON values as Go holds them: nil, bool, int64, float64, string, []any,
// map[string]any.
type View struct {
	b  func(context.Context) (Backend, error)
	ns string
}

// Namespace is the namespace of the keys of the hook in the directory dirName of
// <home>/plugins (source "plugin") or <home>/hooks (source "gateway"). It names the hook by
// its directory, which no other hook of the home can have, not by the name its manifest
// declares, which any could.
func Namespace(source, dirName string) string { return source + ":" + dirName }

// NewView is namespace ns of the backend backend returns (called at every operation, so a
// backend that could not be opened is tried again).
func NewView(backend func(context.Context) (Backend, error), ns string) *View {
	return &View{b: backend, ns: ns}
}

// Namespace is the view's namespace.
func (v *View) Namespace() string { return v.ns }

func (v *View) backend(ctx context.Context, key string) (Backend, error) {
	switch {
	case key == "":
		return nil, errors.New("the key is empty")
	case len(key) > MaxKeyBytes:
		return nil, fmt.Errorf("the key is %d bytes, more than %d", len(key), MaxKeyBytes)
	}
	return v.b(ctx)
}

// Get returns the value at key.
func (v *View) Get(ctx context.Context, key string) (any, bool, error) {
	b, err := v.backend(ctx, key)
	if err != nil {
		return nil, false, err
	}
	raw, ok, err := b.Get(ctx, v.ns, key)
	if err != nil || !ok {
		return nil, false, err
	}
	val, err := jsonvalue.Decode(raw)
	return val, err == nil, err
}

// Set stores value at key; ttl > 0 makes it expire. A nil value deletes the key.
func (v *View) Set(ctx context.Context, key string, value any, ttl time.Duration) error {
	b, err := v.backend(ctx, key)
	if err != nil {
		return err
	}
	if value == nil {
		_, err := b.Delete(ctx, v.ns, key)
		return err
	}
	raw, err := encode(value)
	if err != nil {
		return err
	}
	return b.Set(ctx, v.ns, key, raw, ttl)
}

// Incr adds n to the integer at key and returns the sum; a key it creates expires after
// ttl when ttl > 0.
func (v *View) Incr(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error) {
	b, err := v.backend(ctx, key)
	if err != nil {
		return 0, err
	}
	return b.Incr(ctx, v.ns, key, n, ttl)
}

// Delete removes key and reports whether it was there.
func (v *View) Delete(ctx context.Context, key string) (bool, error) {
	b, err := v.backend(ctx, key)
	if err != nil {
		return false, err
	}
	return b.Delete(ctx, v.ns, key)
}

// Keys lists the keys starting with prefix, sorted.
func (v *View) Keys(ctx context.Context, prefix string) ([]string, error) {
	b, err := v.b(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := b.Keys(ctx, v.ns, prefix)
	if err == nil && len(keys) > MaxKeys {
		return nil, fmt.Errorf("more than %d keys start with %q; ask for a longer prefix", MaxKeys, prefix)
	}
	return keys, err
}

// Update calls fn with the value at key (nil, false when there is none) and stores what it
// returns (nil deletes the key), atomically: if another writer changed the key meanwhile,
// fn runs again with the new value. It returns what was stored.
func (v *View) Update(ctx context.Context, key string, fn func(old any, found bool) (any, error)) (any, error) {
	b, err := v.backend(ctx, key)
	if err != nil {
		return nil, err
	}
	var out any
	_, err = b.Update(ctx, v.ns, key, func(old []byte, found bool) ([]byte, bool, error) {
		var prev any
		if found {
			var err error
			if prev, err = jsonvalue.Decode(old); err != nil {
				return nil, false, err
			}
		}
		next, err := fn(prev, found)
		if err != nil {
			return nil, false, err
		}
		out = next
		if next == nil {
			return nil, true, nil
		}
		raw, err := encode(next)
		return raw, false, err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// encode renders a value as JSON, within MaxValueBytes.
func encode(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the value cannot be stored as JSON: %v", err)
	}
	if len(raw) > MaxValueBytes {
		return nil, fmt.Errorf("the value is %d bytes as JSON, more than %d", len(raw), MaxValueBytes)
	}
	return raw, nil
}

// parseInt reads an integer value for Incr.
func parseInt(raw []byte) (int64, error) {
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return 0, ErrNotInteger
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		if x == float64(int64(x)) {
			return int64(x), nil
		}
	}
	return 0, fmt.Errorf("%w: %s", ErrNotInteger, truncate(string(raw), 40))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// withContext runs op in its own goroutine and returns its result, or ctx's error as soon
// as ctx is done (op then finishes on its own): no operation outlives the caller's deadline.
func withContext[T any](ctx context.Context, where string, op func(context.Context) (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, fmt.Errorf("store: %s: %w", where, context.Cause(ctx))
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := op(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("store: %s: %w", where, context.Cause(ctx))
	}
}
