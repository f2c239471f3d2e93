package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/bundlefeed"
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/shell"
	"gopkg.in/yaml.v3"
)

// bundleDirVar, in a command or URL of a bundle's config.yaml hooks:, stands for the
// directory the bundle is extracted into (its scripts travel in it).
const bundleDirVar = "${HERMES_BUNDLE_DIR}"

// BundleStatus is the state of the managed home's bundle feed (bundles: in its
// config.yaml): the active bundle's revision and digest, when it was activated, and the
// time and outcome of the last checks.
type BundleStatus struct {
	URL         string    `json:"url"`                   // the feed (bundles.url)
	Revision    int64     `json:"revision"`              // of the active bundle; 0: none yet
	Digest      string    `json:"digest,omitempty"`      // SHA-256 of the active bundle's archive
	Dir         string    `json:"dir,omitempty"`         // the active bundle's directory
	ActivatedAt time.Time `json:"activated_at,omitzero"` // when it was activated
	LastCheck   time.Time `json:"last_check,omitzero"`   // the last check, whatever its outcome
	LastSuccess time.Time `json:"last_success,omitzero"` // the last check that ended with the newest bundle active
	LastError   string    `json:"last_error,omitempty"`  // why the last check failed or refused a bundle; "" after a success
	Stale       bool      `json:"stale,omitempty"`       // the last success is older than max_age
	ETag        string    `json:"etag,omitempty"`        // of the active bundle's answer, sent as If-None-Match
	// Running is the revision this engine runs: the active one once it reloaded.
	Running int64 `json:"running_revision"`
	// Poll is the interval between two checks (bundles.poll), before jitter.
	Poll time.Duration `json:"-"`
}

func bundleStatus(st bundlefeed.Status, c *bundlefeed.Config) BundleStatus {
	return BundleStatus{URL: c.URL, Revision: st.Revision, Digest: st.Digest, Dir: st.Dir, ActivatedAt: st.ActivatedAt,
		LastCheck: st.LastCheck, LastSuccess: st.LastSuccess, LastError: st.LastError, Stale: st.Stale, ETag: st.ETag, Poll: c.Poll}
}

// activeBundle is the bundle of the managed layer: its directory, config.yaml and revision.
type activeBundle struct {
	dir      string
	cfg      *config
	revision int64 // 0 for a bundle tried before it is activated
}

// BundleFeed is a bundle feed given to the engine (Options.Bundles) rather than written in
// the managed config as bundles: {url, keys, poll}: its fields are those keys.
type BundleFeed struct {
	URL  string        // https, or http to a loopback address
	Keys []string      // public key files (PEM); a relative one is relative to the working directory
	Poll time.Duration // between two checks of hermesctl serve, before jitter; 0: 5m
	// MaxAge, when set, makes the feed stale (a warning, and stale in the status) once its
	// last successful check is older; as bundles.max_age of the managed config.
	MaxAge time.Duration
	// From names where the feed was given, for its errors; "": "Options.Bundles".
	From string
}

// feedOf is the managed layer's bundle feed: opts.Bundles, or else bundles: of cfg, the
// config of the managed home; nil for none. Both is an error: a layer has one feed. The
// cache of opts.Bundles is bundle_cache: of cfg, else state/bundles of opts.Home.
func feedOf(managedHome string, cfg *config, opts Options) (*bundlefeed.Config, []hookspec.Warning, error) {
	g := opts.Bundles
	if g == nil {
		return bundlefeed.Parse(cfg.file, managedHome, cfg.bundlesLine, cfg.bundles, cfg.bundleCache)
	}
	from := g.From
	if from == "" {
		from = "Options.Bundles"
	}
	if cfg.bundles != nil {
		return nil, nil, fmt.Errorf("%s:%d: bundles: is set, and %s gives a bundle feed too: the managed layer takes one; remove one of them",
			cfg.file, cfg.bundlesLine, from)
	}
	cache, err := bundlefeed.CacheDir(cfg.file, managedHome, cfg.bundleCache, filepath.Join(homedir.Resolve(opts.Home), "state", "bundles"))
	if err != nil {
		return nil, nil, err
	}
	c, err := bundlefeed.NewGiven(from, g.URL, g.Keys, g.Poll, g.MaxAge, cache)
	return c, nil, err
}

