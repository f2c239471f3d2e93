package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisBackend keeps the store in Redis: key <prefix><namespace>/<key>, the JSON text as
// the string value, with "%" and "/" of the namespace escaped (%25, %2F) so that the first
// "/" ends it: no namespace reaches into another, and no key is another namespace's.
//
// Every write is a script that checks and updates the namespace's accounting atomically
// with the write: <prefix><namespace>%s, a hash of the bytes of each key and its value;
// <prefix><namespace>%b, their sum; <prefix><namespace>%e, a sorted set of the keys with an
// expiry, by expiry. None has a "/" after the namespace, so none is a key of the store, and
// "%" followed by a letter is no escape, so none is another namespace's. A key that expired
// (or that Redis evicted) leaves the accounting when a write finds it gone: at once for the
// key it writes, and through the sorted set for the namespace's expired keys when a write
// would pass a quota. Keys written before the accounting existed count from their next
// write. Update reads the key, then writes with a script that compares the value it read.
type redisBackend struct {
	c         *redis.Client
	prefix    string
	addr      string
	name      string // redis://host:port/db, without credentials, for the circuit's messages
	maxBytes  int64
	opTimeout time.Duration // bound of each operation a hook makes (see bound)
	send      *redisSender  // the hot calls' queue (redisbatch.go)
}

// quiet keeps go-redis from logging on its own: every failure is the error of a call.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func openRedis(cfg Config, o Options) (*redisBackend, error) {
	redis.SetLogger(quiet{})
	opts, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, urlError(cfg.URL, err)
	}
	// Every command is bounded by the caller's context and by the operation timeout, so
	// that a server that stopped answering (a paused process, a lost network) holds no
	// call for the hook's whole timeout; a refused connection is not dialled again and
	// again. One retry on a fresh connection covers a pooled one the server closed.
	t := o.opTimeout()
	opts.ContextTimeoutEnabled = true
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = t, t, t, t
	opts.DialerRetries = 1
	opts.MaxRetries = 1
	prefix := cfg.Prefix
	if prefix == "" {
		prefix = "hermes:"
	}
	b := &redisBackend{c: redis.NewClient(opts), prefix: prefix, addr: "redis " + opts.Addr,
		name: redisName(cfg.URL, opts), maxBytes: cfg.maxBytes(), opTimeout: t}
	b.send = newRedisSender(b.c, b.bound)
	return b, nil
}

// redisName names the server of url for messages: scheme, address and database, never the
// user name or password.
func redisName(url string, opts *redis.Options) string {
	scheme, _, _ := strings.Cut(url, "://")
	if scheme == "unix" {
		return "unix://" + opts.Addr
	}
	return fmt.Sprintf("%s://%s/%d", scheme, opts.Addr, opts.DB)
}

// bound is ctx bounded by the operation timeout, whose passing says so.
func (b *redisBackend) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, b.opTimeout, opTimeoutError{b.opTimeout})
}

// opTimeoutError is the cause of an operation that ran out of its own time.
type opTimeoutError struct{ d time.Duration }

func (e opTimeoutError) Error() string { return fmt.Sprintf("no answer within %s", e.d) }

