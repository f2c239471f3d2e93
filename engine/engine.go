package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/reload"
	"github.com/hermes-hooks/hermes/store"
)

// Options configure an Engine. The zero value works: home from $HERMES_HOME or
// ~/.hermes, logs discarded, shell hooks registered only when already approved.
type Options struct {
	// Home is the hermes home directory; "" means $HERMES_HOME, else ~/.hermes.
	Home string
	// ManagedHome is the system-wide managed home (managed.go), loaded before Home: its
	// hooks run first and need no consent, and its policy: limits what Home may declare.
	// "" means $HERMES_MANAGED_HOME, else DefaultManagedHome; a home without config.yaml
	// is no managed layer.
	ManagedHome string
	// Logger receives warnings and hook logs; nil discards them.
	Logger *slog.Logger
	// AcceptHooks approves every shell hook without asking (the --accept-hooks flag);
	// approvals are recorded in the allowlist.
	AcceptHooks bool
	// Prompt, when non-nil, is used to ask the user about unapproved shell hooks; nil
	// means nobody is at a terminal and unapproved hooks are not registered.
	Prompt *Prompt
	// Getenv reads HERMES_ACCEPT_HOOKS; nil means os.Getenv.
	Getenv func(string) string
	// DisableWebhooks sends no outbound webhook (config.yaml's webhooks: are still read and
	// listed, and TestWebhook still sends its one sample): hermesctl's commands set it, so
	// inspecting or replaying a home notifies nobody. false sends them.
	DisableWebhooks bool
	// IgnoreConsent registers every shell hook, approved or not, without asking or
	// recording anything (hermesctl hooks test does this, like the original).
	IgnoreConsent bool
	// HostFuncs are added to the hermes module of every Lua hook (e.g. run_agent).
	HostFuncs map[string]hookspec.Func
	// Metrics, when non-nil, counts every hook call (see Metrics); nil counts nothing.
	Metrics *Metrics
	// Approve asks a person about a tool call a pre_tool_call hook asked about (its answer
	// was ask) and no pre_approval_request hook answered (see ApprovalRequest). It either
	// answers now (whether the call may run), or sends the question to the user's chat and
	// returns ErrAnswerLater: the call then waits for Engine.Answer with req.ID (the user's
	// reply arrives as a later message; gateway.Gateway.Answer reads it). nil means nobody
	// can be asked, so the call is blocked.
	Approve func(ctx context.Context, req ApprovalRequest) (bool, error)
	// ApproveTimeout bounds the wait for an answer; 0 means 2 minutes. Past it the call is
	// blocked, even when Approve ignores its context (it is left to return in the
	// background).
	ApproveTimeout time.Duration
	// TracerProvider, when non-nil, makes every hook invocation an OpenTelemetry span, a
	// child of the span in the call's context, with its store calls as child spans (see
	// docs/observability.md). nil traces nothing and costs nothing. The engine never uses
	// or sets the global provider.
	TracerProvider trace.TracerProvider
	// DryRun runs the Lua hooks (plugins' callbacks, gateway hooks) so that they change
	// nothing: their store calls go to a scratch store in a temporary directory that Close
	// deletes, and their http and exec calls, and io.open for writing, fail with an error
	// DryRunRefused recognises. Shell hooks and outbound webhooks are loaded and listed
	// but never run. Host functions (HostFuncs) are the host's: give stand-ins. hermesctl
	// hooks doctor sets it to run each Lua hook on its sample payload.
	DryRun bool
	// Store, when non-nil, is the store the hooks keep their state in, in place of
	// config.yaml's store: (a section there is then ignored, with a warning naming its
	// line). The engine uses it as given and never closes it: open it with store.OpenWith
	// to have its circuit breaker. nil: StoreURL, else config.yaml's store:.
	Store store.Backend
	// StoreURL, when not "", names the store as config.yaml's store: {url: ...} does
	// ("redis://host:6379/0"), in place of config.yaml's store: (a section there is then
	// ignored, with a warning naming its line): opened on first use, kept across reloads,
	// closed by Close. New fails on a URL that cannot be used, and when Store is set too.
	// "": config.yaml's store:, by default the database in the home.
	StoreURL string
	// Limits bound the Lua states each plugin's manifest may ask for; the zero value
	// bounds nothing beyond the manifests' own limits.
	Limits Limits
	// DecisionLog, when non-nil, ships every decision as the managed config's
	// decision_log: section does (see docs/observability.md), in place of that section (which
	// is then ignored, with a warning naming its line). Its Logger and counters are the
	// engine's (Options.Logger, Options.Metrics). New fails when it cannot be used (see
	// decisionlog.Options.Check). nil: the managed config's decision_log:, by default none.
	DecisionLog *decisionlog.Options
	// Bundles, when non-nil, is the managed layer's bundle feed, as a bundles: entry of the
	// managed config (see docs/bundles.md), for a host whose managed home has none (hermesctl
	// serve --bundle). New fails when the managed config has bundles: too (one feed).
	Bundles *BundleFeed

	// Fires, when not nil, lists the only hooks the host fires on this engine (hermesctl
	// hook sets the one point an agent's call fires), so that a process per call loads only
	// what it needs: a plugin of the user's home that registered none of them when it last
	// loaded from the same files, under the same build and host functions, is not loaded
	// (its PluginInfo has Status "skipped" and the hooks it registered). Which hooks each
	// plugin registered is kept in <home>/state/plugin-hooks.json by such engines. A plugin
	// whose loading read anything besides its files (the store, the clock, the environment,
	// a file, a host function, http, exec; see luabind's Plugin.Pure), a Python plugin and
	// the managed layer's plugins always load. Firing another hook on the engine runs
	// without the skipped plugins. nil: every plugin loads, and nothing is kept.
	Fires []hookspec.Hook

	bundleDir string // a bundle tried before it is activated (PullBundle), in place of the active one
}

