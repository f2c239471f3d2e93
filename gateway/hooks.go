package gateway

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/internal/reload"
	"github.com/hermes-hooks/hermes/luabind"
)

const (
	defaultHookTimeout = 10.0
	maxHookTimeout     = 300.0
	maxHandlerSize     = 4 << 20
)

var hookKeys = []string{"name", "description", "events", "enabled", "timeout", "permissions"}

// HookInfo describes one directory under <home>/hooks.
type HookInfo struct {
	Name        string              `json:"name"`
	Dir         string              `json:"dir"`
	Description string              `json:"description,omitempty"`
	Events      []string            `json:"events"`
	Timeout     float64             `json:"timeout_s"`
	Enabled     bool                `json:"enabled"`
	Status      string              `json:"status"` // "loaded", "disabled" or "error"
	Error       string              `json:"error,omitempty"`
	Permissions luabind.Permissions `json:"permissions"`
}

// hook is a loaded gateway hook.
type hook struct {
	info    *HookInfo
	file    string
	handler *luabind.Handler
	worker  *worker
	sum     [sha256.Size]byte // of what it was loaded from (see hookSum)
	warns   []manifest.Warning
}

// discover loads every hook directory in alphabetical order; a hook in running whose
// files did not change is returned as it is. Broken hooks are returned as infos with
// status "error" and one warning each; they never stop the others. A hooks directory or a
// config.yaml that cannot be read is an error.
func (g *Gateway) discover(ctx context.Context, running map[string]*hook) ([]*hook, []*HookInfo, []manifest.Warning, error) {
	disabled, err := g.eng.DisabledGatewayHooks()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: the hooks loaded before keep running", err)
	}
	dir := filepath.Join(g.home, "hooks")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil, nil
		}
		return nil, nil, nil, fmt.Errorf("hooks directory %s cannot be read (%s): the hooks loaded before keep running", dir, reload.Plain(err))
	}
	var hooks []*hook
	var infos []*HookInfo
	var warns []manifest.Warning
	for _, ent := range entries {
		if !ent.IsDir() || strings.HasPrefix(ent.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, ent.Name())
		h, info, w := g.loadHook(ctx, path, disabled, running[path])
		warns = append(warns, w...)
		infos = append(infos, info)
		if h != nil {
			hooks = append(hooks, h)
		}
	}
	return hooks, infos, warns, nil
}

// hookSum identifies what a hook is loaded from: its two files and the hooks config.yaml
// disables.
func hookSum(manifest, handler []byte, disabled []string) [sha256.Size]byte {
	h := sha256.New()
	for _, part := range [][]byte{manifest, handler, []byte(strings.Join(disabled, "\n"))} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// loadHook loads one hook directory, or returns running as it is when its files did not
// change.
func (g *Gateway) loadHook(ctx context.Context, dir string, disabled []string, running *hook) (*hook, *HookInfo, []manifest.Warning) {
	info := &HookInfo{Name: filepath.Base(dir), Dir: dir, Enabled: true, Timeout: defaultHookTimeout, Events: []string{}}
	mfile := filepath.Join(dir, "HOOK.yaml")
	hfile := filepath.Join(dir, "handler.lua")
	var warns []manifest.Warning
	fail := func(w manifest.Warning) (*hook, *HookInfo, []manifest.Warning) {
		info.Status, info.Error = "error", w.String()
		return nil, info, append(warns, w)
	}
	for _, f := range []string{mfile, hfile} {
		if _, err := os.Stat(f); err != nil {
			return fail(manifest.Warning{File: f, Msg: fmt.Sprintf("missing %s: a gateway hook needs HOOK.yaml and handler.lua", filepath.Base(f))})
		}
	}
	mdata, merr := manifest.ReadFile(mfile, manifest.MaxSize)
	src, herr := manifest.ReadFile(hfile, maxHandlerSize)
	sum := hookSum(mdata, src, disabled)
	if running != nil && merr == nil && herr == nil && running.sum == sum {
		return running, running.info, running.warns
	}
	w, err := parseHookManifest(mfile, mdata, merr, info)
	warns = append(warns, w...)
	if err != nil {
		var me *manifest.Error
		if errors.As(err, &me) {
			return fail(me.Warning)
		}
		return fail(manifest.Warning{File: mfile, Msg: err.Error()})
	}
	if slices.Contains(disabled, info.Name) || slices.Contains(disabled, filepath.Base(dir)) {
		info.Enabled = false
	}
	if !info.Enabled {
		info.Status = "disabled"
		return nil, info, warns
	}
	if herr != nil {
		return fail(manifest.Warning{File: hfile, Msg: herr.Error()})
	}
	h, err := luabind.LoadHandler(ctx, src, "handle", luabind.Options{
		Name: info.Name, File: hfile, Home: g.home, Logger: g.logger.With("hook", info.Name),
		Timeout: seconds(info.Timeout), Permissions: info.Permissions, HostFuncs: g.opts.HostFuncs,
	})
	if err != nil {
		var le *luabind.Error
		if errors.As(err, &le) {
			return fail(manifest.Warning{File: le.File, Line: le.Line, Msg: le.Msg})
		}
		return fail(manifest.Warning{File: hfile, Msg: err.Error()})
	}
	info.Status = "loaded"
	return &hook{info: info, file: hfile, handler: h, sum: sum, warns: warns}, info, warns
}

// parseHookManifest fills info from HOOK.yaml, read as data (or failing with readErr).
func parseHookManifest(file string, data []byte, readErr error, info *HookInfo) ([]manifest.Warning, error) {
	if readErr != nil {
		return nil, readErr
	}
	root, err := manifest.Parse(file, data)
	if err != nil {
		return nil, err
	}
	fields, warns := manifest.Fields(file, root, hookKeys)
	evNode, ok := fields["events"]
	if !ok {
		return warns, manifest.Errorf(file, root, "missing events: list the events to handle, e.g. events: [agent:start]")
	}
	common := manifest.Common{Name: info.Name, Enabled: info.Enabled, Timeout: info.Timeout}
	w, err := common.Decode(file, fields, maxHookTimeout)
	warns = append(warns, w...)
	if err != nil {
		return warns, err
	}
	info.Name, info.Description, info.Enabled = common.Name, common.Description, common.Enabled
	info.Timeout, info.Permissions = common.Timeout, common.Permissions
	events, err := manifest.StringList(file, evNode, "events")
	if err != nil {
		return warns, err
	}
	for i, ev := range events {
		warning, subErr := checkSubscription(ev)
		if subErr != nil {
			warns = append(warns, manifest.Warning{File: file, Line: evNode.Content[i].Line, Msg: subErr.Error() + " (skipped)"})
			continue
		}
		if warning != "" {
			warns = append(warns, manifest.Warning{File: file, Line: evNode.Content[i].Line, Msg: warning})
		}
		info.Events = append(info.Events, ev)
	}
	if len(info.Events) == 0 {
		return warns, manifest.Errorf(file, evNode, "events is empty: list the events to handle, e.g. events: [agent:start]")
	}
	return warns, nil
}
