package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"github.com/hermes-hooks/hermes/luabind"
	"github.com/hermes-hooks/hermes/shell"
	"github.com/hermes-hooks/hermes/store"
)

// Gateway hook manifest limits.
const (
	defaultGatewayTimeout = 10.0
	maxGatewayTimeout     = 300.0
)

var gatewayHookKeys = []string{"name", "description", "events", "enabled", "timeout", "memory", "permissions", "python"}

// gatewayHookInfo describes one directory under <home>/hooks, loaded or not.
type gatewayHookInfo hookspec.GatewayHookInfo

func (i *gatewayHookInfo) failure() string {
	if i.Status == "error" {
		return i.Error
	}
	return ""
}

// gatewayHook is a loaded gateway hook (gatewayhook.Hook): a handler.lua defining
// handle(event, context), or a handler.py defining handle(event_type, context) run by a
// Python co-process. Package gateway gives each one a worker.
type gatewayHook struct {
	info    *gatewayHookInfo
	handler *luabind.Handler
	py      *shell.Hook // a Python hook's co-process
	logger  *slog.Logger
	sum     [sha256.Size]byte
	warns   []hookspec.Warning
}

func (h *gatewayHook) dirOf() string                  { return h.info.Dir }
func (h *gatewayHook) loadedFrom() [sha256.Size]byte  { return h.sum }
func (h *gatewayHook) infoOf() *gatewayHookInfo       { return h.info }
func (h *gatewayHook) warningsOf() []hookspec.Warning { return h.warns }

// Info describes the hook as it was loaded.
func (h *gatewayHook) Info() *hookspec.GatewayHookInfo {
	return (*hookspec.GatewayHookInfo)(h.info)
}

// Call runs handle(event, data) under the hook's timeout and returns its result; a
// failure's status is statusOf its error.
func (h *gatewayHook) Call(ctx context.Context, event string, data map[string]any) (any, hookspec.Status, error) {
	if h.py != nil {
		res := h.py.Run(ctx, map[string]any{"event": event, "context": data}, shell.RunOptions{Logger: h.logger})
		if res.Status != hookspec.StatusOK {
			return nil, res.Status, errors.New(res.Err)
		}
		return res.Parsed, hookspec.StatusOK, nil
	}
	v, err := h.handler.Call(ctx, event, data)
	if err != nil {
		return v, statusOf(err), err
	}
	return v, hookspec.StatusOK, nil
}

// Close releases the hook's Lua state (a Python hook: stops its co-process) once its call
// in flight, if any, returns.
func (h *gatewayHook) Close() {
	if h.py != nil {
		h.py.Close()
		return
	}
	h.handler.Close()
}

// LoadGatewayHooks loads the gateway hooks, each layer's hooks/* in directory order: the
// managed home's, the managed layer's bundle's, then the home's, for package gateway (its
// types are internal to this module: an embedder runs gateway hooks with gateway.New). A
// hook of running whose files did not change is returned as it is, and so is one whose new
// version fails to load (with a warning). Broken hooks are listed with status "error" and
// one warning each. A config.yaml or hooks directory that cannot be read is an error.
func (e *Engine) LoadGatewayHooks(ctx context.Context, opts gatewayhook.Options, running []gatewayhook.Hook) ([]gatewayhook.Hook, []*hookspec.GatewayHookInfo, []hookspec.Warning, error) {
	prev := make([]*gatewayHook, 0, len(running))
	for _, h := range running {
		if g, ok := h.(*gatewayHook); ok { // what this loader made; anything else is not kept
			prev = append(prev, g)
		}
	}
	hooks, infos, warns, err := e.loadGatewayHooks(ctx, opts, prev)
	out := make([]gatewayhook.Hook, len(hooks))
	for i, h := range hooks {
		out[i] = h
	}
	outInfos := make([]*hookspec.GatewayHookInfo, len(infos))
	for i, info := range infos {
		outInfos[i] = (*hookspec.GatewayHookInfo)(info)
	}
	return out, outInfos, warns, err
}