// Limits bound what each plugin's manifest (plugin.yaml) may ask for: a manifest asking
// more gets the bound, with a load warning naming its line. 0 (or less) means no bound
// beyond the manifest's own limits.
type Limits struct {
	// States bounds states: (the Lua states a plugin keeps for calls running Lua at once).
	States int
	// MaxStates bounds max_states: (the states a plugin may have while calls wait on I/O)
	// and its defaults (4 x states, 64 for a plugin that wraps), and states: too.
	MaxStates int
}

// Prompt is where to ask the user about an unapproved shell hook.
type Prompt struct {
	In  io.Reader
	Out io.Writer
}

// Engine runs the plugin hooks and shell hooks of one home. All methods are safe for
// concurrent use; none panics or returns a hook's failure as a Go error.
type Engine struct {
	opts    Options
	home    string
	logger  *slog.Logger
	loadLog *reload.Log // for what a load reports: repeats of the previous load are dropped
	set     atomic.Pointer[hookSet]
	mu      sync.Mutex // serialises Reload and Close
	closed  bool
	stop    context.Context // cancelled when Close returns: shell hooks still in flight end
	stopNow context.CancelCauseFunc
	starts  startContexts // on_session_start's context, until the session's first turn
	tracer  trace.Tracer  // from Options.TracerProvider; nil: no spans
	bg      background    // async shell hooks running off the call's path (async.go)
	asks    pendingAsks   // approvals waiting for Answer (approvals.go)

	store   atomic.Pointer[stateStore] // the store config.yaml names now
	scratch string                     // DryRun: the scratch store's directory, deleted by Close
	storeMu sync.Mutex
	stores  []*stateStore // every store the engine used, closed with it

	declog atomic.Pointer[declog] // the decision log in force; nil: none (decisionlog.go)

	// wd is the host's working directory as the last load that succeeded found it: where
	// shell hooks run and the cwd of their payloads and of webhook deliveries (workDir).
	wd atomic.Pointer[string]
}

