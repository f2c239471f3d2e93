package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/luabind"
)

// Plugin manifest limits.
const (
	defaultPluginTimeout = 5.0
	maxTimeout           = 300.0
	maxStates            = 64
	maxHandlerSize       = 4 << 20
)

var pluginKeys = []string{"name", "description", "version", "enabled", "priority", "timeout", "fail_closed", "config", "permissions", "states", "reuse_kwargs"}

// PluginInfo describes one plugin directory as found and loaded.
type PluginInfo struct {
	Name        string              `json:"name"`
	Dir         string              `json:"dir"`
	Description string              `json:"description,omitempty"`
	Version     string              `json:"version,omitempty"`
	Priority    int                 `json:"priority"`
	Timeout     float64             `json:"timeout_s"`
	FailClosed  bool                `json:"fail_closed"`
	States      int                 `json:"states"`
	Enabled     bool                `json:"enabled"`
	Status      string              `json:"status"` // "loaded", "disabled" or "error"
	Error       string              `json:"error,omitempty"`
	Hooks       []string            `json:"hooks"`
	Permissions luabind.Permissions `json:"permissions"`
	// KwargsRebuilt lists the callbacks whose kwargs table is built afresh for every call
	// instead of refilled, and why: "pre_tool_call at handler.lua:3: line 5: kw is passed
	// to a function" (see docs/lua.md, Reusing the kwargs table).
	KwargsRebuilt []string `json:"kwargs_rebuilt,omitempty"`

	config  any
	dirName string
}

// plugin is a loaded plugin.
type plugin struct {
	info *PluginInfo
	file string
	lp   *luabind.Plugin
}

// loadPlugins discovers <home>/plugins/*, loads the enabled ones, and returns them in
// invocation order (priority, then directory name) with every plugin's info.
func (e *Engine) loadPlugins(ctx context.Context, home string, cfg *config) ([]*plugin, []*PluginInfo, []Warning) {
	dir := filepath.Join(home, "plugins")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, []Warning{{File: dir, Msg: err.Error()}}
	}
	var loaded []*plugin
	var infos []*PluginInfo
	var warns []Warning
	for _, ent := range entries { // os.ReadDir sorts by name
		if !ent.IsDir() || strings.HasPrefix(ent.Name(), ".") {
			continue
		}
		p, info, w := e.loadPlugin(ctx, filepath.Join(dir, ent.Name()), cfg)
		warns = append(warns, w...)
		if info != nil {
			infos = append(infos, info)
		}
		if p != nil {
			loaded = append(loaded, p)
		}
	}
	sortPlugins(loaded)
	return loaded, infos, warns
}

