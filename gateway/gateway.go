package gateway

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
	"github.com/hermes-hooks/hermes/internal/reload"
)

// Options configure a Gateway and the engine it runs. The zero value works.
type Options struct {
	// Engine configures the engine the gateway builds and runs beside its event hooks
	// (home, logger, metrics, consent, approver, tracing...).
	Engine engine.Options
	// Logger receives warnings and hook logs; nil means Engine.Logger.
	Logger *slog.Logger
	// QueueSize bounds each hook's queue of pending events; 0 means 1024. When a hook's
	// queue is full, Emit drops the event for that hook, counts it and logs a warning.
	QueueSize int
	// HostFuncs are added to the hermes module of every gateway hook (e.g. run_agent).
	HostFuncs map[string]hookspec.Func
	// Metrics, when non-nil, counts every hook call and dropped event; nil means
	// Engine.Metrics, so one Metrics serves both.
	Metrics *engine.Metrics
	// MaxSteps bounds the requests to the model of one turn (Turn.RunLLM; with
	// Message.Recorded, those hooks answered in a row without the model): past it the turn ends with ErrStepLimit and a warning, so that no hook (a
	// pre_api_request that answers every request with a tool call) keeps a turn going
	// for ever. 0 or less means DefaultMaxSteps.
	MaxSteps int
}

// DefaultMaxSteps is the most requests to the model one turn makes when Options.MaxSteps
// is not set.
const DefaultMaxSteps = 90

// ErrStepLimit is the error of a request to the model past a turn's step limit
// (Options.MaxSteps): the request is not made, and the host ends the turn.
var ErrStepLimit = errors.New("gateway: the turn reached its step limit")

// Gateway is what a gateway process embeds: an engine (the plugin and shell hooks of a
// home, Engine) and the gateway event hooks of the same home. Emit never waits for a handler; each hook has its own worker and queue, so a slow
// hook delays only itself. All methods are safe for concurrent use.
type Gateway struct {
	eng    *engine.Engine
	home   string
	opts   Options
	logger *slog.Logger

	tracer  trace.Tracer // the engine's (engine.Options.TracerProvider); nil: no spans
	routes  atomic.Pointer[routes]
	loadLog *reload.Log // what loads report, once per change
	drops   sync.Map    // hook name -> *atomic.Int64: events dropped, across reloads

	base      context.Context // workers' calls; cancelled when Close gives up waiting
	cancel    context.CancelCauseFunc
	abandoned atomic.Bool  // Close gave up waiting: queued events are dropped, not run
	mu        sync.RWMutex // read by Emit; written when queues are closed (Reload, Close)
	reloadMu  sync.Mutex   // serialises Reload and Close
	closed    bool
	workers   sync.WaitGroup
	turns     turnCount // turns in flight (StartTurn to Finish or Fail)
}

// routes is one generation of loaded hooks and who subscribes to what.
type routes struct {
	hooks    []*hook
	infos    []*hookspec.GatewayHookInfo
	warnings []hookspec.Warning
	exact    map[string][]*hook // event -> exact subscribers, in directory order
	wildcard map[string][]*hook // prefix -> "<prefix>:*" subscribers, in directory order
}

// ErrClosed is returned by Reload after Close, and is why events after Close are dropped.
var ErrClosed = errors.New("gateway closed")

// New loads the engine, then <home>/hooks (the engine's home), and starts one worker per
// loaded gateway hook. Broken hooks are skipped with a warning; New fails when the engine
// cannot load or ctx is done, and nothing is left running then.
func New(ctx context.Context, opts Options) (*Gateway, error) {
	if opts.Logger == nil {
		opts.Logger = opts.Engine.Logger
	}
	if opts.Metrics == nil {
		opts.Metrics = opts.Engine.Metrics
	}
	eng, err := engine.New(ctx, opts.Engine)
	if err != nil {
		return nil, err
	}
	g, err := startGateway(ctx, eng, opts)
	if err != nil {
		eng.Close(ctx)
		return nil, err
	}
	return g, nil
}

// startGateway starts the gateway hooks of eng's home.
func startGateway(ctx context.Context, eng *engine.Engine, opts Options) (*Gateway, error) {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 1024
	}
	g := &Gateway{eng: eng, home: eng.Home(), opts: opts, logger: opts.Logger, tracer: eng.Tracer()}
	if g.logger == nil {
		g.logger = slog.New(slog.DiscardHandler)
	}
	g.loadLog = reload.NewLog(g.logger)
	g.base, g.cancel = context.WithCancelCause(context.Background())
	r, err := g.load(ctx, nil)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		g.cancel(err)
		if r != nil {
			for _, h := range r.hooks {
				h.Close()
			}
		}
		return nil, err
	}
	g.start(r, nil)
	g.routes.Store(r)
	return g, nil
}

