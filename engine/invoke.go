package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/bundlefeed"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"github.com/hermes-hooks/hermes/shell"
	"github.com/hermes-hooks/hermes/webhook"
)

// callback is one registered hook function: a Lua plugin callback or a shell hook.
// fire writes its result into r (a slot of the call's results, zero on entry), never
// panics and never returns a Go error: failures are in the result. A non-nil answer is a
// map the call's scratch owns, which a Lua callback's answer may be converted into (the
// report does not outlive the call); nil: the result's answer is its own. With
// timed (a report that outlives the call: Fire, a trace), the result's Duration is how long
// the hook ran; a Lua callback also times itself for its metrics, and says how long it
// waited for a free Lua state (Wait, never part of Duration).
type callback interface {
	fire(ctx context.Context, hook string, kw args, timed bool, answer map[string]any, r *hookspec.Result)
	stats() *hookMetrics // nil without Options.Metrics
}

// hookSet is one immutable generation of loaded hooks. Calls hold a reference while they
// run, so Reload can swap in a new set and close the old one once its calls finish.
type hookSet struct {
	closed    bool                  // the set of a closed engine (closedSet)
	closing   atomic.Bool           // Close retired it: a guard that fails on it refuses
	withheld  map[string]bool       // a closed set: the withholding points that refuse (refuses)
	byHook    map[string][]callback // in invocation order: plugins, then shell hooks
	preTool   []callback            // byHook[PreToolCall], which every tool call looks up
	plugins   []*PluginInfo
	loaded    []*plugin     // running plugins, closed with the set unless the next set keeps them
	hooks     []*shell.Hook // registered shell hooks: their processes stop with the set, likewise
	keep      map[any]bool  // what the next set still runs
	shell     []*ShellHookInfo
	warnings  []hookspec.Warning
	policy    *Policy            // the managed home's policy: (never nil in a loaded set)
	feed      *bundlefeed.Config // the managed home's bundles:, nil when none
	bundleRev int64              // the revision of its bundle this set runs
	bundle    *activeBundle      // that bundle, whose gateway hooks load with the managed home's; nil when none

	webhooks         *webhook.Dispatcher // nil without webhooks; closed with the set
	webhookInfo      []*WebhookInfo
	webhookEndpoints []*webhook.Endpoint // started or not (Options.DisableWebhooks)
	// maxNudges is max_verify_nudges of config.yaml; nil: the default.
	maxNudges *int

	refs      refCount
	retired   atomic.Bool
	closeOnce sync.Once
	drained   chan struct{} // closed by close: the set's last call has returned
}

func (s *hookSet) close() {
	s.closeOnce.Do(func() {
		for _, p := range s.loaded {
			if !s.keep[p] {
				p.close()
			}
		}
		for _, h := range s.hooks {
			if !s.keep[h] {
				h.Close() // stops a persistent hook's process
			}
		}
		if d := s.webhooks; d != nil { // what is queued may still be sent, for a while
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), retireWebhooks)
				defer cancel()
				d.Close(ctx)
			}()
		}
		close(s.drained)
	})
}

// callbacks are hook's callbacks.
func (s *hookSet) callbacks(hook string) []callback {
	if hook == hooknames.PreToolCall {
		return s.preTool
	}
	return s.byHook[hook]
}

// acquire holds a reference to s, the set a call loaded, in the given shard of its
// counter, and returns it; when s was retired meanwhile, it moves to the current set.
// Release it when done.
func (e *Engine) acquire(s *hookSet, shard int) *hookSet {
	for {
		s.refs.add(shard)
		if !s.retired.Load() {
			return s
		}
		e.release(s, shard)
		s = e.set.Load()
	}
}

func (e *Engine) release(s *hookSet, shard int) {
	s.refs.drop(shard)
	if s.retired.Load() && s.refs.zero() {
		s.close()
	}
}

