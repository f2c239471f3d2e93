package gateway

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/luabind"
)

// Options configure a Gateway. The zero value works.
type Options struct {
	// Logger receives warnings and hook logs; nil discards them.
	Logger *slog.Logger
	// QueueSize bounds each hook's queue of pending events; 0 means 1024. When a hook's
	// queue is full, Emit drops the event for that hook, counts it and logs a warning.
	QueueSize int
	// HostFuncs are added to the hermes module of every gateway hook (e.g. run_agent).
	HostFuncs map[string]engine.Func
	// Metrics, when non-nil, counts every hook call and dropped event.
	Metrics *engine.Metrics
}

// Gateway runs the gateway event hooks of a home next to an engine's plugin and shell
// hooks. Emit never waits for a handler; each hook has its own worker and queue, so a slow
// hook delays only itself. All methods are safe for concurrent use.
type Gateway struct {
	eng    *engine.Engine
	home   string
	opts   Options
	logger *slog.Logger

	routes atomic.Pointer[routes]

	base     context.Context // workers' calls; cancelled when Close gives up waiting
	cancel   context.CancelFunc
	mu       sync.RWMutex // read by Emit; written when queues are closed (Reload, Close)
	reloadMu sync.Mutex   // serialises Reload and Close
	closed   bool
	workers  sync.WaitGroup
}

// routes is one generation of loaded hooks and who subscribes to what.
type routes struct {
	hooks    []*hook
	infos    []*HookInfo
	warnings []manifest.Warning
	exact    map[string][]*hook // event -> exact subscribers, in directory order
	wildcard map[string][]*hook // prefix -> "<prefix>:*" subscribers, in directory order
}

// ErrClosed is returned by Reload after Close.
var ErrClosed = errors.New("gateway: closed")

// New loads <home>/hooks (the engine's home) and starts one worker per loaded hook.
// Broken hooks are skipped with a warning; New fails only if ctx is done.
func New(ctx context.Context, eng *engine.Engine, opts Options) (*Gateway, error) {
	if opts.QueueSize <= 0 {
		opts.QueueSize = 1024
	}
	g := &Gateway{eng: eng, home: eng.Home(), opts: opts, logger: opts.Logger}
	if g.logger == nil {
		g.logger = slog.New(slog.DiscardHandler)
	}
	g.base, g.cancel = context.WithCancel(context.Background())
	r := g.load(ctx, nil)
	if err := ctx.Err(); err != nil {
		g.cancel()
		for _, h := range r.hooks {
			close(h.worker.queue)
		}
		return nil, err
	}
	g.routes.Store(r)
	return g, nil
}

// load discovers the hooks, keeps the running version of any hook that fails to load
// and was loaded in prev, and starts a worker for every new hook.
func (g *Gateway) load(ctx context.Context, prev *routes) *routes {
	hooks, infos, warnings := g.discover(ctx)
	if prev != nil {
		running := map[string]*hook{}
		for _, h := range prev.hooks {
			running[h.info.Dir] = h
		}
		for i, info := range infos {
			if old := running[info.Dir]; old != nil && info.Status == "error" {
				hooks = append(hooks, old)
				infos[i] = old.info
				warnings = append(warnings, manifest.Warning{File: info.Dir, Msg: "failed to reload (" + info.Error + "); the previous version keeps running"})
			}
		}
		slices.SortFunc(hooks, func(a, b *hook) int { return strings.Compare(a.info.Dir, b.info.Dir) })
	}
	for _, w := range warnings {
		g.logger.Warn(w.String())
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
		if h.worker == nil {
			h.worker = &worker{queue: make(chan job, g.opts.QueueSize)}
			g.workers.Add(1)
			go g.run(h)
		}
	}
	return r
}

// Reload re-reads <home>/hooks and swaps the new hooks in atomically. Hooks that are
// unchanged in name but failed to load keep their running version; removed or replaced
// hooks finish their queued events first. Events emitted during the swap reach either
// the old or the new hooks.
func (g *Gateway) Reload(ctx context.Context) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	if g.closed {
		return ErrClosed
	}
	old := g.routes.Load()
	r := g.load(ctx, old)
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

