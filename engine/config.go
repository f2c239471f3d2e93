package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"github.com/hermes-hooks/hermes/store"
	"gopkg.in/yaml.v3"
)

// configKeys are the top-level keys of config.yaml the engine interprets.
var configKeys = []string{"hooks", "claude_tools", "store", "hooks_auto_accept", "hooks_consent", "gateway_hooks", "plugins", "webhooks", "policy", "max_verify_nudges", "decision_log", "bundles", "bundle_cache"}

// config is what the engine reads from <home>/config.yaml. The file may hold other
// settings of the host; only these keys are interpreted, and another key that looks like a
// typo of one of them (`hook:`) is a warning.
type config struct {
	file            string
	hooks           *yaml.Node // shell hooks, parsed by package shell
	claudeTools     *yaml.Node // claude_tools: the tool table of Claude Code hooks, parsed by package shell
	autoAccept      any        // hooks_auto_accept as written
	consentMode     any        // hooks_consent as written
	disabledPlugins []string
	disabledGateway []string // gateway_hooks.disabled, for package gateway
	store           storeConfig
	webhooks        *yaml.Node // outbound webhooks, parsed by package webhook
	policy          *yaml.Node // policy: (read from the managed home only, managed.go)
	policyLine      int
	declog          *yaml.Node // decision_log: (read from the managed home only, decisionlog.go)
	declogLine      int
	bundles         *yaml.Node // bundles: (read from the managed home only, bundles.go)
	bundleCache     *yaml.Node // bundle_cache: (idem)
	bundlesLine     int        // of bundles: (else bundle_cache:)
	maxNudges       *int       // max_verify_nudges; nil: the default
	claudePlugins   []string   // plugins.claude: Claude Code plugin bundles whose hooks load (claudeplugins.go)
}

// storeConfig is the store: section: the backend, or why the section cannot be used (then
// every store call fails with that error rather than use another backend).
type storeConfig struct {
	cfg   store.Config
	err   error
	line  int                // of store: in config.yaml, when it sets one; 0: it does not
	warns []hookspec.Warning // about the section
}

// loadConfig reads config.yaml; a missing file is an empty config. An unreadable or
// invalid file is an error: guessing would run plugins the user disabled.
func loadConfig(home string) (*config, []hookspec.Warning, error) {
	file := filepath.Join(home, "config.yaml")
	cfg := &config{file: file}
	root, err := manifest.Read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var warns []hookspec.Warning
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], manifest.Resolve(root.Content[i+1])
		switch k.Value {
		case "hooks":
			cfg.hooks = v
		case "claude_tools":
			cfg.claudeTools = v
		case "webhooks":
			cfg.webhooks = v
		case "policy":
			cfg.policy, cfg.policyLine = v, k.Line
		case "decision_log":
			cfg.declog, cfg.declogLine = v, k.Line
		case "bundles":
			cfg.bundles, cfg.bundlesLine = v, k.Line
		case "bundle_cache":
			cfg.bundleCache = v
			if cfg.bundles == nil {
				cfg.bundlesLine = k.Line
			}
		case "store":
			var w []hookspec.Warning
			cfg.store, w = parseStore(file, v)
			cfg.store.warns, warns = w, append(warns, w...)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!null" {
				cfg.store.line = k.Line
			}
		case "hooks_auto_accept":
			cfg.autoAccept, _ = manifest.Any(file, v, k.Value)
		case "hooks_consent":
			cfg.consentMode, _ = manifest.Any(file, v, k.Value)
		case "max_verify_nudges":
			n, w := parseNudges(file, v)
			cfg.maxNudges, warns = n, append(warns, w...)
		case "gateway_hooks", "plugins":
			var extra []string
			if k.Value == "plugins" {
				extra = []string{"claude"} // plugins.claude: Claude Code plugin bundles (claudeplugins.go)
			}
			list, fields, w, err := disabledList(file, k.Value, v, extra...)
			if err == nil && fields["claude"] != nil {
				cfg.claudePlugins, err = manifest.StringList(file, fields["claude"], "plugins.claude")
			}
			if err != nil {
				return nil, nil, err
			}
			warns = append(warns, w...)
			if k.Value == "plugins" {
				cfg.disabledPlugins = list
			} else {
				cfg.disabledGateway = list
			}
		default:
			if s := suggest.Closest(k.Value, configKeys); s != "" {
				warns = append(warns, hookspec.Warning{File: file, Line: k.Line, Msg: fmt.Sprintf(
					"unknown key %q ignored, did you mean '%s'? (hermes reads %s; other keys are left to the host)", k.Value, s, strings.Join(configKeys, ", "))})
			}
		}
	}
	return cfg, warns, nil
}