// loadGatewayHooks is LoadGatewayHooks with the engine's own types.
func (e *Engine) loadGatewayHooks(ctx context.Context, opts gatewayhook.Options, running []*gatewayHook) ([]*gatewayHook, []*gatewayHookInfo, []hookspec.Warning, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	cfg, err := e.gatewayConfig()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: the hooks loaded before keep running", err)
	}
	managedDir := filepath.Join(homedir.ResolveManaged(e.opts.ManagedHome), "hooks")
	dirs, err := readHookDirs(managedDir, "HOOK.yaml", nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("managed home: %w", err)
	}
	managed := pluginLayer{home: homedir.ResolveManaged(e.opts.ManagedHome), layer: LayerManaged}
	hooks, infos, warns := loadDirs(dirs, running, func(d *dirFiles) (*gatewayHook, *gatewayHookInfo, []hookspec.Warning) {
		return e.loadGatewayHook(ctx, d, managed, opts, nil)
	})
	reserved := map[string]string{}
	for _, info := range infos {
		reserved[info.Name], reserved[filepath.Base(info.Dir)] = info.Dir, info.Dir
	}
	if b := e.set.Load().bundle; b != nil { // after the managed home's own, under none of their names
		if dirs, err = readHookDirs(filepath.Join(b.dir, "hooks"), "HOOK.yaml", b.cfg.disabledGateway); err != nil {
			closeGatewayHooks(hooks, running)
			return nil, nil, nil, fmt.Errorf("managed home: bundle: %w", err)
		}
		l := pluginLayer{home: b.dir, layer: LayerManaged, disabled: b.cfg.disabledGateway, bundle: true}
		more, moreInfos, w := loadDirs(dirs, running, func(d *dirFiles) (*gatewayHook, *gatewayHookInfo, []hookspec.Warning) {
			return e.loadGatewayHook(ctx, d, l, opts, reserved)
		})
		hooks, infos, warns = append(hooks, more...), append(infos, moreInfos...), append(warns, w...)
		for _, info := range moreInfos {
			reserved[info.Name], reserved[filepath.Base(info.Dir)] = info.Dir, info.Dir
		}
	}
	for _, info := range infos {
		if info.Status == "error" { // no previous version runs (loadDirs would have kept it)
			closeGatewayHooks(hooks, running)
			return nil, nil, nil, fmt.Errorf("managed home: the gateway hook in %s failed to load (%s); gateway hooks do not run until it is fixed: the managed hook would be missing", info.Dir, info.Error)
		}
	}
	if refused, w := e.refusedDir("hooks", "gateway hooks"); refused {
		return hooks, infos, append(warns, w...), nil
	}
	dirs, err = readHookDirs(filepath.Join(e.home, "hooks"), "HOOK.yaml", cfg.disabledGateway)
	if err != nil {
		closeGatewayHooks(hooks, running)
		return nil, nil, nil, err
	}
	policy := e.Policy()
	user := pluginLayer{home: e.home, layer: LayerUser, disabled: cfg.disabledGateway, policy: &policy}
	if slices.ContainsFunc(dirs, func(d dirFiles) bool { return d.pyEntry != "" }) {
		user.consent, _ = e.newShellLoad(cfg, LayerUser, &policy, nil) // an invalid hooks_consent: is reported with the shell hooks
	}
	userHooks, userInfos, w := loadDirs(dirs, running, func(d *dirFiles) (*gatewayHook, *gatewayHookInfo, []hookspec.Warning) {
		return e.loadGatewayHook(ctx, d, user, opts, reserved)
	})
	return append(hooks, userHooks...), append(infos, userInfos...), append(warns, w...), nil
}

// closeGatewayHooks closes the hooks a failed load made: the ones of running keep running.
func closeGatewayHooks(hooks, running []*gatewayHook) {
	for _, h := range hooks {
		if !slices.Contains(running, h) {
			h.Close()
		}
	}
}

