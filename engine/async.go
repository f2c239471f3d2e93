package engine

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/shell"
)

// maxBackground bounds the async shell hooks (async, asyncRewake: hooks written for another
// agent that its agent runs in the background) running at once, engine-wide.
const maxBackground = 16

// background runs async shell hooks off the call's path: at most maxBackground at once; a
// firing beyond that is dropped with a warning (the call never waits for one). Their
// answers are ignored, as their agent ignores them; an asyncRewake hook's exit code 2
// gives its stderr to the session's next turn. Close ends them (the engine's stop context
// kills their processes) and waits for them. Safe for concurrent use.
type background struct {
	slots  chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool // no run starts any more
}

func (b *background) init() { b.slots = make(chan struct{}, maxBackground) }

// start counts a run about to start; false once the engine closed.
func (b *background) start() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.wg.Add(1)
	return true
}

// wait returns once every background run has ended.
func (b *background) wait() { b.wg.Wait() }

// close refuses new runs and waits for the ones running (the engine's stop context ends
// them).
func (b *background) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.wg.Wait()
}

// fireAsync starts c's hook in the background and returns at once: the call goes on
// without it. A hook its matcher (or if condition) does not select is skipped, not started.
func (c *shellCallback) fireAsync(ctx context.Context, hook string, kw args) hookspec.Result {
	r := hookspec.Result{Source: hookspec.SourceShell, Name: metricName(c.hook), Status: hookspec.StatusOK, StatusMessage: c.hook.StatusMessage}
	kwargs, cwd := kw.Map(), c.cwd()
	if !c.hook.Selects(kwargs, shell.RunOptions{Cwd: cwd}) {
		r.Status = hookspec.StatusSkipped
		c.metrics.observe(r.Status, 0)
		return r
	}
	select {
	case c.bg.slots <- struct{}{}:
	default:
		r.Status, r.Err = hookspec.StatusBusy, "async shell hook not started: too many running in the background"
		c.warns.warn(c.logger, r.Err, "hook", hook, "limit", maxBackground)
		return r
	}
	if !c.bg.start() {
		<-c.bg.slots
		r.Status, r.Err = hookspec.StatusCancelled, "async shell hook not started: "+ErrClosed.Error()
		return r
	}
	go func() {
		defer c.bg.wg.Done()
		defer func() { <-c.bg.slots }()
		// The call's own context ends with the call: the hook runs until its timeout, or
		// until the engine closes.
		bctx := context.WithoutCancel(ctx)
		bctx, cancel := context.WithCancelCause(bctx)
		defer cancel(nil)
		defer context.AfterFunc(c.stop, func() { cancel(context.Cause(c.stop)) })()
		res := c.hook.Run(bctx, kwargs, shell.RunOptions{Logger: c.logger, Cwd: cwd})
		c.metrics.observe(res.Status, res.Duration)
		if res.Err != "" {
			c.warns.warn(c.logger, res.Err, "hook", hook, "status", res.Status.String(), "async", true)
		}
		if c.hook.AsyncRewake && res.ExitCode == 2 && c.rewake != nil {
			if why := strings.TrimSpace(res.Stderr); why != "" {
				sid, _ := kwargs["session_id"].(string)
				c.rewake(sid, why)
			}
		}
	}()
	r.Result = map[string]any{"async": true}
	r.Duration = time.Duration(0)
	r.Answer = hookspec.Answer{}
	return r
}
