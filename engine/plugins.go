package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/luabind"
	"github.com/hermes-hooks/hermes/shell"
	"github.com/hermes-hooks/hermes/store"
)

// Plugin manifest limits.
const (
	defaultPluginTimeout = 5.0
	maxTimeout           = 300.0
	maxStates            = 64
	maxMaxStates         = 4 * maxStates // max_states
	maxStatesPerState    = 4             // max_states by default: 4 x states
	wrapMaxStates        = 64            // max_states by default of a plugin with a wrap hook (at least 4 x states)
	maxHandlerSize       = 4 << 20
)

var pluginKeys = []string{"name", "description", "version", "enabled", "priority", "timeout", "memory", "fail_closed", "config", "permissions", "states", "max_states", "busy_timeout", "reuse_kwargs", "python", "instances"}

// PluginInfo describes one plugin directory as found and loaded.
type PluginInfo struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	// Layer is LayerManaged for a plugin of the managed home (it runs before every hook of
	// the user's home and cannot be disabled or replaced by it), else LayerUser.
	Layer       string  `json:"layer"`
	Description string  `json:"description,omitempty"`
	Version     string  `json:"version,omitempty"`
	Priority    int     `json:"priority"`
	Timeout     float64 `json:"timeout_s"`
	// BusyTimeout is how long a call waits for a free Lua state when all States are in
	// use, in seconds; past it the call does not run (status busy). Default: Timeout.
	BusyTimeout float64 `json:"busy_timeout_s"`
	// Memory is how many bytes each Lua state of the plugin may hold (memory: in
	// plugin.yaml; default 256 MiB).
	Memory     int64 `json:"memory_bytes"`
	FailClosed bool  `json:"fail_closed"`
	States     int   `json:"states"`
	// MaxStates is how many Lua states the plugin may have while calls wait on I/O
	// (store, http, exec, time.sleep, host functions): a call that finds every state busy
	// while fewer than States calls run Lua gets an extra state, with its own globals, kept
	// for reuse. Default 4 x States, and for a plugin that registers a wrap hook (whose
	// calls wait in next for as long as the calls they wrap run) at least 64; States means
	// never more.
	MaxStates   int                  `json:"max_states"`
	Enabled     bool                 `json:"enabled"`
	Status      string               `json:"status"` // "loaded", "disabled", "error", or "unapproved" (a Python plugin not approved: Error says how to approve it)
	Error       string               `json:"error,omitempty"`
	Hooks       []string             `json:"hooks"`
	Permissions hookspec.Permissions `json:"permissions"`
	// KwargsRebuilt lists the callbacks whose kwargs table is built afresh for every call
	// instead of refilled, and why: "pre_tool_call at handler.lua:3: line 5: kw is passed
	// to a function" (see docs/lua.md, Reusing the kwargs table).
	KwargsRebuilt []string `json:"kwargs_rebuilt,omitempty"`
	// Runtime is RuntimeLua (handler.lua) or RuntimePython (__init__.py, SPEC §5.8).
	Runtime string `json:"runtime"`
	// Python is the interpreter of a Python plugin (python: in plugin.yaml; "" = python3 on
	// $PATH), PythonVersion the version it reported when the plugin loaded, and Instances
	// its co-processes at most (instances:, default 1).
	Python        string `json:"python,omitempty"`
	PythonVersion string `json:"python_version,omitempty"`
	Instances     int    `json:"instances,omitempty"`
	// Consent and ApprovedBy are a Python plugin's consent, as a shell hook's
	// (ShellHookInfo); nil and "" for a Lua plugin, which is sandboxed.
	Consent    *consent.Status `json:"consent,omitempty"`
	ApprovedBy string          `json:"approved_by,omitempty"`

	config        any
	memorySet     bool // memory: is in plugin.yaml
	dirName       string
	statesLine    int // of states: in plugin.yaml; 0: not given
	maxStatesLine int // of max_states: in plugin.yaml; 0: not given
}

// plugin is a loaded plugin.
type plugin struct {
	info  *PluginInfo
	file  string
	lp    *luabind.Plugin
	sum   [sha256.Size]byte  // of what it was loaded from (see pluginSum)
	warns []hookspec.Warning // found when it was loaded

	py       []*shell.Hook              // a Python plugin: a hook per registration, sharing its co-processes
	pyRegs   []shell.PythonRegistration // of py, in order
	check    func() error               // a pinned Python plugin's: nil while its files are as approved
	drift    []string                   // a drifted Python plugin: the points it blocks (driftedPython)
	driftMsg string                     // why it does not run
}