// load discovers the hooks. A hook running in prev whose files did not change is kept as
// it runs (same Lua state, queue and worker); a hook that fails to load but runs in prev
// keeps its running version. With prev, a home that is missing, unreadable or replaced
// while it is read fails the load.
func (g *Gateway) load(ctx context.Context, prev *routes) (*routes, error) {
	g.loadLog.Next()
	home, err := reload.Open(g.home, prev == nil)
	if err != nil {
		return nil, err
	}
	var running []gatewayhook.Hook
	kept := map[gatewayhook.Hook]*hook{}
	if prev != nil {
		for _, h := range prev.hooks {
			running = append(running, h.Hook)
			kept[h.Hook] = h
		}
	}
	loaded, infos, warnings, err := g.eng.LoadGatewayHooks(ctx, gatewayhook.Options{Logger: g.logger, HostFuncs: g.opts.HostFuncs}, running)
	if err == nil {
		err = home.Unchanged()
	}
	if err != nil {
		for _, h := range loaded {
			if kept[h] == nil {
				h.Close()
			}
		}
		return nil, err
	}
	hooks := make([]*hook, len(loaded))
	for i, h := range loaded {
		if hooks[i] = kept[h]; hooks[i] == nil {
			hooks[i] = &hook{Hook: h, info: h.Info()}
		}
	}
	for _, w := range warnings {
		g.loadLog.Warn(w.String())
	}
	r := &routes{hooks: hooks, infos: infos, warnings: warnings, exact: map[string][]*hook{}, wildcard: map[string][]*hook{}}
	for _, h := range hooks {
		for _, ev := range h.info.Events {
			if prefix, ok := strings.CutSuffix(ev, ":*"); ok {
				r.wildcard[prefix] = appendOnce(r.wildcard[prefix], h)
			} else {
				r.exact[ev] = appendOnce(r.exact[ev], h)
			}
		}
	}
	return r, nil
}

// start starts a worker for every hook of r that has none. A new version of a hook in
// prev (the same directory, or the same name in the same layer: a bundle's new revision
// is a new directory) starts once the old version's worker has handled its queue, so
// that the hook sees its events in the order they were emitted across the reload.
func (g *Gateway) start(r, prev *routes) {
	type named struct{ layer, name string }
	byDir, byName := map[string]*worker{}, map[named]*worker{}
	if prev != nil {
		for _, h := range prev.hooks {
			byDir[h.info.Dir] = h.worker
			byName[named{h.info.Layer, h.info.Name}] = h.worker
		}
	}
	for _, h := range r.hooks {
		if h.worker != nil {
			continue
		}
		n, _ := g.drops.LoadOrStore(h.info.Name, new(atomic.Int64))
		h.worker = &worker{queue: make(chan job, g.opts.QueueSize), dropped: n.(*atomic.Int64), done: make(chan struct{})}
		var after chan struct{}
		if w := cmp.Or(byDir[h.info.Dir], byName[named{h.info.Layer, h.info.Name}]); w != nil {
			after = w.done
		}
		g.workers.Add(1)
		go g.run(h, after)
	}
}

// Reload reloads the engine (see engine.Engine.Reload), then the gateway hooks; each keeps
// its running hooks when its own reload fails, and the error joins both failures.
//
// The gateway hooks: Reload re-reads <home>/hooks and swaps the new hooks in atomically. Unchanged hooks keep
// running as they are (same Lua state, queue and order); a changed hook's new version
// starts after the old one has handled its queue; removed hooks finish their queue first;
// a hook that fails to load keeps its running version. A home that is missing, unreadable
// or replaced while it is read fails the reload and keeps every hook. Events emitted during
// the swap reach either the old or the new hooks.
func (g *Gateway) Reload(ctx context.Context) error {
	g.mu.RLock()
	closed := g.closed
	g.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	return errors.Join(g.eng.Reload(ctx), g.reloadHooks(ctx))
}