func (e opTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

func (b *redisBackend) Where() string { return b.addr }

// Close lets the calls already queued be sent, then closes the client; later calls fail.
func (b *redisBackend) Close() error {
	b.send.close()
	return b.c.Close()
}

func (b *redisBackend) k(ns, key string) string { return b.prefix + escapeNS(ns) + "/" + key }

// nsEscaper writes a namespace without "/" (%2F), and "%" as %25 so that it reads back;
// nsUnescaper reads it back.
var (
	nsEscaper   = strings.NewReplacer("%", "%25", "/", "%2F")
	nsUnescaper = strings.NewReplacer("%2F", "/", "%25", "%")
)

func escapeNS(ns string) string { return nsEscaper.Replace(ns) }

func unescapeNS(s string) string { return nsUnescaper.Replace(s) }

// keys are the Redis keys of a write to key of ns: the key, then the accounting of ns.
func (b *redisBackend) keys(ns, key string) []string {
	base := b.prefix + escapeNS(ns)
	return []string{base + "/" + key, base + "%s", base + "%b", base + "%e"}
}

// The replies of the scripts' refusals.
const (
	redisQuotaBytes = "HERMES_QUOTA_BYTES"
	redisQuotaKeys  = "HERMES_QUOTA_KEYS"
)

func (b *redisBackend) wrap(ctx context.Context, err error) error {
	switch {
	case err == nil || errors.Is(err, redis.Nil):
		return nil
	case strings.Contains(err.Error(), redisQuotaBytes):
		return byteQuotaError{b.maxBytes}
	case strings.Contains(err.Error(), redisQuotaKeys):
		return fmt.Errorf("store: %w", ErrQuota)
	case isTimeout(err) && deadlinePassed(ctx):
		// The client gave up at the context's deadline (its socket's, set from it, may
		// pass a moment before the context's timer): the cause says whose, the
		// operation's own timeout (opTimeoutError) or the caller's.
		<-ctx.Done()
		return fmt.Errorf("store: %s: %w", b.addr, context.Cause(ctx))
	case isTimeout(err) && !errors.As(err, new(opTimeoutError)):
		// The socket's deadline passed (the client sets it from the operation timeout):
		// said the same way as the operation's own cause, so that a failing server reads
		// one way.
		return fmt.Errorf("store: %s: %w", b.addr, opTimeoutError{b.opTimeout})
	}
	return fmt.Errorf("store: %s: %w", b.addr, err)
}

// deadlinePassed reports whether ctx is done or its deadline has passed.
func deadlinePassed(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && !time.Now().Before(d)
}

// isTimeout reports whether err is a deadline that passed: a context's or a socket's.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// run runs a write script on key of ns. Its arguments start with the key, the quotas, the
// time in ms and the prefix of the namespace's keys; args follow.
func (b *redisBackend) run(ctx context.Context, s *redis.Script, ns, key string, args ...any) *redis.Cmd {
	op := b.script(s, ns, key, args...)
	return s.Run(ctx, b.c, op.keys, op.args...)
}

// script is the call of a write script on key of ns, for run or the sender.
func (b *redisBackend) script(s *redis.Script, ns, key string, args ...any) *redisOp {
	keys := b.keys(ns, key)
	return &redisOp{script: s, keys: keys,
		args: append([]any{key, b.maxBytes, MaxHookKeys, time.Now().UnixMilli(), strings.TrimSuffix(keys[0], key)}, args...)}
}

// redisLib is the start of every write script: KEYS = the key, its namespace's sizes, total
// and expiries; ARGV = the key's name, the byte quota, the key quota, the time in ms, the
// prefix of the namespace's keys, then the script's own arguments.
//
// forget drops a key from the accounting; held is what the key holds in it, after dropping
// it when the key is gone (expired or evicted); room says whether the key can hold size
// bytes, sweeping the namespace's expired keys (1000 at most) once if it cannot; refuse
// raises the error of the quota that refused; account records that the key holds size
// bytes and expires at exp (ms, 0: never, false: as before). A key the sorted set says is
// due but is still there (the clocks of two gateways differ) is moved to its expiry.
const redisLib = `
local key, name, sizes, total, expiries = KEYS[1], ARGV[1], KEYS[2], KEYS[3], KEYS[4]
local maxBytes, maxKeys, now, base = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local function forget(f)
  local s = redis.call("HGET", sizes, f)
  if s then
    redis.call("HDEL", sizes, f)
    redis.call("DECRBY", total, s)
  end
  redis.call("ZREM", expiries, f)
end
local function held()
  if redis.call("EXISTS", key) == 0 then
    forget(name)
    return 0
  end
  return tonumber(redis.call("HGET", sizes, name) or "0")
end
local function sweep()
  for _, f in ipairs(redis.call("ZRANGEBYSCORE", expiries, "-inf", now, "LIMIT", 0, 1000)) do
    local ttl = redis.call("PTTL", base .. f)
    if ttl == -2 then
      forget(f)
    elseif ttl == -1 then
      redis.call("ZREM", expiries, f)
    else
      redis.call("ZADD", expiries, now + ttl, f)
    end
  end
end
local function fits(old, size)
  if size <= old then return true end
  local new = redis.call("HEXISTS", sizes, name) == 0 and redis.call("EXISTS", key) == 0
  return tonumber(redis.call("GET", total) or "0") - old + size <= maxBytes
    and not (new and redis.call("HLEN", sizes) >= maxKeys)
end
local function room(old, size)
  if fits(old, size) then return true end
  sweep()
  return fits(old, size)
end
local function refuse(old, size)
  if size > old and tonumber(redis.call("GET", total) or "0") - old + size > maxBytes then
    return redis.error_reply("` + redisQuotaBytes + `")
  end
  return redis.error_reply("` + redisQuotaKeys + `")
end
local function account(old, size, exp)
  redis.call("HSET", sizes, name, size)
  redis.call("INCRBY", total, size - old)
  if exp == 0 then
    redis.call("ZREM", expiries, name)
  elseif exp then
    redis.call("ZADD", expiries, exp, name)
  end
end
`

// The scripts are made (their SHA-1 computed) at first use: only the Redis backend runs them.

// setScript: ARGV[6] the value, ARGV[7] the TTL in ms (0: none).
var setScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(redisLib + `
local value, ttl = ARGV[6], tonumber(ARGV[7])
local old = held()
local size = #name + #value
if not room(old, size) then return refuse(old, size) end
if ttl > 0 then
  redis.call("SET", key, value, "PX", ttl)
  account(old, size, now + ttl)
else
  redis.call("SET", key, value)
  account(old, size, 0)
end
return 1`)
})