// loadBundle reads the managed layer's bundle feed (feedOf) and the bundle it makes part
// of the layer: opts.bundleDir, or else the active one of the cache (verified again
// against the keys configured now). No active bundle, one that does not verify, or one
// that asks for more than the policy allows, is an error: the layer would be missing the
// guards it holds.
func (m *managed) loadBundle(opts Options) ([]hookspec.Warning, error) {
	var err error
	var warns []hookspec.Warning
	cfg := m.cfg
	if cfg == nil { // a managed home without config.yaml, given a feed
		cfg = &config{file: filepath.Join(m.home, "config.yaml")}
	}
	m.feed, warns, err = feedOf(m.home, cfg, opts)
	if err != nil || m.feed == nil {
		return warns, err
	}
	var st bundlefeed.Status
	dir := opts.bundleDir
	if dir == "" {
		if dir, st, err = m.feed.LoadActive(); err != nil {
			return nil, err
		}
		if st.Stale {
			warns = append(warns, staleWarning(m.feed, st))
		}
	}
	if m.bundle, err = readBundle(dir, m.policy); err != nil {
		return nil, err
	}
	m.bundle.revision = st.Revision
	return warns, nil
}

// staleWarning says that the feed has not been checked successfully for longer than max_age.
func staleWarning(c *bundlefeed.Config, st bundlefeed.Status) hookspec.Warning {
	last := "never"
	if !st.LastSuccess.IsZero() {
		last = st.LastSuccess.UTC().Format(time.RFC3339)
	}
	setting := "max_age"
	if c.Given {
		setting = "--bundle-max-age"
	}
	return hookspec.Warning{File: c.File, Line: c.Line, Msg: fmt.Sprintf(
		"bundles: the last successful check of %s was %s, longer ago than %s (%s): revision %d runs, newer ones may be missed (last error: %s)",
		c.URL, last, setting, c.MaxAge, st.Revision, orNone(st.LastError))}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// readBundle reads the bundle extracted in dir: its config.yaml, with ${HERMES_BUNDLE_DIR}
// replaced by dir in its hooks:. It refuses a config.yaml that sets what only the managed
// home may (policy:, bundles:, store:, webhooks:), and a shell hook whose command or URL,
// as written, the policy's allowed_commands or allowed_http_urls do not admit.
func readBundle(dir string, p *Policy) (*activeBundle, error) {
	cfg, _, err := loadConfig(dir)
	if err != nil {
		return nil, fmt.Errorf("the bundle's %w", err)
	}
	for key, set := range map[string]bool{"policy": cfg.policy != nil, "bundles": cfg.bundles != nil || cfg.bundleCache != nil,
		"store": cfg.store.line != 0, "webhooks": cfg.webhooks != nil} {
		if set {
			return nil, fmt.Errorf("%s: a bundle may not set %s: (only the managed home's config.yaml does)", cfg.file, key)
		}
	}
	if err := bundleWithinPolicy(cfg, p); err != nil {
		return nil, err
	}
	if err := bundlePythonWithinPolicy(dir, p); err != nil {
		return nil, err
	}
	if cfg.hooks != nil {
		expandBundleDir(cfg.hooks, dir)
	}
	return &activeBundle{dir: dir, cfg: cfg}, nil
}

// bundleWithinPolicy refuses a bundle whose shell hooks the policy's allowed_commands or
// allowed_http_urls do not admit, as written (a pattern may start with ${HERMES_BUNDLE_DIR}).
// managed_hooks_only does not apply: the bundle is the managed layer.
func bundleWithinPolicy(cfg *config, p *Policy) error {
	if cfg.hooks == nil || p == nil || p.File == "" {
		return nil
	}
	q := *p
	q.ManagedHooksOnly = false
	tools, _ := shell.ParseToolTable(cfg.file, cfg.claudeTools)
	hooks, _ := shell.ParseHooksWith(cfg.file, cfg.hooks, hookNames, tools)
	for _, h := range hooks {
		if why := q.refuses(h.Type, h.Command); why != "" {
			return fmt.Errorf("%s:%d: %s hook %q: %s", cfg.file, h.Line, h.Event, h.Command, why)
		}
	}
	return nil
}

// bundlePythonWithinPolicy refuses a bundle holding a Python plugin or gateway hook (code
// that is not sandboxed, run as python3 <directory>) that the policy's allowed_commands do
// not admit, as written: "python3 ${HERMES_BUNDLE_DIR}/plugins/<name>" (and hooks/<name>),
// as a Python hook of the user's home is held to the policy.
func bundlePythonWithinPolicy(dir string, p *Policy) error {
	if p == nil || p.File == "" {
		return nil
	}
	q := *p
	q.ManagedHooksOnly = false
	for sub, entry := range map[string]string{"plugins": pythonEntryPlugin, "hooks": pythonEntryGateway} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, ent := range entries {
			if _, err := os.Stat(filepath.Join(dir, sub, ent.Name(), entry)); err != nil {
				continue
			}
			if why := q.refuses("", pythonCommand(bundleDirVar+"/"+sub+"/"+ent.Name())); why != "" {
				return fmt.Errorf("%s: the Python hook %s/%s: %s", filepath.Join(dir, sub, ent.Name(), entry), sub, ent.Name(), why)
			}
		}
	}
	return nil
}

