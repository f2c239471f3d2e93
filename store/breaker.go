package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Defaults of Options: how a backend that keeps failing is given a rest.
const (
	DefaultFailAfter = 5               // consecutive failures that open the circuit
	DefaultBackoff   = 2 * time.Second // rest of an open circuit between two probes, however long the outage
	DefaultOpTimeout = 1 * time.Second // bound of one operation on a network backend
)

const probeNote = "then one call tries again"

// ErrUnavailable is (wrapped in) the error of a call failed at once because its backend kept
// failing: the call did not reach the backend.
var ErrUnavailable = errors.New("store: backend unavailable")

// UnavailableError is the error of a call failed at once by an open circuit: the backend
// Where failed Failures times in a row, the last time with Last, and the next call in
// RetryIn tries it again (RetryIn is 0 while such a call is under way).
type UnavailableError struct {
	Where    string
	Failures int
	Last     string
	RetryIn  time.Duration
}

func (e *UnavailableError) Error() string {
	rest := "calls fail at once while one call tries again"
	if e.RetryIn > 0 {
		rest = fmt.Sprintf("calls fail at once for %s, %s", roundUp(e.RetryIn), probeNote)
	}
	return fmt.Sprintf("store: %s is failing (%s in a row, last: %s); %s", e.Where, errorsText(e.Failures), e.Last, rest)
}

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// errorsText is "1 error", "2 errors".
func errorsText(n int) string {
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}

// roundUp shows a rest in tenths of a second, never as 0s.
func roundUp(d time.Duration) time.Duration {
	r := d.Round(100 * time.Millisecond)
	if r < d {
		r += 100 * time.Millisecond
	}
	return r
}

// Options tune how a backend is used; the zero value works.
type Options struct {
	// Logger receives a warning when a backend's circuit opens and a note when it closes;
	// nil discards them.
	Logger *slog.Logger
	// FailAfter is how many failures in a row (no connection, no answer in time; not a
	// quota or a bad value, which are answers) open the circuit; 0 = DefaultFailAfter.
	FailAfter int
	// Backoff is how long an open circuit fails calls at once before one call (a probe) is
	// let through; a probe that fails starts the same rest again, so however long the
	// outage, calls reach the backend within Backoff of its return; 0 = DefaultBackoff.
	Backoff time.Duration
	// OpTimeout bounds each operation on a Redis backend, whatever time the caller's
	// context leaves, and how long a SQLite write waits for another process's write to
	// end (its busy timeout); 0 = DefaultOpTimeout.
	OpTimeout time.Duration
}

func (o Options) failAfter() int {
	if o.FailAfter <= 0 {
		return DefaultFailAfter
	}
	return o.FailAfter
}

func (o Options) backoff() time.Duration {
	if o.Backoff <= 0 {
		return DefaultBackoff
	}
	return o.Backoff
}

func (o Options) opTimeout() time.Duration {
	if o.OpTimeout <= 0 {
		return DefaultOpTimeout
	}
	return o.OpTimeout
}

// breaker is a circuit breaker around a backend: after FailAfter failures in a row, calls
// fail at once with an UnavailableError for the back-off; then the next call is let through
// alone (half-open): its success closes the circuit, its failure opens it again for the same
// back-off (never longer: recovery after a long outage is as prompt as after a short one). Any answer from the backend (a value, a quota error) counts as a success. A
// call the caller cancelled says nothing about the backend and is not counted.
type breaker struct {
	Backend
	name      string // the backend for messages, without credentials
	log       *slog.Logger
	failAfter int
	rest      time.Duration // how long the circuit stays open before a probe
	now       func() time.Time

	mu      sync.Mutex
	fails   int       // failures in a row
	last    string    // the last failure, for messages
	until   time.Time // zero: closed; else calls fail at once before it
	probing bool      // a call is trying the backend after the rest
}

func newBreaker(b Backend, name string, o Options) *breaker {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &breaker{Backend: b, name: name, log: log, failAfter: o.failAfter(), rest: o.backoff(), now: time.Now}
}

// allow says whether a call may reach the backend, and whether it is the probe.
func (c *breaker) allow() (probe bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.until.IsZero() {
		return false, nil
	}
	left := c.until.Sub(c.now())
	if left > 0 || c.probing {
		return false, &UnavailableError{Where: c.name, Failures: c.fails, Last: c.last, RetryIn: max(left, 0)}
	}
	c.probing = true
	return true, nil
}

