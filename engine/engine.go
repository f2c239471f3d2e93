package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hermes-hooks/hermes/luabind"
)

// Func is a Go function callable from Lua (see Options.HostFuncs and DispatchHost).
type Func = luabind.Func

// Object hands a Go facade to Lua as userdata; every exported field and method is reachable.
type Object = luabind.Object

// Permissions are the side effects a Lua hook declares.
type Permissions = luabind.Permissions

// Options configure an Engine. The zero value works: home from $HERMES_HOME or
// ~/.hermes, logs discarded, shell hooks registered only when already approved.
type Options struct {
	// Home is the hermes home directory; "" means $HERMES_HOME, else ~/.hermes.
	Home string
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
	// IgnoreConsent registers every shell hook, approved or not, without asking or
	// recording anything (hermesctl hooks test does this, like the original).
	IgnoreConsent bool
	// HostFuncs are added to the hermes module of every Lua hook (e.g. run_agent).
	HostFuncs map[string]Func
	// Metrics, when non-nil, counts every hook call (see Metrics); nil counts nothing.
	Metrics *Metrics
}

// Prompt is where to ask the user about an unapproved shell hook.
type Prompt struct {
	In  io.Reader
	Out io.Writer
}

// Engine runs the plugin hooks and shell hooks of one home. All methods are safe for
// concurrent use; none panics or returns a hook's failure as a Go error.
type Engine struct {
	opts   Options
	home   string
	logger *slog.Logger
	set    atomic.Pointer[hookSet]
	mu     sync.Mutex // serialises Reload and Close
	closed bool
}

// New loads the home and returns a ready engine. It fails only when the home's
// config.yaml cannot be read or parsed; broken hooks are skipped with a warning.
func New(ctx context.Context, opts Options) (*Engine, error) {
	e := &Engine{opts: opts, home: ResolveHome(opts.Home), logger: opts.Logger}
	if e.logger == nil {
		e.logger = slog.New(slog.DiscardHandler)
	}
	set, err := e.load(ctx, nil)
	if err != nil {
		return nil, err
	}
	e.set.Store(set)
	return e, nil
}

// Home is the directory the engine loads from.
func (e *Engine) Home() string { return e.home }

// load builds a new hook set from the home. A plugin that fails to load but was running
// in prev keeps running in its previous version, so a broken edit does not remove it.
func (e *Engine) load(ctx context.Context, prev *hookSet) (*hookSet, error) {
	cfg, warns, err := loadConfig(e.home)
	if err != nil {
		return nil, err
	}
	set := &hookSet{byHook: map[string][]callback{}, warnings: warns}
	plugins, infos, w := e.loadPlugins(ctx, e.home, cfg)
	set.warnings = append(set.warnings, w...)
	plugins, infos, w = keepPrevious(prev, plugins, infos)
	set.plugins, set.warnings, set.loaded = infos, append(set.warnings, w...), plugins
	for _, p := range plugins {
		for i, r := range p.lp.Registrations() {
			set.byHook[r.Hook] = append(set.byHook[r.Hook], &pluginCallback{p: p, index: i, logger: e.logger,
				metrics: e.opts.Metrics.forHook(SourcePlugin, p.info.Name, r.Hook)})
		}
	}
	shell, w := e.loadShellHooks(ctx, cfg)
	set.warnings = append(set.warnings, w...)
	for _, h := range shell {
		set.shell = append(set.shell, h.info)
		if h.cb != nil {
			set.byHook[h.info.Event] = append(set.byHook[h.info.Event], h.cb)
			set.closers = append(set.closers, h.info.hook.Close) // stops a persistent hook's process
		}
	}
	set.preTool = set.byHook[PreToolCall]
	for _, w := range set.warnings {
		e.logger.Warn(w.String())
	}
	return set, nil
}

// Reload re-reads the home and swaps the new hook set in atomically. Calls in flight
// finish on the old set. When the home fails to load, the old set stays and the error
// says why.
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

// retire closes old once its calls are done, except the plugins next still runs.
func (e *Engine) retire(old, next *hookSet) {
	old.keep = map[*plugin]bool{}
	for _, p := range next.loaded {
		old.keep[p] = true
	}
	old.retired.Store(true)
	if old.refs.zero() {
		old.close()
	}
}

// ErrClosed is returned by Reload after Close.
var ErrClosed = errors.New("engine: closed")

// Close releases every hook once the calls in flight have finished. Calls made after
// Close find no hooks.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	e.retire(e.set.Swap(&hookSet{byHook: map[string][]callback{}}), &hookSet{})
	return nil
}

// Plugins describes every plugin directory found, loaded or not, in directory order.
func (e *Engine) Plugins() []*PluginInfo { return e.set.Load().plugins }

// ShellHooks describes every shell hook declared in config.yaml, registered or not.
func (e *Engine) ShellHooks() []*ShellHookInfo { return e.set.Load().shell }

// Warnings lists the problems found by the last load.
func (e *Engine) Warnings() []Warning { return e.set.Load().warnings }

// HasHooks reports whether anything is registered for hook.
func (e *Engine) HasHooks(hook string) bool { return len(e.set.Load().callbacks(hook)) > 0 }

func getenv(f func(string) string) func(string) string {
	if f == nil {
		return os.Getenv
	}
	return f
}