// reloadHooks reloads the gateway hooks.
func (g *Gateway) reloadHooks(ctx context.Context) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	if g.closed {
		return ErrClosed
	}
	old := g.routes.Load()
	r, err := g.load(ctx, old)
	if err != nil {
		return err
	}
	g.start(r, old)
	kept := map[*hook]bool{}
	for _, h := range r.hooks {
		kept[h] = true
	}
	g.mu.Lock()
	g.routes.Store(r)
	for _, h := range old.hooks {
		if !kept[h] {
			close(h.worker.queue) // its worker drains the queue, then closes the handler
		}
	}
	g.mu.Unlock()
	return nil
}

func appendOnce(hs []*hook, h *hook) []*hook {
	for _, x := range hs {
		if x == h {
			return hs
		}
	}
	return append(hs, h)
}

// Engine is the gateway's engine: the typed calls of the plugin and shell hooks.
func (g *Gateway) Engine() *engine.Engine { return g.eng }

// Hooks describes every hook directory found, loaded or not, in directory order.
func (g *Gateway) Hooks() []*hookspec.GatewayHookInfo { return g.routes.Load().infos }

// Warnings lists the problems found while loading.
func (g *Gateway) Warnings() []hookspec.Warning { return g.routes.Load().warnings }

// matching returns the hooks for event: exact subscribers first, then wildcard ones, each
// hook once.
func (r *routes) matching(event string) []*hook {
	exact := r.exact[event]
	prefix, _, _ := strings.Cut(event, ":")
	wild := r.wildcard[prefix]
	if len(wild) == 0 {
		return exact
	}
	out := make([]*hook, 0, len(exact)+len(wild))
	out = append(out, exact...)
	for _, h := range wild {
		out = appendOnce(out, h)
	}
	return out
}

type job struct {
	event string
	data  map[string]any
	emit  *trace.SpanContext // the span of the Emit that queued it; nil when none (a pointer: every queue holds 1024 jobs)
}

type worker struct {
	queue    chan job
	dropped  *atomic.Int64 // the hook's count, shared by its versions across reloads
	lastWarn atomic.Int64  // unix nanos of the last drop warning
	done     chan struct{} // closed when the worker has handled its queue and closed the handler
}

// dropWarnEvery rate-limits the warning about a full queue, per hook.
const dropWarnEvery = 10 * time.Second

// Emit hands ev to every subscribed hook's queue and returns at once. Its data must not be
// modified after the call. A full queue drops the event for that hook (counted, warned);
// after Close every event is dropped and counted (reason "closed"). Events reach a given
// hook in the order they were emitted. When the engine traces, each hook's span for the
// event links to ctx's span (a link, not a parent: the hook runs later); ctx is not waited
// on.
func (g *Gateway) Emit(ctx context.Context, ev hookspec.Event) {
	event, data := ev.EventName(), ev.Context()
	var emit *trace.SpanContext
	if g.tracer != nil {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			emit = &sc
		}
	}
	g.eng.NotifyWebhooks(event, data)
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, h := range g.routes.Load().matching(event) {
		if g.closed {
			g.drop(h, event, hookspec.DropClosed)
			dropped(ctx, emit, h.info.Name, event, hookspec.DropClosed)
			continue
		}
		select {
		case h.worker.queue <- job{event, data, emit}:
		default:
			g.drop(h, event, hookspec.DropQueueFull)
			dropped(ctx, emit, h.info.Name, event, hookspec.DropQueueFull)
		}
	}
}

// drop counts an event not delivered to h; a full queue is also warned about, at most
// every dropWarnEvery per hook.
func (g *Gateway) drop(h *hook, event string, reason hookspec.DropReason) {
	n := h.worker.dropped.Add(1)
	g.opts.Metrics.Drop(hookspec.SourceGateway, h.info.Name, event, reason)
	if reason != hookspec.DropQueueFull {
		return
	}
	now := time.Now().UnixNano()
	if last := h.worker.lastWarn.Load(); now-last >= int64(dropWarnEvery) && h.worker.lastWarn.CompareAndSwap(last, now) {
		g.logger.Warn("gateway hook queue full: event dropped", "hook", h.info.Name, "event", event, "dropped_total", n)
	}
}

// run is one hook's worker: once after is closed (the previous version of the hook is
// done), it handles the queue until it is closed, then closes the handler. Once Close has
// given up waiting, what is left in the queue is dropped, not run.
func (g *Gateway) run(h *hook, after <-chan struct{}) {
	defer g.workers.Done()
	defer close(h.worker.done)
	if after != nil {
		<-after
	}
	for j := range h.worker.queue {
		if g.abandoned.Load() {
			g.drop(h, j.event, hookspec.DropClosed)
			continue
		}
		g.call(g.base, h, j.event, j.data, j.emit)
	}
	h.Close()
}

