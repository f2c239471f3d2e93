package bundlefeed

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/bundle"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/internal/ocibundle"
	"gopkg.in/yaml.v3"
)

// Defaults of a bundles: entry.
const (
	DefaultPoll = 5 * time.Minute
	MinPoll     = 100 * time.Millisecond
)

// Config is the bundles: entry of the managed home's config.yaml, with bundle_cache:.
type Config struct {
	File   string        // the managed config.yaml
	Line   int           // of bundles: in it
	URL    string        // https, or http to a loopback address, or oci://registry/repository:tag
	Keys   []string      // public key files (PEM), absolute
	Poll   time.Duration // between two checks, before jitter
	MaxAge time.Duration // a warning when the last successful check is older; 0: none
	Cache  string        // the cache directory: the active bundle, its archive, status.json
	// Given is a feed given on the command line (hermesctl serve --bundle), File naming
	// the flag, rather than bundles: of File at Line.
	Given bool
}

// where is where the feed is configured, for an error: "file:line", or the flag.
func (c *Config) where() string {
	if c.Given {
		return c.File
	}
	return fmt.Sprintf("%s:%d", c.File, c.Line)
}

// keysName is how the configuration names the keys, for an error.
func (c *Config) keysName() string {
	if c.Given {
		return "--bundle-key"
	}
	return "bundles.keys"
}

// NewGiven is a feed given on the command line (hermesctl serve --bundle URL --bundle-key
// FILE --bundle-poll D), as a bundles: entry: from names the flag for its errors, keys are
// made absolute, a poll of 0 is DefaultPoll, and cache is the cache directory (CacheDir).
func NewGiven(from, url string, keys []string, poll, maxAge time.Duration, cache string) (*Config, error) {
	if msg := checkURL(url); msg != "" {
		return nil, fmt.Errorf("%s %s", from, msg)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s needs --bundle-key FILE: the public key a bundle must be signed with (repeat it for several)", from)
	}
	if poll == 0 {
		poll = DefaultPoll
	}
	if poll < MinPoll {
		return nil, fmt.Errorf("%s: --bundle-poll must be at least %s", from, MinPoll)
	}
	if maxAge < 0 {
		return nil, fmt.Errorf("%s: --bundle-max-age must not be negative (0: no limit)", from)
	}
	c := &Config{File: from, URL: url, Poll: poll, MaxAge: maxAge, Cache: cache, Given: true}
	for _, k := range keys {
		abs, err := filepath.Abs(k)
		if err != nil {
			return nil, fmt.Errorf("--bundle-key %s: %w", k, err)
		}
		c.Keys = append(c.Keys, abs)
	}
	return c, nil
}

// CacheDir is the cache directory that bundle_cache: (n, nil when absent) of the managed
// config.yaml file in home names, relative to home, else def.
func CacheDir(file, home string, n *yaml.Node, def string) (string, error) {
	if n == nil {
		return def, nil
	}
	s, err := manifest.String(file, n, "bundle_cache")
	if err != nil || s == "" {
		return "", manifest.Errorf(file, n, "bundle_cache must be a directory (default: %s)", def)
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(home, s)
	}
	return s, nil
}

var keys = []string{"url", "keys", "poll", "max_age"}

// Parse reads bundles: (n, whose key is on line) and bundle_cache: (cache, nil when
// absent) of the managed config.yaml file in home. Every mistake is an error naming its line: a feed that cannot
// be read is not an empty one.
func Parse(file, home string, line int, n, cache *yaml.Node) (*Config, []hookspec.Warning, error) {
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		if cache != nil {
			return nil, nil, manifest.Errorf(file, cache, "bundle_cache: is set but bundles: is not (bundles: {url: https://..., keys: [release.pub]})")
		}
		return nil, nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, nil, manifest.Errorf(file, n, "bundles must be a mapping (e.g. bundles: {url: https://hooks.example.com/hooks.bundle, keys: [release.pub]})")
	}
	c := &Config{File: file, Line: line, Poll: DefaultPoll, Cache: filepath.Join(home, "state", "bundles")}
	fields, warns := manifest.Fields(file, n, keys)
	u, ok := fields["url"]
	if !ok {
		return nil, nil, manifest.Errorf(file, n, "bundles: needs url: (the bundle's https URL)")
	}
	var err error
	if c.URL, err = manifest.String(file, u, "bundles.url"); err != nil {
		return nil, nil, err
	}
	if msg := checkURL(c.URL); msg != "" {
		return nil, nil, manifest.Errorf(file, u, "bundles.url %s", msg)
	}
	k, ok := fields["keys"]
	if !ok {
		return nil, nil, manifest.Errorf(file, n, "bundles: needs keys: (the public key files the bundle must be signed with, e.g. keys: [release.pub])")
	}
	list, err := manifest.StringList(file, k, "bundles.keys")
	if err != nil {
		return nil, nil, err
	}
	if len(list) == 0 {
		return nil, nil, manifest.Errorf(file, k, "bundles.keys is empty: a bundle must be signed by one of them (keys: [release.pub])")
	}
	for _, p := range list {
		if !filepath.IsAbs(p) {
			p = filepath.Join(home, p)
		}
		c.Keys = append(c.Keys, p)
	}
	for key, dst := range map[string]*time.Duration{"poll": &c.Poll, "max_age": &c.MaxAge} {
		if f, ok := fields[key]; ok {
			if *dst, err = duration(file, f, "bundles."+key); err != nil {
				return nil, nil, err
			}
		}
	}
	if c.Poll < MinPoll {
		return nil, nil, manifest.Errorf(file, fields["poll"], "bundles.poll must be at least %s", MinPoll)
	}
	if c.Cache, err = CacheDir(file, home, cache, c.Cache); err != nil {
		return nil, nil, err
	}
	return c, warns, nil
}

// duration reads a Go duration ("5m", "90s").
func duration(file string, n *yaml.Node, key string) (time.Duration, error) {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d < 0 {
		return 0, manifest.Errorf(file, n, "%s must be a duration such as 5m or 90s, got %q", key, n.Value)
	}
	return d, nil
}

// checkURL says what is wrong with a bundle URL, "" when nothing is: https, or http to a
// loopback address (a local mirror, a test), or oci://registry/repository:tag.
func checkURL(raw string) string {
	if ocibundle.IsRef(raw) {
		if _, err := ocibundle.Parse(raw); err != nil {
			return "must be oci://registry/repository:tag: " + err.Error()
		}
		return ""
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		return "must be an absolute https URL, got " + fmt.Sprintf("%q", raw)
	case u.Scheme == "https":
		return ""
	case u.Scheme == "http" && loopback(u.Hostname()):
		return ""
	}
	return "must be https (http only to a loopback address), got " + fmt.Sprintf("%q", raw)
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// PublicKeys reads the configured keys. A key that cannot be read is an error naming it:
// a feed checked against fewer keys than configured could refuse every bundle silently.
func (c *Config) PublicKeys() ([]*bundle.PublicKey, error) {
	out := make([]*bundle.PublicKey, 0, len(c.Keys))
	for _, p := range c.Keys {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", c.where(), c.keysName(), err)
		}
		k, err := bundle.ParsePublicKey(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %s: %w", c.where(), c.keysName(), p, err)
		}
		out = append(out, k)
	}
	return out, nil
}