// incrScript: ARGV[6] the increment, ARGV[7] the TTL in ms of a key it creates (0: none).
// INCRBY refuses a value that is not an integer before anything changes; a sum that does
// not fit is taken back. It returns the sum as text (a Lua number is a double).
var incrScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(redisLib + `
local n, ttl = ARGV[6], tonumber(ARGV[7])
local old = held()
local new = old == 0 and redis.call("EXISTS", key) == 0
if not room(old, #name + 1) then return refuse(old, #name + 1) end
redis.call("INCRBY", key, n)
local size = #name + redis.call("STRLEN", key)
if not room(old, size) then
  if new then redis.call("DEL", key) else redis.call("DECRBY", key, n) end
  return refuse(old, size)
end
local exp = false
if new then
  exp = 0
  if ttl > 0 then
    redis.call("PEXPIRE", key, ttl)
    exp = now + ttl
  end
end
account(old, size, exp)
return redis.call("GET", key)`)
})

// swapScript is Update's write: ARGV[6] "1" when the key was there, ARGV[7] its value then,
// ARGV[8] "del" or "set", ARGV[9] the new value. It writes only when the key still holds
// what was read, and returns 1, else 0. A key set keeps its expiry.
var swapScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(redisLib + `
local cur = redis.call("GET", key)
if (ARGV[6] == "1") ~= (cur ~= false) or (cur and cur ~= ARGV[7]) then return 0 end
local old = held()
if ARGV[8] == "del" then
  redis.call("DEL", key)
  forget(name)
  return 1
end
local size = #name + #ARGV[9]
if not room(old, size) then return refuse(old, size) end
redis.call("SET", key, ARGV[9], "KEEPTTL")
account(old, size, cur == false and 0 or false)
return 1`)
})

// delScript deletes the key and returns how many keys it deleted.
var delScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(redisLib + `
local n = redis.call("DEL", key)
forget(name)
return n`)
})

func (b *redisBackend) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	cmd, err := b.send.call(ctx, b.Where(), &redisOp{keys: []string{b.k(ns, key)}})
	if err != nil {
		return nil, false, err
	}
	v, err := cmd.Text()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, b.wrap(ctx, err)
	}
	return []byte(v), true, nil
}