// loadGatewayHook loads one directory of layer l; a nil hook is listed but not running. A
// hook of the user's home under a name of reserved (the managed hooks' names and
// directory names) is not loaded: the user's home cannot replace a managed hook. Nor is a
// hook of the managed layer's bundle under a name of the managed home's own hooks (an
// error: the layer would hold two hooks of one name).
func (e *Engine) loadGatewayHook(ctx context.Context, d *dirFiles, l pluginLayer, opts gatewayhook.Options, reserved map[string]string) (*gatewayHook, *gatewayHookInfo, []hookspec.Warning) {
	layer, disabled := l.layer, l.disabled
	info := &gatewayHookInfo{Name: filepath.Base(d.dir), Dir: d.dir, Layer: layer, Enabled: true, Timeout: defaultGatewayTimeout,
		Memory: luabind.DefaultMemoryLimit, Events: []string{}, Runtime: RuntimeLua}
	var warns []hookspec.Warning
	fail := func(w hookspec.Warning) (*gatewayHook, *gatewayHookInfo, []hookspec.Warning) {
		info.Status, info.Error = "error", w.String()
		return nil, info, append(warns, w)
	}
	for _, f := range []struct {
		path string
		err  error
	}{{d.manifest, d.merr}, {d.handler, d.herr}} {
		if errors.Is(f.err, fs.ErrNotExist) && (f.path == d.manifest || d.pyEntry == "") {
			return fail(hookspec.Warning{File: f.path, Msg: fmt.Sprintf("missing %s: a gateway hook needs HOOK.yaml and handler.lua (or handler.py)", filepath.Base(f.path))})
		}
	}
	if d.pyEntry != "" && d.herr == nil {
		return fail(hookspec.Warning{File: d.pyEntry, Line: 1, Msg: "the directory holds both handler.lua and handler.py: a gateway hook is written in Lua or in Python; move one of them out"})
	}
	w, memorySet, err := parseGatewayManifest(d.manifest, d.mdata, d.merr, info)
	warns = append(warns, w...)
	if err != nil {
		var me *manifest.Error
		if errors.As(err, &me) {
			return fail(me.Warning)
		}
		return fail(hookspec.Warning{File: d.manifest, Msg: err.Error()})
	}
	for _, name := range []string{info.Name, filepath.Base(d.dir)} {
		if dir := reserved[name]; dir != "" && l.bundle {
			return fail(hookspec.Warning{File: d.manifest, Msg: fmt.Sprintf("the bundle's gateway hook in %s is not loaded: %q is the name of the managed home's gateway hook in %s; give one of them another name (its directory and name: in HOOK.yaml)", d.dir, name, dir)})
		}
		if dir := reserved[name]; dir != "" {
			return fail(hookspec.Warning{File: d.manifest, Msg: fmt.Sprintf("the gateway hook in %s is not loaded: %q is the name of the managed gateway hook in %s, which the user's home cannot replace; give it another name (its directory and name: in HOOK.yaml)", d.dir, name, dir)})
		}
	}
	if slices.Contains(disabled, info.Name) || slices.Contains(disabled, filepath.Base(d.dir)) {
		info.Enabled = false
	}
	if !info.Enabled {
		info.Status = "disabled"
		return nil, info, warns
	}
	if d.pyEntry != "" {
		return e.loadPythonGatewayHook(ctx, d, l, opts, info, memorySet, warns)
	}
	if info.Python != "" {
		warns = append(warns, hookspec.Warning{File: d.manifest, Msg: "python: applies to a Python hook (handler.py); this one is handler.lua (ignored)"})
	}
	if d.herr != nil {
		return fail(hookspec.Warning{File: d.handler, Msg: d.herr.Error()})
	}
	h, err := luabind.LoadHandler(ctx, d.src, "handle", luabind.Options{
		Name: info.Name, File: d.handler, Home: e.home, Logger: opts.Logger.With("hook", info.Name),
		Timeout: seconds(info.Timeout), MemoryLimit: info.Memory, Permissions: info.Permissions, HostFuncs: opts.HostFuncs,
		Store: e.hookStore(hookspec.SourceGateway, gatewayNamespace(layer, d.dir), info.Name), DryRun: e.opts.DryRun,
	})
	if err != nil {
		var le *luabind.Error
		if errors.As(err, &le) {
			return fail(hookspec.Warning{File: le.File, Line: le.Line, Msg: le.Msg})
		}
		return fail(hookspec.Warning{File: d.handler, Msg: err.Error()})
	}
	info.Status = "loaded"
	return &gatewayHook{info: info, handler: h, logger: opts.Logger, sum: d.sum, warns: warns}, info, warns
}

// gatewayNamespace is the store namespace of the gateway hook in dir of layer: a managed
// hook's is its own ("managed-gateway:<dir>"), so a hook of the user's home cannot read or
// write it.
func gatewayNamespace(layer, dir string) string {
	if layer == LayerManaged {
		return store.Namespace(LayerManaged+"-"+hookspec.SourceGateway, filepath.Base(dir))
	}
	return store.Namespace(hookspec.SourceGateway, filepath.Base(dir))
}

// parseGatewayManifest fills info from HOOK.yaml, read as data (or failing with readErr),
// and says whether it sets memory:.
func parseGatewayManifest(file string, data []byte, readErr error, info *gatewayHookInfo) ([]hookspec.Warning, bool, error) {
	if readErr != nil {
		return nil, false, readErr
	}
	root, err := manifest.Parse(file, data)
	if err != nil {
		return nil, false, err
	}
	fields, warns := manifest.Fields(file, root, gatewayHookKeys)
	_, memorySet := fields["memory"]
	evNode, ok := fields["events"]
	if !ok {
		return warns, memorySet, manifest.Errorf(file, root, "missing events: list the events to handle, e.g. events: [agent:start]")
	}
	common := manifest.Common{Name: info.Name, Enabled: info.Enabled, Timeout: info.Timeout, Memory: info.Memory}
	w, err := common.Decode(file, fields, maxGatewayTimeout)
	warns = append(warns, w...)
	if err != nil {
		return warns, memorySet, err
	}
	info.Name, info.Description, info.Enabled = common.Name, common.Description, common.Enabled
	info.Timeout, info.Memory, info.Permissions = common.Timeout, common.Memory, common.Permissions
	if n, ok := fields["python"]; ok {
		if info.Python, err = manifest.String(file, n, "python"); err != nil {
			return warns, memorySet, err
		}
	}
	events, err := manifest.StringList(file, evNode, "events")
	if err != nil {
		return warns, memorySet, err
	}
	for i, ev := range events {
		warning, subErr := hookspec.CheckSubscription(ev, suggest.Closest)
		if subErr != nil {
			warns = append(warns, hookspec.Warning{File: file, Line: evNode.Content[i].Line, Msg: subErr.Error() + " (skipped)"})
			continue
		}
		if warning != "" {
			warns = append(warns, hookspec.Warning{File: file, Line: evNode.Content[i].Line, Msg: warning})
		}
		info.Events = append(info.Events, ev)
	}
	if len(info.Events) == 0 {
		return warns, memorySet, manifest.Errorf(file, evNode, "events is empty: list the events to handle, e.g. events: [agent:start]")
	}
	return warns, memorySet, nil
}
