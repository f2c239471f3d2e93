package shell

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"gopkg.in/yaml.v3"
)

// Instances of a persistent hook (`instances: N` in config.yaml).
const (
	DefaultInstances = 1
	MaxInstances     = 16
)

// The circuit of a persistent hook: after circuitFailAfter firings in a row that got no
// answer (timed out, the process exited or could not start), firings fail at once for a
// rest, then one firing tries a new process; a try that fails starts the same rest again,
// so however long the hook was failing, firings reach it within circuitRest of its
// recovery. Any answer closes the circuit.
const (
	circuitFailAfter = 3
	circuitRest      = 2 * time.Second
)

// persistent is the state of one persistent hook: Instances slots, each with at most one
// process, and a semaphore with room for a token per slot. A firing puts a token in, then
// the slot used last (a stack: a slot no concurrent firing needed never starts a process),
// and gives both back when done.
type persistent struct {
	sem chan struct{}
	seq atomic.Uint64 // firings so far, for request ids

	mu     sync.Mutex // guards the fields below and every slot's; never held while talking to a process
	free   []*slot    // the slots not firing, the one used last at the end
	all    []*slot
	closed bool
	starts int
	trip   circuit
	// tripped is whether trip is not the zero circuit (a failure counted, or open): while
	// it is not, a firing reads and resets nothing under mu.
	tripped atomic.Bool
}

// slot is one instance of a persistent hook.
type slot struct {
	p    *persistent
	proc *proc
	why  string // why the previous process is gone ("" = none ended yet), for the restart warning
}

// circuit counts the firings in a row that got no answer; guarded by persistent.mu.
type circuit struct {
	fails   int
	last    string    // why the last one got no answer
	until   time.Time // zero: closed; else firings fail at once before it
	rest    time.Duration
	probing bool // a firing is trying a process after the rest
}

func newPersistent(n int) *persistent {
	n = max(1, min(n, MaxInstances))
	p := &persistent{sem: make(chan struct{}, n)}
	for range n {
		s := &slot{p: p}
		p.free = append(p.free, s)
		p.all = append(p.all, s)
	}
	return p
}

// take returns the free slot used last; the caller put a token in the semaphore.
func (p *persistent) take() *slot {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return s
}

// release gives s back and takes the caller's token out.
func (p *persistent) release(s *slot) {
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
	<-p.sem
}

func (h *Hook) now() time.Time {
	if h.clock != nil {
		return h.clock()
	}
	return time.Now()
}

// allow says whether a firing may talk to a process, and whether it is the one trying again
// after the rest (claim: it becomes that one); else why it fails at once.
func (h *Hook) allow(p *persistent, claim bool) (probe bool, why string) {
	if !p.tripped.Load() {
		return false, ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := &p.trip
	if c.until.IsZero() {
		return false, ""
	}
	left := c.until.Sub(h.now())
	if left > 0 || c.probing {
		rest := "calls fail at once while one call tries again"
		if left > 0 {
			rest = fmt.Sprintf("calls fail at once for %s, then one call tries again", roundUp(left))
		}
		return false, fmt.Sprintf("failing (%s in a row, last: %s); %s", plural(c.fails, "failure"), c.last, rest)
	}
	c.probing = claim
	return claim, ""
}

// settle records the outcome of a firing allow let through: failure says why it got no
// answer ("" when it got one); a cancelled firing says nothing about the process.
func (h *Hook) settle(p *persistent, probe bool, res Result, failure string, log *slog.Logger) {
	if failure == "" && !probe && !p.tripped.Load() {
		return // an answer, or a cancellation, with nothing to reset
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := &p.trip
	if probe {
		c.probing = false
	}
	base, after := h.circuitRest, h.circuitAfter
	if base <= 0 {
		base = circuitRest
	}
	if after <= 0 {
		after = circuitFailAfter
	}
	switch {
	case res.Status == hookspec.StatusCancelled:
	case failure == "":
		if !c.until.IsZero() {
			log.Info("persistent shell hook answers again; calls reach it again", "failures", c.fails)
		}
		*c = circuit{}
		p.tripped.Store(false)
	default:
		p.tripped.Store(true)
		c.fails++
		c.last = failure
		c.rest = base
		switch {
		case probe: // the warning that opened the circuit stands: no warning every rest
			c.until = h.now().Add(c.rest)
			log.Debug("persistent shell hook still failing; calls fail at once", "failures", c.fails, "last", c.last, "for", c.rest)
		case c.until.IsZero() && c.fails >= after:
			c.until = h.now().Add(c.rest)
			log.Warn(h.errorf("failing (%s in a row, last: %s); calls fail at once for %s, then one call tries again",
				plural(c.fails, "failure"), c.last, c.rest))
		}
	}
}

// plural is "1 failure", "2 failures".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// roundUp shows a rest in tenths of a second, never as 0s.
func roundUp(d time.Duration) time.Duration {
	r := d.Round(100 * time.Millisecond)
	if r < d {
		r += 100 * time.Millisecond
	}
	return r
}

// acquire waits for a free slot of the hook, up to the deadline or ctx.
func (h *Hook) acquire(ctx context.Context, p *persistent, deadline time.Time, timeout time.Duration) (*slot, Result, bool) {
	select {
	case p.sem <- struct{}{}:
		return p.take(), Result{}, true
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case p.sem <- struct{}{}:
		return p.take(), Result{}, true
	case <-t.C:
		why := fmt.Sprintf("busy: its processes stayed busy with other firings for %s", timeout)
		if cap(p.sem) == 1 {
			why = fmt.Sprintf("busy: its process stayed busy with another firing for %s", timeout)
		}
		res := Result{Status: hookspec.StatusBusy, ExitCode: -1, Err: h.errorf("%s", why)}
		h.failClosed(&res, why)
		return nil, res, false
	case <-ctx.Done():
		return nil, h.failed(hookspec.StatusCancelled, "not started: "+ctx.Err().Error()), false
	}
}

// instancesField parses the instances key of a hook entry: a whole number from 1 to
// MaxInstances.
func (p *parser) instancesField(where string, n *yaml.Node) int {
	if isNull(n) {
		return DefaultInstances
	}
	var v int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil {
		p.warn(n, "%s: instances must be a whole number from 1 to %d, got %q; using %d", where, MaxInstances, n.Value, DefaultInstances)
		return DefaultInstances
	}
	if v < 1 || v > MaxInstances {
		use := max(1, min(v, MaxInstances))
		p.warn(n, "%s: instances must be from 1 to %d, got %d; using %d", where, MaxInstances, v, use)
		return use
	}
	return v
}