// ttlMS is a TTL in whole milliseconds for the scripts: 0 for none, at least 1 else.
func ttlMS(ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	return max(ttl.Milliseconds(), 1)
}

func (b *redisBackend) Set(ctx context.Context, ns, key string, value []byte, ttl time.Duration) error {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	cmd, err := b.send.call(ctx, b.Where(), b.script(setScript(), ns, key, value, ttlMS(ttl)))
	if err != nil {
		return err
	}
	return b.wrap(ctx, cmd.Err())
}

func (b *redisBackend) Incr(ctx context.Context, ns, key string, n int64, ttl time.Duration) (int64, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	cmd, err := b.send.call(ctx, b.Where(), b.script(incrScript(), ns, key, n, ttlMS(ttl)))
	if err != nil {
		return 0, err
	}
	s, err := cmd.Text()
	if err != nil && strings.Contains(err.Error(), "not an integer") {
		return 0, b.notInteger(ctx, ns, key)
	}
	if err != nil {
		return 0, b.wrap(ctx, err)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, b.wrap(ctx, err)
	}
	return v, nil
}

// notInteger is Incr's error for the value at key.
func (b *redisBackend) notInteger(ctx context.Context, ns, key string) error {
	raw, _ := b.c.Get(ctx, b.k(ns, key)).Result()
	return fmt.Errorf("%w: %s", ErrNotInteger, truncate(raw, 40))
}

func (b *redisBackend) Delete(ctx context.Context, ns, key string) (bool, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	cmd, err := b.send.call(ctx, b.Where(), b.script(delScript(), ns, key))
	if err != nil {
		return false, err
	}
	n, err := cmd.Int64()
	return n > 0, b.wrap(ctx, err)
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
		return nil, b.wrap(ctx, err)
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil
}

func (b *redisBackend) Keys(ctx context.Context, ns, prefix string) ([]string, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
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
	for range maxUpdateRuns {
		octx, cancel := b.bound(ctx)
		old, err := b.c.Get(octx, k).Bytes()
		cancel()
		found := err == nil
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, b.updateErr(ctx, err)
		}
		next, del, err := fn(old, found)
		if err != nil {
			return nil, err
		}
		op, was := "set", "0"
		if del {
			op = "del"
		}
		if found {
			was = "1"
		}
		octx, cancel = b.bound(ctx)
		n, err := b.run(octx, swapScript(), ns, key, was, old, op, next).Int64()
		cancel()
		if err != nil {
			return nil, b.updateErr(ctx, err)
		}
		if n == 1 {
			return next, nil
		}
	}
	return nil, ErrConflict
}

// updateErr is Update's error for err, the context's when it is done.
func (b *redisBackend) updateErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("store: %s: %w", b.addr, context.Cause(ctx))
	}
	return b.wrap(ctx, err)
}

func (b *redisBackend) Entries(ctx context.Context, ns string) ([]Entry, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) ([]Entry, error) {
		keys, err := b.scan(ctx, ns, "", 0)
		if err != nil {
			return nil, err
		}
		var out []Entry
		for _, key := range keys {
			// The value and its time to live in one transaction: a key that expires between
			// two separate reads would be listed as never expiring.
			var get *redis.StringCmd
			var pttl *redis.DurationCmd
			_, err := b.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				get, pttl = p.Get(ctx, b.k(ns, key)), p.PTTL(ctx, b.k(ns, key))
				return nil
			})
			v, gerr := get.Bytes()
			if errors.Is(gerr, redis.Nil) {
				continue
			}
			if err != nil {
				return nil, b.wrap(ctx, err)
			}
			e := Entry{Key: key, Value: v}
			if ttl, err := pttl.Result(); err == nil && ttl > 0 {
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
				seen[unescapeNS(rest[:i])] = true
			}
		}
		if err := iter.Err(); err != nil {
			return nil, b.wrap(ctx, err)
		}
		out := make([]string, 0, len(seen))
		for ns := range seen {
			out = append(out, ns)
		}
		slices.Sort(out)
		return out, nil
	})
}