// close stops what the plugin runs: its Lua states or Python co-processes.
func (p *plugin) close() {
	switch {
	case p.lp != nil:
		p.lp.Close()
	case len(p.py) > 0:
		p.py[0].Close()
	}
}

func (p *plugin) dirOf() string                  { return p.info.Dir }
func (p *plugin) loadedFrom() [sha256.Size]byte  { return p.sum }
func (p *plugin) infoOf() *PluginInfo            { return p.info }
func (p *plugin) warningsOf() []hookspec.Warning { return p.warns }

// pluginLayer is one home's plugins directory as a load reads it.
type pluginLayer struct {
	home, layer string
	disabled    []string          // the plugins: disabled: list of that home's config.yaml
	reserved    map[string]string // names the managed plugins have, with their directories: a plugin of this layer declaring one is not loaded
	consent     *shellLoad        // decides the consent of Python plugins; nil: none needed (the managed layer)
	policy      *Policy           // the managed policy, which may refuse Python plugins of the user's home
	bundle      bool              // the managed layer's bundle, whose reserved names are the managed home's plugins
	regs        *regCache         // the registration cache (regcache.go) of a load that fires only some hooks; nil: every plugin loads
}

// loadPlugins discovers <home>/plugins/* of layer l, loads the enabled ones, and returns
// them in invocation order (priority, then directory name) with every plugin's info. A
// plugin running in prev whose files did not change is kept as it runs, and so is one
// whose new version fails to load. Of two plugins with one name, one loads (see
// claimNames) and the other fails to, and so does one whose name is reserved. A plugins
// directory that exists but cannot be read is an error.
func (e *Engine) loadPlugins(ctx context.Context, l pluginLayer, prev *hookSet) ([]*plugin, []*PluginInfo, []hookspec.Warning, error) {
	dirs, err := readHookDirs(filepath.Join(l.home, "plugins"), "plugin.yaml", l.disabled)
	if err != nil {
		return nil, nil, nil, err
	}
	var running []*plugin
	if prev != nil { // this layer's, but none under a name the managed layer has now: it stops, loads again, and fails
		running = slices.DeleteFunc(slices.Clone(prev.loaded), func(p *plugin) bool { return p.info.Layer != l.layer || l.reserved[p.info.Name] != "" })
	}
	taken := claimNames(dirs, running, func(d *dirFiles) (string, bool, error) {
		info := newPluginInfo(d.dir, l.layer)
		if _, err := parsePluginManifest(d.manifest, d.mdata, d.merr, info); err != nil {
			return "", false, err
		}
		return info.Name, info.Enabled && !disabledPlugin(l.disabled, info), d.herr
	}, func(p *plugin) string { return p.info.Name })
	if len(taken) > 0 { // a plugin that lost its name stops: it loads again, and fails
		running = slices.DeleteFunc(running, func(p *plugin) bool { return taken[p.info.Dir] != "" })
	}
	loaded, infos, warns := loadDirs(dirs, running, func(d *dirFiles) (*plugin, *PluginInfo, []hookspec.Warning) {
		return e.loadPlugin(ctx, d, l, taken[d.dir])
	})
	sortPlugins(loaded)
	return loaded, infos, warns, nil
}

// failure is the error of a plugin that failed to load, "" for any other.
func (i *PluginInfo) failure() string {
	if i.Status == "error" {
		return i.Error
	}
	return ""
}

// newPluginInfo is the info of the plugin in dir before its manifest is read.
func newPluginInfo(dir, layer string) *PluginInfo {
	base := filepath.Base(dir)
	return &PluginInfo{Name: base, Dir: dir, Layer: layer, dirName: base, Enabled: true, Timeout: defaultPluginTimeout,
		Memory: luabind.DefaultMemoryLimit, States: 1, MaxStates: maxStatesPerState, Hooks: []string{}, Runtime: RuntimeLua}
}