// expandBundleDir replaces ${HERMES_BUNDLE_DIR} in every string under n by dir, quoted for
// a command line when it holds more than letters, digits and "/._-".
func expandBundleDir(n *yaml.Node, dir string) {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, bundleDirVar) {
		n.Value = strings.ReplaceAll(n.Value, bundleDirVar, shellQuote(dir))
	}
	for _, c := range n.Content {
		expandBundleDir(c, dir)
	}
}

func shellQuote(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// loadBundlePlugins loads the plugins of the managed layer's bundle, none of which may have
// the name of a plugin of the managed home (home).
func (e *Engine) loadBundlePlugins(ctx context.Context, b *activeBundle, prev *hookSet, home []*PluginInfo) ([]*plugin, []*PluginInfo, []hookspec.Warning, error) {
	l := pluginLayer{home: b.dir, layer: LayerManaged, disabled: b.cfg.disabledPlugins, reserved: map[string]string{}, bundle: true}
	for _, p := range home {
		l.reserved[p.Name] = p.Dir
	}
	return e.loadPlugins(ctx, l, prev)
}

// Bundle returns the status of the managed home's bundle feed now (read from its cache,
// with the revision this engine runs), and false when the managed home has no bundles:.
func (e *Engine) Bundle() (BundleStatus, bool) {
	set := e.set.Load()
	if set.feed == nil {
		return BundleStatus{}, false
	}
	st, err := set.feed.Status(time.Now())
	if err != nil && st.LastError == "" {
		st.LastError = err.Error()
	}
	out := bundleStatus(st, set.feed)
	out.Running = set.bundleRev
	return out, true
}

// PullBundle checks the bundle feed of the managed layer (opts.Bundles, else bundles: in
// the managed home's config.yaml; opts.ManagedHome, else $HERMES_MANAGED_HOME) once: it
// fetches the bundle, verifies it
// against the configured keys, refuses a revision older than the active one, a bundle that
// asks for more than the managed policy allows and one that does not load (tried as a dry
// run with opts' host functions and limits), then activates it in the cache. It returns the
// feed's status and whether a new revision is active (engines built on the managed home
// then Reload); a refused bundle is an error, recorded as the status's last error, and the
// active bundle stays. No feed is the zero status and no error.
func PullBundle(ctx context.Context, opts Options) (BundleStatus, bool, error) {
	home := homedir.ResolveManaged(opts.ManagedHome)
	cfg, _, err := loadConfig(home)
	if err != nil {
		return BundleStatus{}, false, fmt.Errorf("managed home: %w", err)
	}
	feed, _, err := feedOf(home, cfg, opts)
	if err != nil {
		return BundleStatus{}, false, fmt.Errorf("managed home: %w", err)
	}
	if feed == nil {
		return BundleStatus{}, false, nil
	}
	res, err := bundlefeed.Pull(ctx, feed, http.DefaultClient, func(ctx context.Context, dir string) error {
		return tryBundle(ctx, opts, home, dir)
	})
	return bundleStatus(res.Status, feed), res.Activated, err
}

// tryBundle loads the managed home with the bundle in dir, as a dry run, beside an empty
// home, with its gateway hooks: an error is why the bundle cannot be the managed layer.
func tryBundle(ctx context.Context, opts Options, managedHome, dir string) error {
	scratch, err := os.MkdirTemp("", "hermes-bundle-try-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	e, err := New(ctx, Options{Home: scratch, ManagedHome: managedHome, DryRun: true, IgnoreConsent: true,
		HostFuncs: opts.HostFuncs, Limits: opts.Limits, Bundles: opts.Bundles, bundleDir: dir})
	if err != nil {
		return bundleRefusal(err)
	}
	defer e.Close(ctx)
	hooks, _, _, err := e.loadGatewayHooks(ctx, gatewayhook.Options{HostFuncs: opts.HostFuncs}, nil)
	for _, h := range hooks {
		h.Close()
	}
	if err != nil {
		return bundleRefusal(err)
	}
	return nil
}

// bundleRefusal is a load's error as the reason a bundle is refused: without what is true of a
// running layer only (that hooks do not run until it is fixed).
func bundleRefusal(err error) error {
	msg := strings.TrimPrefix(err.Error(), "managed home: ")
	for _, tail := range []string{" (hooks do not run until", "; hooks do not run until", "; gateway hooks do not run until"} {
		if i := strings.LastIndex(msg, tail); i > 0 {
			msg = msg[:i]
		}
	}
	return errors.New(msg)
}