// Engine is the engine the gateway was built on.
func (g *Gateway) Engine() *engine.Engine { return g.eng }

// Hooks describes every hook directory found, loaded or not, in directory order.
func (g *Gateway) Hooks() []*HookInfo { return g.routes.Load().infos }

// Warnings lists the problems found while loading.
func (g *Gateway) Warnings() []manifest.Warning { return g.routes.Load().warnings }

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
}

type worker struct {
	queue    chan job
	dropped  atomic.Int64
	lastWarn atomic.Int64 // unix nanos of the last drop warning
}

// dropWarnEvery rate-limits the warning about a full queue, per hook.
const dropWarnEvery = 10 * time.Second

// Emit hands event to every subscribed hook's queue and returns at once. data must not be
// modified after the call. A full queue drops the event for that hook (counted, warned).
// Events reach a given hook in the order they were emitted.
func (g *Gateway) Emit(event string, data map[string]any) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return
	}
	for _, h := range g.routes.Load().matching(event) {
		select {
		case h.worker.queue <- job{event, data}:
		default:
			n := h.worker.dropped.Add(1)
			g.opts.Metrics.Drop(engine.SourceGateway, h.info.Name, event, engine.DropQueueFull)
			now := time.Now().UnixNano()
			if last := h.worker.lastWarn.Load(); now-last >= int64(dropWarnEvery) && h.worker.lastWarn.CompareAndSwap(last, now) {
				g.logger.Warn("gateway hook queue full: event dropped", "hook", h.info.Name, "event", event, "dropped_total", n)
			}
		}
	}
}

// run is one hook's worker; when its queue is closed and drained it closes the handler.
func (g *Gateway) run(h *hook) {
	defer g.workers.Done()
	for j := range h.worker.queue {
		g.call(g.base, h, j.event, j.data)
	}
	h.handler.Close()
}

// EmitSync runs the matching handlers now, in order (exact subscribers, then wildcard),
// and returns one result per handler.
func (g *Gateway) EmitSync(ctx context.Context, event string, data map[string]any) []engine.HookResult {
	hooks := g.routes.Load().matching(event)
	results := make([]engine.HookResult, 0, len(hooks))
	for _, h := range hooks {
		results = append(results, g.call(ctx, h, event, data))
	}
	return results
}

// EmitCollect is EmitSync returning only the non-nil values the handlers returned.
func (g *Gateway) EmitCollect(ctx context.Context, event string, data map[string]any) []any {
	var out []any
	for _, r := range g.EmitSync(ctx, event, data) {
		if r.Result != nil {
			out = append(out, r.Result)
		}
	}
	return out
}

// call runs one handler; failures are logged and reported, never returned.
func (g *Gateway) call(ctx context.Context, h *hook, event string, data map[string]any) engine.HookResult {
	start := time.Now()
	v, err := h.handler.Call(ctx, event, data)
	r := engine.HookResult{Source: engine.SourceGateway, Name: h.info.Name, Status: engine.StatusOK, Result: v, Duration: time.Since(start)}
	if err != nil {
		r.Status, r.Err, r.Result = engine.StatusError, err.Error(), nil
		if le, ok := err.(*luabind.Error); ok && le.Kind == luabind.KindTimeout {
			r.Status = engine.StatusTimeout
		}
		g.logger.Warn("gateway hook failed", "hook", h.info.Name, "event", event, "status", string(r.Status), "error", r.Err)
	}
	g.opts.Metrics.Observe(engine.SourceGateway, h.info.Name, event, r.Status, r.Duration)
	return r
}

// Dropped reports how many events each hook's full queue has dropped.
func (g *Gateway) Dropped() map[string]int64 {
	r := g.routes.Load()
	out := make(map[string]int64, len(r.hooks))
	for _, h := range r.hooks {
		out[h.info.Name] = h.worker.dropped.Load()
	}
	return out
}

// Close stops accepting events and waits for the queued ones to be handled, up to ctx's
// deadline; then it interrupts running handlers and returns ctx's error.
func (g *Gateway) Close(ctx context.Context) error {
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
		g.cancel()
		<-done
	}
	g.cancel()
	return err
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