// invoke is the one invoker: it runs every callback of hook in set (the hook set the
// caller loaded) in order and returns the report of what each did and what they decided
// together. Decisions that change something are audited and counted. With nothing
// registered it returns at once. Report.Payload is filled when payload is true (or for the
// audit log).
//
// With sc, the results are built in sc's buffer: the caller must not keep the report
// beyond putScratch.
func (e *Engine) invoke(ctx context.Context, set *hookSet, hook string, kw args, payload bool, sc *scratch) Report {
	if len(set.callbacks(hook)) == 0 {
		rep := Report{Event: hookspec.HookNamed(hook), Decision: hookspec.Decision{By: -1}}
		if payload {
			rep.Payload = kw.Map()
		}
		return rep
	}
	trace := traceOf(ctx)
	pooled := sc != nil && trace == nil // a traced report outlives the call: its results are its own
	if sc == nil {
		sc = getScratch() // for its reference counter only
		defer putScratch(sc)
	}
	s := e.acquire(set, sc.shard)
	defer e.release(s, sc.shard)
	var f *firing // the spans of this firing; nil without a tracer
	if e.tracer != nil {
		ctx, f = e.startFiring(ctx, hook, kw)
	}
	cbs := s.callbacks(hook)
	var results []hookspec.Result
	if pooled {
		results = sc.results[:0]
	} else {
		results = make([]hookspec.Result, 0, len(cbs))
	}
	var answers *scratch // the maps Lua answers are converted into: a pooled report's only
	if pooled {
		answers = sc
	}
	results = runChain(ctx, f, hook, cbs, kw, results, answers, !pooled)
	if s.closing.Load() && withholds(hook) && anyFailed(results) {
		// Close ended this call's hooks (interrupted, or waiting for a state): what they
		// would have answered is unknown, so the call is refused, as a closed engine does.
		results = append(results, refusal(hook, ErrClosed))
		cbs = append(cbs[:len(cbs):len(cbs)], closedGuard{})
	}
	if pooled {
		sc.results = results
	}
	dec := hookspec.Merge(hook, results)
	rep := Report{Event: hookspec.HookNamed(hook), Hooks: results, Decision: dec}
	if !pooled || trace != nil { // the typed calls read the decision, not its wire shape
		rep.Outcome = dec.Outcome()
	}
	if payload || trace != nil {
		rep.Payload = kw.Map()
	}
	if dec.Kind != hookspec.None {
		if m := cbs[dec.By].stats(); m != nil && dec.Kind == hookspec.Block {
			m.blocks.Inc()
		}
		if e.logger.Enabled(ctx, slog.LevelInfo) { // the audit log needs the payload
			if rep.Payload == nil {
				rep.Payload = kw.Map()
			}
			e.audit(ctx, rep)
		}
	}
	if d := e.declog.Load(); d != nil && d.log != nil {
		e.logDecision(ctx, d.log, rep, kw)
	}
	if f != nil {
		f.end(rep)
	}
	if trace != nil {
		trace(rep)
	}
	return rep
}

// anyFailed reports whether a hook of results failed.
func anyFailed(results []hookspec.Result) bool {
	for _, r := range results {
		if r.Status != hookspec.StatusOK {
			return true
		}
	}
	return false
}

// runChain runs cbs in order on kw, appending their results to results. For
// pre_tool_call, modifications chain (each callback sees the arguments the ones before it
// left) and the callbacks before the last modification are asked again (recheck); for
// pre_api_request, each callback sees the request the ones before it rewrote. timed:
// each result carries its duration. With f, each call is a span. With sc, the answer of
// the result in slot j of results is converted into sc's map j (sc.answer).
func runChain(ctx context.Context, f *firing, hook string, cbs []callback, kw args, results []hookspec.Result, sc *scratch, timed bool) []hookspec.Result {
	in, lastMod := kw, 0
	for i, cb := range cbs {
		results = append(results, hookspec.Result{})
		r := &results[len(results)-1]
		fireHook(ctx, f, hook, cb, in, timed, false, sc.answer(len(results)-1), r) // untimed, the typed calls keep nothing but the decision: no clock read
		if a := &r.Answer; a.Args != nil && hook == hooknames.PreToolCall && a.Kind != hookspec.Block {
			in, lastMod = in.withToolArgs(a.Args), i // the callbacks after it see the modified arguments
		}
		if m, ok := in.(mapArgs); ok && hook == hooknames.PreAPIRequest && r.Answer.Kind == hookspec.Modify {
			in = m.withRequest(r.Answer.Request) // the callbacks after it see the rewritten request
		}
	}
	if lastMod > 0 {
		recheck(ctx, f, hook, cbs[:lastMod], results, in, sc, timed)
	}
	return results
}

// recheck calls again, with the final arguments in, the callbacks that ran before the last
// modification, whatever they answered (a block stands and is not asked again), so that no
// guard is passed and no approval stands on arguments other than the ones the tool runs
// with: each one's answer on the final arguments replaces its first. The chain is done, so
// a second answer changes no arguments: the last modification stands. An approval counts
// only when it gives the final arguments back unchanged (or none); a question is asked
// either way. The second answer takes the first one's map of sc (the first was read).
func recheck(ctx context.Context, f *firing, hook string, cbs []callback, results []hookspec.Result, in args, sc *scratch, timed bool) {
	final := hookspec.ArgsOrEmpty(toolArgsOf(in))
	for i, cb := range cbs {
		if results[i].Answer.Kind == hookspec.Block {
			continue
		}
		var r hookspec.Result
		fireHook(ctx, f, hook, cb, in, timed, true, sc.answer(i), &r)
		if a := &r.Answer; a.Args != nil && a.Kind != hookspec.Block {
			if a.Kind == hookspec.Ask || a.Kind == hookspec.Approve && reflect.DeepEqual(hookspec.ArgsOrEmpty(a.Args), final) {
				a.Args = nil
			} else {
				*a = hookspec.Answer{} // a modification, or an approval of other arguments
			}
		}
		r.Duration += results[i].Duration
		r.Wait += results[i].Wait
		r.Rechecked = true
		results[i] = r
	}
}