// done records the outcome of a call allowed by allow; ctx is the caller's.
func (c *breaker) done(ctx context.Context, probe bool, err error) {
	failed, counts := verdict(ctx, err)
	c.mu.Lock()
	defer c.mu.Unlock()
	if probe {
		c.probing = false
	}
	switch {
	case !counts:
	case !failed:
		if !c.until.IsZero() {
			c.log.Info("store answers again; calls reach it again", "store", c.name, "failures", c.fails)
		}
		c.fails, c.last, c.until = 0, "", time.Time{}
	default:
		c.fails++
		c.last = c.cause(err)
		switch {
		case probe: // the warning that opened the circuit stands: no warning every rest
			c.until = c.now().Add(c.rest)
			c.log.Debug("store still failing; calls fail at once", "store", c.name, "failures", c.fails, "last", c.last, "for", c.rest)
		case c.until.IsZero() && c.fails >= c.failAfter:
			c.until = c.now().Add(c.rest)
			c.log.Warn(fmt.Sprintf("store: %s is failing (%s in a row, last: %s); calls fail at once for %s, %s",
				c.name, errorsText(c.fails), c.last, c.rest, probeNote))
		}
	}
}

// cause is err without the "store: <where>: " prefix every backend error has.
func (c *breaker) cause(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "store: ")
	s = strings.TrimPrefix(s, c.Backend.Where()+": ")
	return truncate(s, 200)
}

// verdict says whether err is a failure of the backend (counts and failed) or an answer of
// it (counts, not failed); a call the caller cancelled, or that started with its context
// done, does not count.
func verdict(ctx context.Context, err error) (failed, counts bool) {
	switch {
	case err == nil:
		return false, true
	case errors.Is(ctx.Err(), context.Canceled):
		return false, false
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return true, true // the backend took all the time the caller had
	}
	return isFailure(err), true
}

// isFailure reports whether err says the backend could not be reached or did not answer in
// time (for SQLite: locked by another process past the busy timeout, a disk that is full or
// failing, a file that cannot be opened or read), rather than answering (a quota, a value
// that is not an integer, a conflict).
func isFailure(err error) bool {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrClosed):
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR,
			sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL, sqlite3.SQLITE_NOTADB:
			return true
		}
	}
	for _, p := range []string{"LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "BUSY"} {
		if redis.HasErrorPrefix(err, p) {
			return true
		}
	}
	return false
}

// call runs op through the circuit.
func call[T any](c *breaker, ctx context.Context, op func() (T, error)) (T, error) {
	if ctx.Err() != nil {
		return op() // fails at once with the context's error; not a verdict on the backend
	}
	probe, err := c.allow()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := op()
	c.done(ctx, probe, err)
	return v, err
}

func (c *breaker) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	type got struct {
		v  []byte
		ok bool
	}
	r, err := call(c, ctx, func() (got, error) {
		v, ok, err := c.Backend.Get(ctx, ns, key)
		return got{v, ok}, err
	})
	return r.v, r.ok, err
}

func (c *breaker) Set(ctx context.Context, ns, key string, value []byte, ttl time.Duration) error {
	_, err := call(c, ctx, func() (struct{}, error) {
		return struct{}{}, c.Backend.Set(ctx, ns, key, value, ttl)
	})
	return err
}

func (c *breaker) Incr(ctx context.Context, ns, key string, n int64, ttl time.Duration) (int64, error) {
	return call(c, ctx, func() (int64, error) { return c.Backend.Incr(ctx, ns, key, n, ttl) })
}

func (c *breaker) Delete(ctx context.Context, ns, key string) (bool, error) {
	return call(c, ctx, func() (bool, error) { return c.Backend.Delete(ctx, ns, key) })
}

func (c *breaker) Keys(ctx context.Context, ns, prefix string) ([]string, error) {
	return call(c, ctx, func() ([]string, error) { return c.Backend.Keys(ctx, ns, prefix) })
}

// Update counts what the backend did: an error of fn is the hook's, and fn ran on a value
// the backend gave.
func (c *breaker) Update(ctx context.Context, ns, key string, fn func([]byte, bool) ([]byte, bool, error)) ([]byte, error) {
	if ctx.Err() != nil {
		return c.Backend.Update(ctx, ns, key, fn)
	}
	probe, err := c.allow()
	if err != nil {
		return nil, err
	}
	var fnErr error
	v, err := c.Backend.Update(ctx, ns, key, func(old []byte, found bool) ([]byte, bool, error) {
		v, del, err := fn(old, found)
		fnErr = err
		return v, del, err
	})
	if fnErr != nil {
		c.done(ctx, probe, nil)
	} else {
		c.done(ctx, probe, err)
	}
	return v, err
}

func (c *breaker) Entries(ctx context.Context, ns string) ([]Entry, error) {
	return call(c, ctx, func() ([]Entry, error) { return c.Backend.Entries(ctx, ns) })
}

func (c *breaker) Namespaces(ctx context.Context) ([]string, error) {
	return call(c, ctx, func() ([]string, error) { return c.Backend.Namespaces(ctx) })
}