// New loads the home and returns a ready engine. It fails only when the home's
// config.yaml cannot be read or parsed, or the store the host gives cannot be used; broken
// hooks are skipped with a warning. A home that does not exist yet is an engine without
// hooks.
func New(ctx context.Context, opts Options) (*Engine, error) {
	if err := opts.checkStore(); err != nil {
		return nil, err
	}
	if opts.DecisionLog != nil {
		if err := opts.DecisionLog.Check(); err != nil {
			return nil, fmt.Errorf("engine: Options.DecisionLog: %w", err)
		}
	}
	e := &Engine{opts: opts, home: homedir.Resolve(opts.Home), logger: opts.Logger, tracer: newTracer(opts.TracerProvider)}
	if e.logger == nil {
		e.logger = slog.New(slog.DiscardHandler)
	}
	e.loadLog = reload.NewLog(e.logger)
	e.stop, e.stopNow = context.WithCancelCause(context.Background())
	e.bg.init()
	if opts.DryRun {
		dir, err := os.MkdirTemp("", "hermes-dry-run-")
		if err != nil {
			return nil, fmt.Errorf("dry run: cannot make its scratch store: %w", err)
		}
		e.scratch = dir
	}
	set, err := e.load(ctx, nil)
	if err != nil {
		e.closeStores()
		return nil, err
	}
	e.set.Store(set)
	return e, nil
}

// Home is the directory the engine loads from.
func (e *Engine) Home() string { return e.home }

// workDir is the host's working directory as New or the last Reload that succeeded found
// it: a host that changes its directory afterwards runs its shell hooks in the one it had
// then, until it reloads. Asking the kernel on every firing cost two stat calls per shell
// hook. "" when the directory was gone at that load (a firing then asks for itself).
func (e *Engine) workDir() string {
	if wd := e.wd.Load(); wd != nil {
		return *wd
	}
	return ""
}

// load builds a new hook set from the home. Plugins and shell hooks whose files and
// settings did not change since prev are kept as they run (same Lua states, same
// processes). A plugin that fails to load but was running in prev keeps running in its
// previous version, so a broken edit does not remove it. With prev, a home that is missing,
// unreadable or replaced while it is read fails the load.
func (e *Engine) load(ctx context.Context, prev *hookSet) (*hookSet, error) {
	e.loadLog.Next()
	home, err := reload.Open(e.home, prev == nil)
	if err != nil {
		return nil, err
	}
	mgd, cfg, warns, err := e.readConfigs()
	if err != nil {
		return nil, err
	}
	if prev == nil { // the first load: register(ctx) may already use the store
		e.useStore(cfg)
	}
	set := newHookSet()
	set.warnings, set.policy, set.maxNudges, set.feed = warns, mgd.policy, lowerNudges(cfg, mgd.cfg), mgd.feed
	if mgd.bundle != nil {
		set.bundleRev, set.bundle = mgd.bundle.revision, mgd.bundle
	}
	dlog, w := e.decisionLogOptions(mgd)
	set.warnings = append(set.warnings, w...)
	done := false
	defer func() {
		if !done { // a failed load: close what it started
			set.discard(prev)
		}
	}()
	if err := e.loadHooks(ctx, set, prev, mgd, cfg); err != nil {
		return nil, err
	}
	if err := home.Unchanged(); err != nil {
		return nil, err
	}
	for _, w := range set.warnings {
		e.loadLog.Warn(w.String())
	}
	e.useStore(cfg) // only a load that succeeded changes the store: a failed one keeps the old set, and its store
	if err := e.useDecisionLog(dlog); err != nil {
		e.loadLog.Warn(err.Error())
	}
	wd, _ := os.Getwd() // "" when it is gone: each firing then asks again, and says why it cannot run there
	e.wd.Store(&wd)
	done = true
	return set, nil
}