// disabledPlugin reports whether a config.yaml's disabled list disables the plugin, by
// name or directory.
func disabledPlugin(disabled []string, info *PluginInfo) bool {
	return slices.Contains(disabled, info.Name) || slices.Contains(disabled, info.dirName)
}

// loadPlugin loads one plugin directory of layer l. A nil plugin means the plugin is listed
// but not running (disabled or broken). owner, when not "", is the directory of the plugin
// that has the name this one declares: then this one fails to load, as one does whose name
// a managed plugin has.
func (e *Engine) loadPlugin(ctx context.Context, d *dirFiles, l pluginLayer, owner string) (*plugin, *PluginInfo, []hookspec.Warning) {
	info := newPluginInfo(d.dir, l.layer)
	mfile := d.manifest
	fail := func(w hookspec.Warning) (*plugin, *PluginInfo, []hookspec.Warning) {
		info.Status, info.Error = "error", w.String()
		return nil, info, []hookspec.Warning{w}
	}
	warns, err := parsePluginManifest(mfile, d.mdata, d.merr, info)
	if err != nil {
		var me *manifest.Error
		if errors.As(err, &me) {
			return fail(me.Warning)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fail(hookspec.Warning{File: mfile, Msg: "missing plugin.yaml: a plugin directory needs plugin.yaml and handler.lua"})
		}
		return fail(hookspec.Warning{File: mfile, Msg: err.Error()})
	}
	if disabledPlugin(l.disabled, info) {
		info.Enabled = false
	}
	if !info.Enabled {
		info.Status = "disabled"
		return nil, info, warns
	}
	warns = append(warns, e.opts.Limits.bound(mfile, info)...)
	if msg := nameTaken(d.dir, info.Name, l, owner); msg != "" {
		return fail(hookspec.Warning{File: mfile, Msg: msg})
	}
	if d.pyEntry != "" {
		return e.loadPythonPlugin(ctx, d, l, info, warns)
	}
	return e.loadLuaPlugin(ctx, d, l, info, warns)
}

// loadLuaPlugin loads the handler.lua of a plugin whose manifest info was read, or skips it
// when the registration cache knows it serves none of the hooks the engine fires.
func (e *Engine) loadLuaPlugin(ctx context.Context, d *dirFiles, l pluginLayer, info *PluginInfo, warns []hookspec.Warning) (*plugin, *PluginInfo, []hookspec.Warning) {
	mfile, hfile, src, herr := d.manifest, d.handler, d.src, d.herr
	fail := func(w hookspec.Warning) (*plugin, *PluginInfo, []hookspec.Warning) {
		info.Status, info.Error = "error", w.String()
		return nil, info, []hookspec.Warning{w}
	}
	if herr != nil {
		msg := herr.Error()
		if errors.Is(herr, fs.ErrNotExist) {
			msg = "missing handler.lua: define register(ctx) in it"
		}
		info.Status, info.Error = "error", hookspec.Warning{File: hfile, Msg: msg}.String()
		return nil, info, append(warns, hookspec.Warning{File: hfile, Msg: msg})
	}
	var regKey string
	if l.regs != nil {
		regKey = l.regs.key(d, l)
		if hooks, ok := l.regs.skip(regKey); ok {
			info.Status, info.Hooks = "skipped", hooks
			return nil, info, warns
		}
	}
	opts := luabind.Options{
		Name: info.Name, File: hfile, Home: l.home, Logger: e.logger.With("plugin", info.Name),
		Timeout: seconds(info.Timeout), BusyTimeout: seconds(info.BusyTimeout), States: info.States, MaxStates: info.MaxStates,
		WrapMaxStates: wrapMaxStatesOf(info, e.opts.Limits),
		MemoryLimit:   info.Memory, Permissions: info.Permissions, HostFuncs: e.opts.HostFuncs, Config: info.config,
		Store: e.hookStore(hookspec.SourcePlugin, pluginNamespace(l.layer, d.dir), info.Name), DryRun: e.opts.DryRun,
	}
	lp, err := luabind.LoadPlugin(ctx, src, opts)
	if err == nil {
		info.MaxStates = lp.MaxStates() // raised for a plugin that wraps
	}
	if err != nil {
		var le *luabind.Error
		w := hookspec.Warning{File: hfile, Msg: err.Error()}
		if errors.As(err, &le) {
			w = hookspec.Warning{File: le.File, Line: le.Line, Msg: le.Msg}
		}
		return fail(w)
	}
	for _, r := range lp.Registrations() {
		info.Hooks = append(info.Hooks, r.Hook)
		if r.FreshKwargs != "" {
			info.KwargsRebuilt = append(info.KwargsRebuilt, fmt.Sprintf("%s at %s:%d: %s", r.Hook, filepath.Base(hfile), r.Line, r.FreshKwargs))
		}
		switch {
		case hookspec.IsHook(r.Hook):
		case hookspec.IsEvent(r.Hook):
			warns = append(warns, hookspec.Warning{File: hfile, Line: r.Line, Msg: fmt.Sprintf(
				"%q is a gateway event, which plugins never receive: gateway events belong in hooks/<name>/HOOK.yaml (events: [%s]) with a handle(event, context) function", r.Hook, r.Hook)})
		default:
			warns = append(warns, hookspec.Warning{File: hfile, Line: r.Line, Msg: fmt.Sprintf(
				"unknown hook %q%s (kept for hosts that fire it); valid hooks: %s", r.Hook, didYouMean(r.Hook, hookNames), strings.Join(hookNames, ", "))})
		}
	}
	if info.FailClosed && !slices.Contains(info.Hooks, hooknames.PreToolCall) {
		warns = append(warns, hookspec.Warning{File: mfile, Msg: "fail_closed only applies to pre_tool_call, which this plugin does not register"})
	}
	if l.regs != nil && lp.Pure() {
		l.regs.record(regKey, info.Hooks)
	}
	info.Status = "loaded"
	return &plugin{info: info, file: hfile, lp: lp, sum: d.sum, warns: warns}, info, warns
}

