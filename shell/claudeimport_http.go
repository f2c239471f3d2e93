package shell

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// httpHook maps one Claude Code hook of type "http" (url, headers, allowedEnvVars, timeout)
// to a type: http entry in Claude Code's dialect.
func (imp *ClaudeImport) httpHook(where, event, matcher string, h *yaml.Node) {
	skip := func(msg string) { imp.Skipped = append(imp.Skipped, ImportNote{where, msg}) }
	note := func(msg string) { imp.Notes = append(imp.Notes, ImportNote{where, msg}) }
	raw := ""
	if v := mapValue(h, "url"); v != nil && v.Kind == yaml.ScalarNode {
		raw = strings.TrimSpace(v.Value)
	}
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		skip("type http without a url")
		return
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		skip(fmt.Sprintf("url %q is not an http:// or https:// URL", raw))
		return
	case u.User != nil:
		skip("the url carries credentials (user:password@); move them to a header that names an environment variable in allowedEnvVars")
		return
	case mapValue(h, "if") != nil:
		skip("its if condition cannot be checked here, and without it the hook would fire for more calls")
		return
	}
	t := &HTTPTarget{URL: raw, Headers: map[string]string{}}
	if v := mapValue(h, "allowedEnvVars"); v != nil && v.Kind == yaml.SequenceNode {
		for _, n := range v.Content {
			t.AllowedEnvVars = append(t.AllowedEnvVars, n.Value)
		}
	}
	if v := mapValue(h, "headers"); v != nil && v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			t.Headers[v.Content[i].Value] = v.Content[i+1].Value
		}
	}
	e := ImportEntry{Event: event, Matcher: matcher, Command: raw, HTTP: t}
	if v := mapValue(h, "timeout"); v != nil {
		if secs, err := strconv.ParseFloat(v.Value, 64); err == nil && secs > 0 {
			e.Timeout = min(int(MaxTimeout.Seconds()), max(1, int(secs+0.999)))
		} else {
			note(fmt.Sprintf("timeout %q is not a positive number of seconds; the default (%d s) applies", v.Value, int(DefaultTimeout.Seconds())))
		}
	}
	if local(u.Hostname()) {
		note("the URL is on this machine or a private network: such addresses are refused here unless the entry says allow_private_network: true (add it once you trust the endpoint) or the managed policy's allowed_http_urls names it")
	}
	imp.Entries = append(imp.Entries, e)
}

// local reports whether host names this machine or a private address literally.
func local(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}

// policy reports the managed settings of a Claude Code settings file. They restrict what
// the user may declare, so they belong in the managed home's policy:, which an import into
// the user's config.yaml cannot write; the note says what to put there.
func (imp *ClaudeImport) policy(file string, root *yaml.Node) {
	for _, k := range []string{"allowedHttpHookUrls", "httpHookAllowedEnvVars", "allowManagedHooksOnly"} {
		v := mapValue(root, k)
		if v == nil {
			continue
		}
		where := fmt.Sprintf("%s:%d: %s", file, v.Line, k)
		var msg string
		switch {
		case k == "allowedHttpHookUrls" && v.Kind == yaml.SequenceNode:
			var list []string
			for _, n := range v.Content {
				list = append(list, strconv.Quote(n.Value))
			}
			msg = "a managed setting, not imported into the user's config.yaml (it cannot restrict itself); to enforce it, put in the managed home's config.yaml ($HERMES_MANAGED_HOME, default /etc/hermes): policy: {allowed_http_urls: [" + strings.Join(list, ", ") + "]}"
		case k == "allowManagedHooksOnly" && v.Value == "true":
			msg = "a managed setting, not imported into the user's config.yaml; to enforce it, put in the managed home's config.yaml ($HERMES_MANAGED_HOME, default /etc/hermes): policy: {managed_hooks_only: true}, and import the managed hooks there with --home <managed home>"
		case k == "allowManagedHooksOnly":
			continue // false restricts nothing
		case k == "httpHookAllowedEnvVars":
			msg = "not imported: the variables an HTTP hook's headers may name are its own allowed_env_vars here; no policy limits them"
		default:
			msg = "expected a list of URL patterns; not imported"
		}
		imp.Notes = append(imp.Notes, ImportNote{where, msg})
	}
}

// declaresHTTP reports whether list already holds the type: http entry e.
func declaresHTTP(list *yaml.Node, e ImportEntry) bool {
	return slices.ContainsFunc(list.Content, func(n *yaml.Node) bool {
		str := func(k string) string {
			if v := mapValue(n, k); v != nil {
				return strings.TrimSpace(v.Value)
			}
			return ""
		}
		return str("type") == TypeHTTP && str("url") == e.Command && str("matcher") == e.Matcher && str("dialect") == DialectClaude &&
			(str("subagent") == "true") == e.Subagent
	})
}

// httpEntryNode is the type: http entry e as config.yaml holds it.
func httpEntryNode(e ImportEntry) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
	}
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v, Tag: "!!str"} }
	add("type", str(TypeHTTP))
	add("url", str(e.Command))
	if e.Matcher != "" {
		add("matcher", str(e.Matcher))
	}
	if len(e.HTTP.Headers) > 0 {
		h := &yaml.Node{Kind: yaml.MappingNode}
		keys := make([]string, 0, len(e.HTTP.Headers))
		for k := range e.HTTP.Headers {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			h.Content = append(h.Content, str(k), str(e.HTTP.Headers[k]))
		}
		add("headers", h)
	}
	if len(e.HTTP.AllowedEnvVars) > 0 {
		l := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, v := range e.HTTP.AllowedEnvVars {
			l.Content = append(l.Content, str(v))
		}
		add("allowed_env_vars", l)
	}
	if e.Timeout > 0 {
		add("timeout", &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.Itoa(e.Timeout), Tag: "!!int"})
	}
	add("dialect", str(DialectClaude))
	if e.Subagent {
		add("subagent", &yaml.Node{Kind: yaml.ScalarNode, Value: "true", Tag: "!!bool"})
	}
	return n
}
