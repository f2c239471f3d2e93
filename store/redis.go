package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisBackend keeps the store in Redis: key <prefix><namespace>/<key>, the JSON text as
// the string value. Incr is INCRBY; Update is WATCH, GET, then MULTI/SET/EXEC.
type redisBackend struct {
	c      *redis.Client
	prefix string
	addr   string
}

// quiet keeps go-redis from logging on its own: every failure is the error of a call.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func openRedis(cfg Config) (*redisBackend, error) {
	redis.SetLogger(quiet{})
	opts, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("store: url %q: %v", cfg.URL, err)
	}
	// The caller's context bounds every command; these only bound what has no context.
	opts.ContextTimeoutEnabled = true
	opts.DialTimeout = 2 * time.Second
	opts.MaxRetries = 1
	prefix := cfg.Prefix
	if prefix == "" {
		prefix = "hermes:"
	}
	return &redisBackend{c: redis.NewClient(opts), prefix: prefix, addr: "redis " + opts.Addr}, nil
}

func (b *redisBackend) Where() string { return b.addr }

func (b *redisBackend) Close() error { return b.c.Close() }

func (b *redisBackend) k(ns, key string) string { return b.prefix + ns + "/" + key }

func (b *redisBackend) wrap(err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return nil
	}
	return fmt.Errorf("store: %s: %w", b.addr, err)
}

func (b *redisBackend) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	type got struct {
		v  []byte
		ok bool
	}
	r, err := withContext(ctx, b.Where(), func(ctx context.Context) (got, error) {
		v, err := b.c.Get(ctx, b.k(ns, key)).Bytes()
		if errors.Is(err, redis.Nil) {
			return got{}, nil
		}
		return got{v, err == nil}, b.wrap(err)
	})
	return r.v, r.ok, err
}

func (b *redisBackend) Set(ctx context.Context, ns, key string, value []byte, ttl time.Duration) error {
	_, err := withContext(ctx, b.Where(), func(ctx context.Context) (struct{}, error) {
		return struct{}{}, b.wrap(b.c.Set(ctx, b.k(ns, key), value, max(ttl, 0)).Err())
	})
	return err
}

func (b *redisBackend) Incr(ctx context.Context, ns, key string, n int64, ttl time.Duration) (int64, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) (int64, error) {
		if ttl > 0 {
			v, err := incrNew.Run(ctx, b.c, []string{b.k(ns, key)}, n, max(ttl.Milliseconds(), 1)).Int64()
			if err != nil && strings.Contains(err.Error(), "not an integer") {
				return 0, b.notInteger(ctx, ns, key)
			}
			return v, b.wrap(err)
		}
		v, err := b.c.IncrBy(ctx, b.k(ns, key), n).Result()
		if err != nil && strings.Contains(err.Error(), "not an integer") {
			return 0, b.notInteger(ctx, ns, key)
		}
		return v, b.wrap(err)
	})
}

// incrNew is INCRBY that gives a key it creates an expiry, atomically on the server.
var incrNew = redis.NewScript(`local new = redis.call("EXISTS", KEYS[1]) == 0
local v = redis.call("INCRBY", KEYS[1], ARGV[1])
if new then redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
return v`)

// notInteger is Incr's error for the value at key.
func (b *redisBackend) notInteger(ctx context.Context, ns, key string) error {
	raw, _ := b.c.Get(ctx, b.k(ns, key)).Result()
	return fmt.Errorf("%w: %s", ErrNotInteger, truncate(raw, 40))
}

func (b *redisBackend) Delete(ctx context.Context, ns, key string) (bool, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) (bool, error) {
		n, err := b.c.Del(ctx, b.k(ns, key)).Result()
		return n > 0, b.wrap(err)
	})
}

// scan lists the keys matching prefix+ns+"/"+p*, without the namespace part.
func (b *redisBackend) scan(ctx context.Context, ns, p string, limit int) ([]string, error) {
	base := b.k(ns, "")
	var keys []string
	iter := b.c.Scan(ctx, 0, globEscape(base+p)+"*", 1000).Iterator()
	for iter.Next(ctx) && (limit <= 0 || len(keys) < limit) {
		keys = append(keys, strings.TrimPrefix(iter.Val(), base))
	}
	if err := iter.Err(); err != nil {
		return nil, b.wrap(err)
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil
}

func (b *redisBackend) Keys(ctx context.Context, ns, prefix string) ([]string, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) ([]string, error) {
		keys, err := b.scan(ctx, ns, prefix, MaxKeys+1)
		if keys == nil && err == nil {
			keys = []string{}
		}
		return keys, err
	})
}

// globEscape escapes the characters SCAN's MATCH pattern gives a meaning.
func globEscape(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\^`, r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

func (b *redisBackend) Update(ctx context.Context, ns, key string, fn func([]byte, bool) ([]byte, bool, error)) ([]byte, error) {
	k := b.k(ns, key)
	var next []byte
	for range maxUpdateRuns {
		err := b.c.Watch(ctx, func(tx *redis.Tx) error {
			old, err := tx.Get(ctx, k).Bytes()
			found := err == nil
			if err != nil && !errors.Is(err, redis.Nil) {
				return err
			}
			var del bool
			if next, del, err = fn(old, found); err != nil {
				return userError{err}
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				if del {
					p.Del(ctx, k)
				} else {
					p.SetArgs(ctx, k, next, redis.SetArgs{KeepTTL: true})
				}
				return nil
			})
			return err
		}, k)
		var ue userError
		switch {
		case err == nil:
			return next, nil
		case errors.As(err, &ue):
			return nil, ue.err
		case errors.Is(err, redis.TxFailedErr):
			continue
		case ctx.Err() != nil:
			return nil, fmt.Errorf("store: %s: %w", b.addr, context.Cause(ctx))
		default:
			return nil, b.wrap(err)
		}
	}
	return nil, ErrConflict
}

// userError carries the error of Update's function through Watch.
type userError struct{ err error }

func (e userError) Error() string { return e.err.Error() }

func (b *redisBackend) Entries(ctx context.Context, ns string) ([]Entry, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) ([]Entry, error) {
		keys, err := b.scan(ctx, ns, "", 0)
		if err != nil {
			return nil, err
		}
		var out []Entry
		for _, key := range keys {
			v, err := b.c.Get(ctx, b.k(ns, key)).Bytes()
			if errors.Is(err, redis.Nil) {
				continue
			}
			if err != nil {
				return nil, b.wrap(err)
			}
			e := Entry{Key: key, Value: v}
			if ttl, err := b.c.PTTL(ctx, b.k(ns, key)).Result(); err == nil && ttl > 0 {
				t := time.Now().Add(ttl)
				e.Expires = &t
			}
			out = append(out, e)
		}
		return out, nil
	})
}

func (b *redisBackend) Namespaces(ctx context.Context) ([]string, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) ([]string, error) {
		seen := map[string]bool{}
		iter := b.c.Scan(ctx, 0, globEscape(b.prefix)+"*", 1000).Iterator()
		for iter.Next(ctx) {
			rest := strings.TrimPrefix(iter.Val(), b.prefix)
			if i := strings.IndexByte(rest, '/'); i > 0 {
				seen[rest[:i]] = true
			}
		}
		if err := iter.Err(); err != nil {
			return nil, b.wrap(err)
		}
		out := make([]string, 0, len(seen))
		for ns := range seen {
			out = append(out, ns)
		}
		slices.Sort(out)
		return out, nil
	})
}
