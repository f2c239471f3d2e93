package webhook

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
)

// DefaultTimeout bounds one delivery attempt when an endpoint sets none; MaxTimeout caps it.
const (
	DefaultTimeout = 10 * time.Second
	MaxTimeout     = 60 * time.Second
)

var endpointKeys = []string{"name", "url", "events", "matcher", "secret_env", "allow_private_network", "timeout"}

// Endpoint is one entry of `webhooks:`. Immutable after Parse.
type Endpoint struct {
	Name         string        // unique within the file
	URL          string        // http or https, no credentials
	Events       []string      // hook names and gateway events; "*" is every event, "agent:*" every agent: event
	Matcher      string        // tool-name regex matching the whole name, for events with a tool_name; "" = all
	SecretEnv    string        // the environment variable holding the whsec_ secret
	AllowPrivate bool          // allow_private_network
	Timeout      time.Duration // one attempt
	File         string        // the config.yaml that declares it
	Line         int

	matcher *regexp.Regexp
}

// Wants reports whether the endpoint subscribes to event (with its tool name, "" when none).
func (e *Endpoint) Wants(event, tool string) bool {
	if !slices.ContainsFunc(e.Events, func(p string) bool { return matchEvent(p, event) }) {
		return false
	}
	return e.matcher == nil || tool == "" || e.matcher.MatchString(tool)
}

// matchEvent matches an events pattern as gateway hooks do: exact, "*", or "prefix:*".
func matchEvent(pattern, event string) bool {
	if pattern == "*" || pattern == event {
		return true
	}
	if prefix, ok := strings.CutSuffix(pattern, ":*"); ok {
		return strings.HasPrefix(event, prefix+":")
	}
	return false
}

// Parse reads the value of `webhooks:` (nil = none). known reports whether an event name
// exists (hook names and gateway events); a pattern with a wildcard is always accepted. It
// never fails: a bad entry is skipped with a warning.
func Parse(file string, n *yaml.Node, known func(string) bool) ([]*Endpoint, []hookspec.Warning) {
	var out []*Endpoint
	var warns []hookspec.Warning
	warn := func(at *yaml.Node, format string, args ...any) {
		warns = append(warns, hookspec.Warning{File: file, Line: at.Line, Msg: "webhooks" + fmt.Sprintf(format, args...)})
	}
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		warn(n, ": expected a list of webhooks (name, url, events, secret_env); none sent")
		return nil, warns
	}
	names := map[string]bool{}
	for i, item := range n.Content {
		ep, ok := parseEntry(file, fmt.Sprintf("[%d]", i), item, known, warn)
		if !ok {
			continue
		}
		if names[ep.Name] {
			warn(item, "[%d]: name %q is used twice; skipped", i, ep.Name)
			continue
		}
		names[ep.Name] = true
		out = append(out, ep)
	}
	return out, warns
}

func parseEntry(file, where string, n *yaml.Node, known func(string) bool, warn func(*yaml.Node, string, ...any)) (*Endpoint, bool) {
	if n.Kind != yaml.MappingNode {
		warn(n, "%s: expected a mapping; skipped", where)
		return nil, false
	}
	f := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if !slices.Contains(endpointKeys, k) {
			warn(n.Content[i], "%s: unknown key %q ignored (known: %s)", where, k, strings.Join(endpointKeys, ", "))
			continue
		}
		f[k] = n.Content[i+1]
	}
	ep := &Endpoint{File: file, Line: n.Line, Timeout: DefaultTimeout}
	for _, k := range []string{"name", "url", "secret_env"} {
		v := f[k]
		if v == nil || v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
			warn(n, "%s: missing a non-empty string %q; skipped", where, k)
			return nil, false
		}
	}
	ep.Name, ep.URL, ep.SecretEnv = strings.TrimSpace(f["name"].Value), strings.TrimSpace(f["url"].Value), strings.TrimSpace(f["secret_env"].Value)
	where += " (" + ep.Name + ")"
	if u, err := url.Parse(ep.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		warn(f["url"], "%s: url must be an http:// or https:// URL without credentials; skipped", where)
		return nil, false
	}
	ev := f["events"]
	if ev == nil || ev.Kind != yaml.SequenceNode || len(ev.Content) == 0 {
		warn(n, "%s: events must be a non-empty list of event names (\"*\" for all); skipped", where)
		return nil, false
	}
	for _, e := range ev.Content {
		name := strings.TrimSpace(e.Value)
		if !strings.Contains(name, "*") && known != nil && !known(name) {
			warn(e, "%s: unknown event %q ignored", where, name)
			continue
		}
		ep.Events = append(ep.Events, name)
	}
	if len(ep.Events) == 0 {
		warn(ev, "%s: no known event; skipped", where)
		return nil, false
	}
	if m := f["matcher"]; m != nil && strings.TrimSpace(m.Value) != "" {
		re, err := regexp.Compile("^(?:" + strings.TrimSpace(m.Value) + ")$")
		if err != nil {
			warn(m, "%s: matcher %q is not a valid regular expression (%v); skipped", where, m.Value, err)
			return nil, false
		}
		ep.Matcher, ep.matcher = strings.TrimSpace(m.Value), re
	}
	if p := f["allow_private_network"]; p != nil {
		if p.Tag != "!!bool" {
			warn(p, "%s: allow_private_network must be true or false; private addresses stay refused", where)
		} else {
			ep.AllowPrivate = p.Value == "true"
		}
	}
	if t := f["timeout"]; t != nil {
		secs, err := strconv.Atoi(strings.TrimSpace(t.Value))
		switch {
		case err != nil || secs < 1:
			warn(t, "%s: timeout must be a whole number of seconds >= 1; using %s", where, DefaultTimeout)
		case time.Duration(secs)*time.Second > MaxTimeout:
			warn(t, "%s: timeout %ds is over the maximum; using %s", where, secs, MaxTimeout)
			ep.Timeout = MaxTimeout
		default:
			ep.Timeout = time.Duration(secs) * time.Second
		}
	}
	return ep, true
}