// readConfigs reads the managed home and the home's config.yaml, with the warnings about
// them.
func (e *Engine) readConfigs() (*managed, *config, []hookspec.Warning, error) {
	mgd, mwarns, err := loadManaged(homedir.ResolveManaged(e.opts.ManagedHome), e.opts, getenv(e.opts.Getenv))
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, warns, err := loadConfig(e.home)
	if err != nil {
		return nil, nil, nil, err
	}
	warns = append(mwarns, e.hostStoreWarnings(cfg, warns)...)
	if cfg.policy != nil {
		warns = append(warns, hookspec.Warning{File: cfg.file, Line: cfg.policyLine, Msg: "policy: is read only from the managed home (" +
			filepath.Join(mgd.home, "config.yaml") + "); ignored here"})
	}
	if cfg.declog != nil {
		warns = append(warns, hookspec.Warning{File: cfg.file, Line: cfg.declogLine, Msg: "decision_log: is read only from the managed home (" +
			filepath.Join(mgd.home, "config.yaml") + "); ignored here"})
	}
	if cfg.bundles != nil || cfg.bundleCache != nil {
		warns = append(warns, hookspec.Warning{File: cfg.file, Line: cfg.bundlesLine, Msg: "bundles: and bundle_cache: are read only from the managed home (" +
			filepath.Join(mgd.home, "config.yaml") + "); ignored here"})
	}
	return mgd, cfg, warns, nil
}

// loadHooks fills set with the hooks of both layers, in the order they run: the managed
// plugins, the managed shell hooks, the user's plugins, the user's shell hooks, then the
// webhooks. It fails on a managed plugin that cannot be loaded (loadManagedPlugins), and on
// a reload whose plugins directory cannot be read.
func (e *Engine) loadHooks(ctx context.Context, set, prev *hookSet, mgd *managed, cfg *config) error {
	managedPlugins, managedInfos, w, err := e.loadManagedPlugins(ctx, mgd, prev)
	e.addPlugins(set, managedPlugins) // first: before every hook of the user's home (and closed with set when the load fails)
	if err != nil {
		return err
	}
	set.warnings = append(set.warnings, w...)
	managedShell, w := e.loadShellHooks(ctx, mgd.cfg, prev, LayerManaged, mgd.policy)
	set.warnings = append(set.warnings, w...)
	if b := mgd.bundle; b != nil { // after the managed home's own, before the user's
		bundleShell, w := e.loadShellHooks(ctx, b.cfg, prev, LayerManaged, mgd.policy)
		set.warnings, managedShell = append(set.warnings, w...), append(managedShell, bundleShell...)
	}
	e.addShellHooks(set, managedShell)
	plugins, infos, w, err := e.loadUserPlugins(ctx, cfg, prev, mgd.policy, managedInfos)
	if err != nil {
		if prev != nil {
			return err
		}
		w = append(w, hookspec.Warning{File: filepath.Join(e.home, "plugins"), Msg: err.Error()})
	}
	set.plugins, set.warnings = slices.Concat(managedInfos, infos), append(set.warnings, w...)
	e.addPlugins(set, plugins)
	shell, w := e.loadShellHooks(ctx, cfg, prev, LayerUser, mgd.policy)
	set.warnings = append(set.warnings, w...)
	e.addShellHooks(set, shell)
	set.webhooks, set.webhookEndpoints, set.webhookInfo, w = e.loadWebhooks(mgd, cfg)
	set.warnings = append(set.warnings, w...)
	for _, name := range hookNames { // last: they see the arguments the tool runs with
		if set.webhooks.Wants(name) && !hooknames.IsWrap(name) { // a webhook cannot call next
			set.byHook[name] = append(set.byHook[name], webhookCallback{set.webhooks, e.workDir})
		}
	}
	for _, h := range append(managedShell, shell...) {
		set.shell = append(set.shell, h.info)
		if h.cb != nil {
			set.hooks = append(set.hooks, h.info.hook)
		}
	}
	set.preTool = set.byHook[hooknames.PreToolCall]
	return nil
}

// addPlugins registers the callbacks of plugins, in their order, in set.
func (e *Engine) addPlugins(set *hookSet, plugins []*plugin) {
	set.loaded = append(set.loaded, plugins...)
	for _, p := range plugins {
		switch {
		case p.lp != nil:
			for i, r := range p.lp.Registrations() {
				set.byHook[r.Hook] = append(set.byHook[r.Hook], &pluginCallback{p: p, index: i, logger: e.logger,
					metrics: e.opts.Metrics.forHook(hookspec.SourcePlugin, p.info.Name, r.Hook)})
			}
		case e.opts.DryRun: // a Python plugin is not sandboxed: a dry run does not start it
		case p.drift != nil:
			for _, hook := range p.drift {
				set.byHook[hook] = append(set.byHook[hook], &driftedPluginCallback{p: p,
					metrics: e.opts.Metrics.forHook(hookspec.SourcePlugin, p.info.Name, hook)})
			}
		default:
			for i, r := range p.pyRegs {
				set.byHook[r.Name] = append(set.byHook[r.Name], &pythonCallback{p: p, index: i, logger: e.logger,
					metrics: e.opts.Metrics.forHook(hookspec.SourcePlugin, p.info.Name, r.Name)})
			}
		}
	}
}