// EmitSync runs the handlers subscribed to ev now, in order (exact subscribers, then
// wildcard), and returns one result per handler (a handler's return value is its Result).
// After Close nothing runs: the event is counted as dropped for each matching hook and
// there are no results.
func (g *Gateway) EmitSync(ctx context.Context, ev hookspec.Event) []hookspec.Result {
	event, data := ev.EventName(), ev.Context()
	g.eng.NotifyWebhooks(event, data)
	g.mu.RLock()
	hooks := g.routes.Load().matching(event)
	if g.closed {
		for _, h := range hooks {
			g.drop(h, event, hookspec.DropClosed)
		}
		hooks = nil
	}
	g.mu.RUnlock()
	results := make([]hookspec.Result, 0, len(hooks))
	for _, h := range hooks {
		results = append(results, g.call(ctx, h, event, data, nil))
	}
	return results
}

// call runs one handler; failures are logged and reported, never returned. A queued event
// (emit not nil) runs in a span of its own trace linked to emit; a synchronous one, in a
// child of ctx's span.
func (g *Gateway) call(ctx context.Context, h *hook, event string, data map[string]any, emit *trace.SpanContext) (r hookspec.Result) {
	if g.tracer != nil {
		var span trace.Span
		ctx, span = g.startSpan(ctx, h.info.Name, event, data, emit)
		defer func() { endSpan(span, r) }()
	}
	start := time.Now()
	v, status, err := h.Call(ctx, event, data)
	r = hookspec.Result{Source: hookspec.SourceGateway, Name: h.info.Name, Status: hookspec.StatusOK, Result: v, Duration: time.Since(start)}
	if err != nil {
		r = hookspec.Failed(hookspec.SourceGateway, h.info.Name, status, err.Error(), r.Duration)
	}
	if err != nil && !engine.DryRunRefused(r) { // a dry run's refusal is not the hook's fault
		g.logger.Warn("gateway hook failed", "hook", h.info.Name, "event", event, "status", r.Status.String(), "error", r.Err)
	}
	g.opts.Metrics.Observe(hookspec.SourceGateway, h.info.Name, event, r.Status, r.Duration)
	return r
}

// Dropped reports how many events each hook did not get, by hook name, since New: dropped
// by a full queue, emitted after Close, or left queued when Close gave up waiting. Counts
// survive reloads; a hook that was removed keeps its entry.
func (g *Gateway) Dropped() map[string]int64 {
	out := map[string]int64{}
	g.drops.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// Close refuses new turns (StartTurn fails with ErrClosed) and waits for the turns in
// flight to end (Finish or Fail) until ctx is done. Then it closes the gateway hooks, so
// that queued events are handled while the engine
// (whose hooks and host functions they may use) still runs, then the engine. It stops
// accepting events (later ones are dropped and counted) and waits for the queued ones to
// be handled until ctx is done; then it interrupts running handlers, drops (and counts)
// what is still queued, and returns ctx's error. The engine shares the deadline (see
// engine.Engine.Close): after Close it blocks every tool call.
func (g *Gateway) Close(ctx context.Context) error {
	var turns error
	select {
	case <-g.turns.close():
	case <-ctx.Done(): // the turns still in flight meet a closed engine: their tool calls are blocked
		turns = g.turns.unended(ctx)
	}
	return joinDistinct(turns, g.closeHooks(ctx), g.eng.Close(ctx))
}

// joinDistinct joins errs as errors.Join does, each error once: the hooks and the engine
// both give up at the same deadline, whose error is said once.
func joinDistinct(errs ...error) error {
	var out []error
	for _, err := range errs {
		if err != nil && !slices.ContainsFunc(out, func(o error) bool { return errors.Is(o, err) }) {
			out = append(out, err)
		}
	}
	return errors.Join(out...)
}

// closeHooks stops the gateway hooks, handling what is queued until ctx is done.
func (g *Gateway) closeHooks(ctx context.Context) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	for _, h := range g.routes.Load().hooks {
		close(h.worker.queue)
	}
	g.mu.Unlock()
	done := make(chan struct{})
	go func() { g.workers.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		g.abandoned.Store(true)
		g.cancel(ErrClosed)
		<-done
	}
	g.cancel(ErrClosed)
	return err
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