// loadPlugin loads one plugin directory. A nil plugin with a non-nil info means the plugin
// is listed but not running (disabled or broken).
func (e *Engine) loadPlugin(ctx context.Context, dir string, cfg *config) (*plugin, *PluginInfo, []Warning) {
	base := filepath.Base(dir)
	info := &PluginInfo{Name: base, Dir: dir, dirName: base, Enabled: true, Timeout: defaultPluginTimeout, States: 1, Hooks: []string{}}
	mfile := filepath.Join(dir, "plugin.yaml")
	hfile := filepath.Join(dir, "handler.lua")
	fail := func(w Warning) (*plugin, *PluginInfo, []Warning) {
		info.Status, info.Error = "error", w.String()
		return nil, info, []Warning{w}
	}
	warns, err := parsePluginManifest(mfile, info)
	if err != nil {
		var me *manifest.Error
		if errors.As(err, &me) {
			return fail(me.Warning)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fail(Warning{File: mfile, Msg: "missing plugin.yaml: a plugin directory needs plugin.yaml and handler.lua"})
		}
		return fail(Warning{File: mfile, Msg: err.Error()})
	}
	if slices.Contains(cfg.disabledPlugins, info.Name) || slices.Contains(cfg.disabledPlugins, base) {
		info.Enabled = false
	}
	if !info.Enabled {
		info.Status = "disabled"
		return nil, info, warns
	}
	src, err := manifest.ReadFile(hfile, maxHandlerSize)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "missing handler.lua: define register(ctx) in it"
		}
		info.Status, info.Error = "error", Warning{File: hfile, Msg: msg}.String()
		return nil, info, append(warns, Warning{File: hfile, Msg: msg})
	}
	lp, err := luabind.LoadPlugin(ctx, src, luabind.Options{
		Name: info.Name, File: hfile, Home: e.home, Logger: e.logger.With("plugin", info.Name),
		Timeout: seconds(info.Timeout), States: info.States, Permissions: info.Permissions,
		HostFuncs: e.opts.HostFuncs, Config: info.config,
	})
	if err != nil {
		var le *luabind.Error
		w := Warning{File: hfile, Msg: err.Error()}
		if errors.As(err, &le) {
			w = Warning{File: le.File, Line: le.Line, Msg: le.Msg}
		}
		return fail(w)
	}
	for _, r := range lp.Registrations() {
		info.Hooks = append(info.Hooks, r.Hook)
		if r.FreshKwargs != "" {
			info.KwargsRebuilt = append(info.KwargsRebuilt, fmt.Sprintf("%s at %s:%d: %s", r.Hook, filepath.Base(hfile), r.Line, r.FreshKwargs))
		}
		if !IsHook(r.Hook) {
			warns = append(warns, Warning{File: hfile, Line: r.Line, Msg: fmt.Sprintf(
				"unknown hook %q%s (kept for hosts that fire it); valid hooks: %s", r.Hook, didYouMean(r.Hook, hookNames), strings.Join(hookNames, ", "))})
		}
	}
	if info.FailClosed && !slices.Contains(info.Hooks, PreToolCall) {
		warns = append(warns, Warning{File: mfile, Msg: "fail_closed only applies to pre_tool_call, which this plugin does not register"})
	}
	info.Status = "loaded"
	return &plugin{info: info, file: hfile, lp: lp}, info, warns
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// parsePluginManifest fills info from plugin.yaml.
func parsePluginManifest(file string, info *PluginInfo) ([]Warning, error) {
	root, err := manifest.Read(file)
	if err != nil {
		return nil, err
	}
	fields, warns := manifest.Fields(file, root, pluginKeys)
	common := manifest.Common{Name: info.Name, Enabled: info.Enabled, Timeout: info.Timeout}
	w, err := common.Decode(file, fields, maxTimeout)
	warns = append(warns, w...)
	if err != nil {
		return warns, err
	}
	info.Name, info.Description, info.Enabled = common.Name, common.Description, common.Enabled
	info.Timeout, info.Permissions = common.Timeout, common.Permissions
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
			warns = append(warns, Warning{File: file, Line: n.Line, Msg: "reuse_kwargs is no longer used: " +
				"kwargs tables are reused automatically when the callback cannot tell (remove the key)"})
		case "states":
			info.States, err = manifest.Int(file, n, key)
			if err == nil && (info.States < 1 || info.States > maxStates) {
				err = manifest.Errorf(file, n, "states must be between 1 and %d", maxStates)
			}
		case "config":
			info.config, err = manifest.Any(file, n, key)
		}
		if err != nil {
			return warns, err
		}
	}
	return warns, nil
}

// keepPrevious replaces every plugin that failed to load by its running version in prev,
// if there is one, with a warning saying so; the result is in invocation order again.
func keepPrevious(prev *hookSet, loaded []*plugin, infos []*PluginInfo) ([]*plugin, []*PluginInfo, []Warning) {
	if prev == nil {
		return loaded, infos, nil
	}
	running := map[string]*plugin{}
	for _, p := range prev.loaded {
		running[p.info.Dir] = p
	}
	var warns []Warning
	for i, info := range infos {
		old := running[info.Dir]
		if info.Status != "error" || old == nil {
			continue
		}
		loaded = append(loaded, old)
		infos[i] = old.info
		warns = append(warns, Warning{File: info.Dir, Msg: "failed to reload (" + info.Error + "); the previous version keeps running"})
	}
	sortPlugins(loaded)
	return loaded, infos, warns
}

// sortPlugins orders plugins for invocation: priority (higher first), then directory name.
func sortPlugins(ps []*plugin) {
	slices.SortStableFunc(ps, func(a, b *plugin) int {
		return cmp.Or(cmp.Compare(b.info.Priority, a.info.Priority), cmp.Compare(a.info.dirName, b.info.dirName))
	})
}