// toolArgsOf are the tool's arguments in a pre_tool_call's kwargs.
func toolArgsOf(kw args) map[string]any {
	if a, ok := kw.(*toolArgs); ok {
		return a.call.Args
	}
	m, _ := kw.Map()["args"].(map[string]any)
	return m
}

// pluginCallback is one function a plugin registered.
type pluginCallback struct {
	p       *plugin
	index   int
	logger  *slog.Logger
	metrics *hookMetrics
	warns   warnLimiter
}

// warnLimiter lets a hook's failure warnings through at most once a second and counts the
// others, so that a dependency down under load (every call failing at once) does not flood
// the log; the metrics count every failure.
type warnLimiter struct {
	next  atomic.Int64 // unix nanoseconds before which warnings are held back
	quiet atomic.Int64 // held back since the last one logged
}

// allow reports whether a warning may be logged now, and how many were held back before it.
func (l *warnLimiter) allow() (bool, int64) {
	now := time.Now().UnixNano()
	next := l.next.Load()
	if now < next || !l.next.CompareAndSwap(next, now+int64(time.Second)) {
		l.quiet.Add(1)
		return false, 0
	}
	return true, l.quiet.Swap(0)
}

// warn logs a hook's failure through l, saying how many were held back before it.
func (l *warnLimiter) warn(logger *slog.Logger, msg string, args ...any) {
	ok, held := l.allow()
	if !ok {
		return
	}
	if held > 0 {
		args = append(args, "failures_not_logged", held)
	}
	logger.Warn(msg, args...)
}

func (c *pluginCallback) stats() *hookMetrics { return c.metrics }

func (c *pluginCallback) fire(ctx context.Context, hook string, kw args, timed bool, answer map[string]any, r *hookspec.Result) {
	v, t, err := c.p.lp.CallInto(ctx, c.index, kw.lua(), timed || c.metrics != nil, answer)
	c.result(hook, v, t.Run, err, r)
	r.Wait = t.Wait
	c.metrics.observe(r.Status, r.Duration)
	c.metrics.observeWait(r.Status, r.Wait)
	if r.Status == hookspec.StatusOK {
		return
	}
	if !DryRunRefused(*r) { // a dry run's refusal is not the hook's fault
		c.warns.warn(c.logger, "plugin hook failed", "plugin", c.p.info.Name, "hook", hook, "status", r.Status.String(), "error", r.Err)
	}
	if c.p.info.FailClosed && hook == hooknames.PreToolCall {
		r.FailClosed(failedClosed(c.p.info.Name, r.Status))
	}
}

// failedClosed is the block of a fail_closed plugin whose call failed with status: what
// failed and how, for the model, which sees it as the tool's error. Where it failed (a file
// and line, a host) is the operator's, in the result's Err and the warning logged with it.
func failedClosed(plugin string, status hookspec.Status) string {
	return fmt.Sprintf("blocked: plugin %q failed closed (%s)", plugin, status)
}

// result writes into r the result of a call that returned v or failed with err. An answer
// that does nothing where it surely meant something fails the call, keeping what it
// answered.
func (c *pluginCallback) result(hook string, v any, took time.Duration, err error, r *hookspec.Result) {
	if err != nil {
		*r = hookspec.Failed(hookspec.SourcePlugin, c.p.info.Name, statusOf(err), err.Error(), took)
		return
	}
	r.Source, r.Name, r.Status, r.Result, r.Duration = hookspec.SourcePlugin, c.p.info.Name, hookspec.StatusOK, v, took
	if v == nil { // the call let it be: nothing to read
		return
	}
	r.Answer = hookspec.Normalise(hook, v)
	where := func() string { return fmt.Sprintf("%s:%d: ", c.p.file, c.p.lp.Registrations()[c.index].Line) }
	if r.Answer.Kind == hookspec.None {
		if err := unanswered(hook, v, where()); err != nil {
			r.Status, r.Err = hookspec.StatusError, err.Error()
		}
	}
	if r.Answer.Kind == hookspec.Ask { // the ask stands; a mistake in it is reported
		if p := hookspec.AskProblem(hook, v); p != "" {
			r.Status, r.Err = hookspec.StatusError, where()+p
		}
	}
}

// unanswered is the error of a hook whose answer does nothing where it surely meant
// something (a misspelled key or action, a value of the wrong kind), or nil; where locates
// the hook ("file:line: ").
func unanswered(hook string, v any, where string) error {
	if p := hookspec.Problem(hook, v, suggest.Closest); p != "" {
		return errors.New(where + p)
	}
	return nil
}

func didYouMean(name string, candidates []string) string {
	if s := suggest.Closest(name, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