// addShellHooks registers the shell hooks that run (none in a dry run) in set.
func (e *Engine) addShellHooks(set *hookSet, hooks []loadedShellHook) {
	for _, h := range hooks {
		if h.cb != nil && !e.opts.DryRun {
			set.byHook[h.info.Event] = append(set.byHook[h.info.Event], h.cb)
		}
	}
}

// Reload re-reads the home and swaps the new hook set in atomically. Calls in flight
// finish on the old set. When the home fails to load (a broken config.yaml; a home that is
// missing, unreadable or replaced while it is read), the old set stays and the error says
// why. After Close it returns ErrClosed.
func (e *Engine) Reload(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	old := e.set.Load()
	set, err := e.load(ctx, old)
	if err != nil {
		return err
	}
	e.retire(e.set.Swap(set), set)
	return nil
}

// retire closes old once its calls are done, except what next still runs.
func (e *Engine) retire(old, next *hookSet) {
	old.keep = next.running()
	old.retired.Store(true)
	if old.refs.zero() {
		old.close()
	}
}

// ErrClosed is returned by Reload after Close; a closed engine's PreToolCall blocks with
// its message.
var ErrClosed = errors.New("hook engine closed")

// Close shuts the engine down like http.Server.Shutdown: it stops accepting calls at once,
// waits for the calls in flight until ctx is done, then interrupts them, those running and
// those waiting for a Lua state (they end as cancelled, and a tool call whose guard ended
// so is blocked with "hook engine closed"; a call whose hooks could change what leaves the
// process is refused likewise), and returns ctx's error. After Close, PreToolCall blocks
// every tool call with "hook engine closed"; where the home had hooks at the point,
// DecideTurn blocks the prompt, RunLLM does not call the model and the transforms withhold
// their input; observers do nothing: a closed engine never answers "allowed". Async shell hooks still running in the
// background are ended, and Close returns once they have. Outbound webhook deliveries
// already queued are sent until ctx is done. Close may be called more than once.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	old := e.set.Load()
	e.set.Store(closedSet(old))
	old.closing.Store(true)
	e.retire(old, nil)
	e.mu.Unlock()
	defer func() {
		e.stopNow(ErrClosed) // shell hooks still in flight end,
		e.bg.close()         // and async ones in the background, which Close waits for
	}()
	defer e.closeStores()
	defer e.closeDecisionLog(ctx) // after the calls: it sends their decisions
	select {
	case <-old.drained:
		return old.webhooks.Close(ctx) // queued deliveries are sent until ctx is done
	case <-ctx.Done():
	}
	old.webhooks.Close(ctx)
	for _, p := range old.loaded {
		p.close() // no call starts on it any more
		if p.lp != nil {
			p.lp.Interrupt(ErrClosed)
		}
	}
	return ctx.Err()
}

// Plugins describes every plugin directory found, loaded or not: the managed home's, then
// the user's, each in directory order.
func (e *Engine) Plugins() []*PluginInfo { return e.set.Load().plugins }

// ShellHooks describes every shell hook declared in config.yaml, registered or not.
func (e *Engine) ShellHooks() []*ShellHookInfo { return e.set.Load().shell }

// Warnings lists the problems found by the last load.
func (e *Engine) Warnings() []hookspec.Warning { return e.set.Load().warnings }

// HasHooks reports whether anything is registered for hook.
func (e *Engine) HasHooks(h hookspec.Hook) bool { return len(e.set.Load().callbacks(h.String())) > 0 }

func getenv(f func(string) string) func(string) string {
	if f == nil {
		return os.Getenv
	}
	return f
}
