package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Pipelining of the Redis backend. Its hot calls (Get, Set, Incr, Delete) are queued for one
// goroutine, the sender (started by the call that finds none, gone once nothing waits),
// which sends what is waiting together: one call alone as before, several as one pipeline (one write and one read on each side for all of them, where
// each call alone costs a system call or two on both ends and a round trip). One pipeline
// is in flight at a time: the calls that come meanwhile wait for it and go in the next.
//
// Each call keeps its own reply and its own error (a pipeline sets them per command); a
// caller waits no longer than its context, bounded by the operation timeout as before, and
// a call whose caller stopped waiting before the sender took it is never sent. A pipeline
// is bounded by the operation timeout too, so a server that stopped answering holds the
// sender no longer than one call alone would wait.

// maxPipeline is the most calls one pipeline takes: what waits longer goes in the next.
const maxPipeline = 128

// maxSenders is how many senders may have a pipeline in flight at once. With one, two
// callers would take turns, each waiting for the other's round trip; with two, calls go
// alone until more than two wait at once (BenchmarkRedisIncrParallel: 2 callers 42 µs of
// CPU a call with two senders, 58-70 µs with one; 16 callers 19 µs either way).
const maxSenders = 2

// redisOp is one call queued for the sender: a script on keys with args, or (script nil) a
// GET of keys[0].
type redisOp struct {
	script *redis.Script
	keys   []string
	args   []any
	cmd    *redis.Cmd
	state  atomic.Int32  // opQueued, opTaken, opAbandoned
	done   chan struct{} // closed once cmd holds the reply
}

// call sends op through the sender; ctx is already bounded by the operation timeout.
// It returns op's reply, or the error of a call that got none: ctx's, or the store's
// being closed.
func (s *redisSender) call(ctx context.Context, where string, op *redisOp) (*redis.Cmd, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: %w", where, context.Cause(ctx))
	}
	op.done = make(chan struct{})
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("store: %s: %w", where, redis.ErrClosed)
	}
	s.queue = append(s.queue, op)
	if s.sending < maxSenders {
		s.sending++
		s.senders.Add(1)
		go s.send()
	}
	s.mu.Unlock()
	if s.onQueued != nil {
		s.onQueued()
	}
	select {
	case <-op.done:
		return op.cmd, nil
	case <-ctx.Done():
		op.state.CompareAndSwap(opQueued, opAbandoned) // else it is sent, or was, on its own
		return nil, fmt.Errorf("store: %s: %w", where, context.Cause(ctx))
	}
}

// redisSender is the queue of a Redis backend's hot calls and the goroutine that sends them.
type redisSender struct {
	c       *redis.Client
	bound   func(context.Context) (context.Context, context.CancelFunc)
	senders sync.WaitGroup // the sender, while there is one

	mu      sync.Mutex
	queue   []*redisOp
	sending int // senders running: each takes what is queued
	closed  bool

	// Seams for tests, nil otherwise: onQueued runs after a call was queued, onSend when a
	// sender starts sending the n calls whose callers still wait.
	onQueued func()
	onSend   func(n int)
}

func newRedisSender(c *redis.Client, bound func(context.Context) (context.Context, context.CancelFunc)) *redisSender {
	return &redisSender{c: c, bound: bound}
}

// close lets the calls already queued be sent; later calls fail.
func (s *redisSender) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.senders.Wait()
}

// send is the sender: it sends the queued calls, those waiting together in one pipeline,
// until none waits. A goroutine started for the purpose, where the call runs at once, costs
// a lone call less than waking one that waits.
func (s *redisSender) send() {
	defer s.senders.Done()
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.sending--
			s.mu.Unlock()
			return
		}
		batch := s.queue
		if len(batch) > maxPipeline {
			batch, s.queue = batch[:maxPipeline:maxPipeline], append([]*redisOp(nil), batch[maxPipeline:]...)
		} else {
			s.queue = nil
		}
		s.mu.Unlock()
		s.run(batch)
	}
}

// run sends the calls of batch whose callers still wait and closes their done.
func (s *redisSender) run(batch []*redisOp) {
	live := batch[:0]
	for _, op := range batch {
		if op.state.CompareAndSwap(opQueued, opTaken) {
			live = append(live, op)
		}
	}
	if len(live) == 0 {
		return
	}
	if s.onSend != nil {
		s.onSend(len(live))
	}
	ctx, cancel := s.bound(context.Background())
	defer cancel()
	if len(live) == 1 {
		live[0].cmd = live[0].alone(ctx, s.c)
		close(live[0].done)
		return
	}
	pipe := s.c.Pipeline()
	for _, op := range live {
		if op.script == nil {
			op.cmd = pipe.Do(ctx, "get", op.keys[0])
		} else {
			op.cmd = op.script.EvalSha(ctx, pipe, op.keys, op.args...)
		}
	}
	pipe.Exec(ctx) // each command holds its own reply or error
	for _, op := range live {
		if op.script != nil && noScript(op.cmd.Err()) {
			// The server does not have the script (it restarted, or was flushed): EVAL
			// loads it. The command did not run, so it runs after the rest of its pipeline:
			// calls that wait together are concurrent, and that is an order they could
			// have had.
			op.cmd = op.script.Eval(ctx, s.c, op.keys, op.args...)
		}
		close(op.done)
	}
}

// alone sends op by itself on c.
func (op *redisOp) alone(ctx context.Context, c *redis.Client) *redis.Cmd {
	if op.script == nil {
		return c.Do(ctx, "get", op.keys[0])
	}
	return op.script.Run(ctx, c, op.keys, op.args...)
}

// noScript reports whether err is the server's "no such script" answer to EVALSHA.
func noScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
}