// parseStore reads `store: {url: "redis://...", prefix: "...", max_bytes: 64MiB}`; null or
// no url is the database in the home. max_bytes is a size as memory: in a manifest; out of
// bounds, it is a warning and the nearest bound is used.
func parseStore(file string, n *yaml.Node) (storeConfig, []hookspec.Warning) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return storeConfig{}, nil
	}
	if n.Kind != yaml.MappingNode {
		err := manifest.Errorf(file, n, "store must be a mapping (e.g. store: {url: \"redis://host:6379/0\"}); store calls fail until it is fixed")
		return storeConfig{err: err}, []hookspec.Warning{{File: file, Line: n.Line, Msg: err.Error()}}
	}
	fields, warns := manifest.Fields(file, n, []string{"url", "prefix", "max_bytes"})
	var c storeConfig
	if f, ok := fields["max_bytes"]; ok {
		size, w, err := manifest.Size(file, f, "store.max_bytes", store.DefaultMaxBytes, store.MinMaxBytes, store.MaxMaxBytes)
		warns = append(warns, w...)
		if err != nil {
			msg := err.Error()
			if me := (*manifest.Error)(nil); errors.As(err, &me) {
				msg = me.Msg
			}
			c.err = manifest.Errorf(file, f, "%s; store calls fail until it is fixed", msg)
			warns = append(warns, hookspec.Warning{File: file, Line: f.Line, Msg: c.err.Error()})
		}
		c.cfg.MaxBytes = size
	}
	for key, dst := range map[string]*string{"url": &c.cfg.URL, "prefix": &c.cfg.Prefix} {
		if f, ok := fields[key]; ok {
			if f.Kind != yaml.ScalarNode || f.Tag != "!!str" {
				c.err = manifest.Errorf(file, f, "store.%s must be a string; store calls fail until it is fixed", key)
				warns = append(warns, hookspec.Warning{File: file, Line: f.Line, Msg: c.err.Error()})
				continue
			}
			*dst = f.Value
		}
	}
	if _, err := store.ParseConfig(c.cfg); err != nil && c.err == nil {
		c.err = manifest.Errorf(file, fields["url"], "%v; store calls fail until it is fixed", err)
		warns = append(warns, hookspec.Warning{File: file, Line: fields["url"].Line, Msg: c.err.Error()})
	}
	return c, warns
}

// disabledList reads a section of the form `<key>: {disabled: [name, ...]}`, which may
// also hold the keys extra (returned in fields).
func disabledList(file, key string, n *yaml.Node, extra ...string) ([]string, map[string]*yaml.Node, []hookspec.Warning, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil, nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, nil, nil, manifest.Errorf(file, n, "%s must be a mapping (e.g. %s: {disabled: [name]})", key, key)
	}
	fields, warns := manifest.Fields(file, n, append([]string{"disabled"}, extra...))
	d, ok := fields["disabled"]
	if !ok {
		return nil, fields, warns, nil
	}
	list, err := manifest.StringList(file, d, key+".disabled")
	return list, fields, warns, err
}

// gatewayConfig reads config.yaml now (at each load of the gateway hooks): its
// gateway_hooks.disabled list and, for Python gateway hooks, its consent settings. An
// unreadable or invalid file is an error: guessing could run a hook the user disabled.
func (e *Engine) gatewayConfig() (*config, error) {
	cfg, _, err := loadConfig(e.home)
	return cfg, err
}

// maxMaxVerifyNudges bounds max_verify_nudges: a hook keeps an agent going at most this
// many times per user turn, whatever config.yaml says.
const maxMaxVerifyNudges = 100

// parseNudges reads max_verify_nudges: a whole number from 0 (pre_verify's hooks never keep
// the agent going) to maxMaxVerifyNudges. Anything else is a warning and the default.
func parseNudges(file string, n *yaml.Node) (*int, []hookspec.Warning) {
	var v int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil || v < 0 || v > maxMaxVerifyNudges {
		return nil, []hookspec.Warning{{File: file, Line: n.Line, Msg: fmt.Sprintf(
			"max_verify_nudges must be a whole number from 0 to %d, got %q; using the default (%d)", maxMaxVerifyNudges, n.Value, hookspec.DefaultMaxVerifyNudges)}}
	}
	return &v, nil
}