// nameTaken says why the plugin in dir of layer l may not run under name ("" = it may): a
// managed plugin has it, or owner (when not "") does.
func nameTaken(dir, name string, l pluginLayer, owner string) string {
	if m := l.reserved[name]; m != "" && l.bundle {
		return fmt.Sprintf("the bundle's plugin in %s is not loaded: its name %q is the name of the managed home's plugin in %s; give one of them another name (name: in plugin.yaml)",
			dir, name, m)
	}
	if m := l.reserved[name]; m != "" {
		return fmt.Sprintf("the plugin in %s is not loaded: its name %q is the name of the managed plugin in %s, which the user's home cannot replace; give it another name (name: in plugin.yaml)",
			dir, name, m)
	}
	if owner != "" {
		return fmt.Sprintf("the plugin in %s is not loaded: its name %q is the name of the plugin in %s, which keeps it; give one of them another name (name: in plugin.yaml)",
			dir, name, owner)
	}
	return ""
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// parsePluginManifest fills info from plugin.yaml, read as data (or failing with readErr).
func parsePluginManifest(file string, data []byte, readErr error, info *PluginInfo) ([]hookspec.Warning, error) {
	if readErr != nil {
		return nil, readErr
	}
	root, err := manifest.Parse(file, data)
	if err != nil {
		return nil, err
	}
	fields, warns := manifest.Fields(file, root, pluginKeys)
	common := manifest.Common{Name: info.Name, Enabled: info.Enabled, Timeout: info.Timeout, Memory: info.Memory}
	w, err := common.Decode(file, fields, maxTimeout)
	warns = append(warns, w...)
	if err != nil {
		return warns, err
	}
	info.Name, info.Description, info.Enabled = common.Name, common.Description, common.Enabled
	info.Timeout, info.Memory, info.Permissions = common.Timeout, common.Memory, common.Permissions
	info.BusyTimeout = info.Timeout
	for _, key := range pluginKeys {
		n, ok := fields[key]
		if !ok {
			continue
		}
		var err error
		switch key {
		case "version":
			info.Version, err = manifest.String(file, n, key)
		case "priority":
			info.Priority, err = manifest.Int(file, n, key)
		case "fail_closed":
			info.FailClosed, err = manifest.Bool(file, n, key)
		case "reuse_kwargs": // accepted so that older manifests load; its value does not matter
			warns = append(warns, hookspec.Warning{File: file, Line: n.Line, Msg: "reuse_kwargs is no longer used: " +
				"kwargs tables are reused automatically when the callback cannot tell (remove the key)"})
		case "busy_timeout":
			info.BusyTimeout, err = manifest.Number(file, n, key)
			if err == nil && (info.BusyTimeout <= 0 || info.BusyTimeout > maxTimeout) {
				err = manifest.Errorf(file, n, "busy_timeout must be a number of seconds above 0 and at most %v", maxTimeout)
			}
		case "states":
			info.statesLine = n.Line
			info.States, err = manifest.Int(file, n, key)
			if err == nil && (info.States < 1 || info.States > maxStates) {
				err = manifest.Errorf(file, n, "states must be between 1 and %d", maxStates)
			}
		case "max_states": // after states, which it is checked against
			info.maxStatesLine = n.Line
			info.MaxStates, err = manifest.Int(file, n, key)
			if err == nil && (info.MaxStates < info.States || info.MaxStates > maxMaxStates) {
				err = manifest.Errorf(file, n, "max_states must be between states (%d) and %d: the states the plugin may have while calls wait on I/O", info.States, maxMaxStates)
			}
		case "config":
			info.config, err = manifest.Any(file, n, key)
		case "memory":
			info.memorySet = true
		case "python":
			info.Python, err = manifest.String(file, n, key)
		case "instances":
			info.Instances, err = manifest.Int(file, n, key)
			if err == nil && (info.Instances < 1 || info.Instances > shell.MaxInstances) {
				err = manifest.Errorf(file, n, "instances must be between 1 and %d", shell.MaxInstances)
			}
		}
		if err != nil {
			return warns, err
		}
	}
	if info.maxStatesLine == 0 {
		info.MaxStates = maxStatesPerState * info.States
	}
	return warns, nil
}

// wrapMaxStatesOf is the max_states of a plugin that registers a wrap hook, whose calls wait
// in next while the calls they wrap run: as many as a gateway has conversations, not 4;
// one that set max_states keeps it. The host's Limits.MaxStates bounds it.
func wrapMaxStatesOf(info *PluginInfo, l Limits) int {
	if info.maxStatesLine > 0 {
		return 0
	}
	if l.MaxStates > 0 {
		return min(wrapMaxStates, maxMaxStates, l.MaxStates)
	}
	return min(wrapMaxStates, maxMaxStates)
}

// bound gives info, as plugin.yaml (file) set it, at most the states l allows: a manifest
// asking more gets the bound, with a warning naming its line; a default above it (4 x
// states) is lowered without one.
func (l Limits) bound(file string, info *PluginInfo) []hookspec.Warning {
	var warns []hookspec.Warning
	capped := func(line int, key string, asked, most int) {
		warns = append(warns, hookspec.Warning{File: file, Line: line, Msg: fmt.Sprintf(
			"%s: %d is more than this host allows; the plugin gets %d (ask for at most %d)", key, asked, most, most)})
	}
	states := l.States
	if l.MaxStates > 0 && (states <= 0 || l.MaxStates < states) {
		states = l.MaxStates // max_states is never below states
	}
	if states > 0 && info.States > states {
		capped(info.statesLine, "states", info.States, states)
		info.States = states
		if info.maxStatesLine == 0 {
			info.MaxStates = maxStatesPerState * states
		}
	}
	if l.MaxStates > 0 && info.MaxStates > l.MaxStates {
		if info.maxStatesLine > 0 {
			capped(info.maxStatesLine, "max_states", info.MaxStates, l.MaxStates)
		}
		info.MaxStates = l.MaxStates
	}
	return warns
}

// sortPlugins orders plugins for invocation: priority (higher first), then directory name.
func sortPlugins(ps []*plugin) {
	slices.SortStableFunc(ps, func(a, b *plugin) int {
		return cmp.Or(cmp.Compare(b.info.Priority, a.info.Priority), cmp.Compare(a.info.dirName, b.info.dirName))
	})
}

// pluginNamespace is the store namespace of the plugin in dir of layer: a managed plugin's
// is not one any plugin of the user's home can have, so none reads or writes its state.
func pluginNamespace(layer, dir string) string {
	if layer == LayerManaged {
		return store.Namespace(LayerManaged+"-"+hookspec.SourcePlugin, filepath.Base(dir))
	}
	return store.Namespace(hookspec.SourcePlugin, filepath.Base(dir))
}
