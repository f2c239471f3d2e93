package shell

import (
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/internal/netguard"
)

// TypeHTTP is the type of a hook entry whose payload is POSTed to a URL (http.go).
const TypeHTTP = "http"

// Types are the values of an entry's type: "command" is the default.
var Types = []string{"command", TypeHTTP}

// HTTPTarget is where and how a `type: http` hook sends its payload.
type HTTPTarget struct {
	URL            string            // http or https, without credentials (they go in a header)
	Headers        map[string]string // values as written; $VAR and ${VAR} name environment variables
	AllowedEnvVars []string          // the variables header values may name; others become ""
	AllowPrivate   bool              // allow_private_network: loopback, private and link-local addresses may be dialled
}

// envRef is a reference to an environment variable in a header value.
var envRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)
})

// HeaderValues returns the headers with their variable references filled from getenv (nil =
// os.Getenv), as Claude Code fills them: a variable not listed in AllowedEnvVars is "".
func (t *HTTPTarget) HeaderValues(getenv func(string) string) map[string]string {
	if getenv == nil {
		getenv = os.Getenv
	}
	out := make(map[string]string, len(t.Headers))
	for k, v := range t.Headers {
		out[k] = envRef().ReplaceAllStringFunc(v, func(ref string) string {
			m := envRef().FindStringSubmatch(ref)
			name := m[1] + m[2]
			if !slices.Contains(t.AllowedEnvVars, name) {
				return ""
			}
			return getenv(name)
		})
	}
	return out
}

// target fills what the hook runs: a command, or for type: http a URL; false means the
// entry is skipped.
func (p *parser) target(h *Hook, where string, entry *yaml.Node, fields map[string]*yaml.Node) bool {
	typ := "command"
	if n := fields["type"]; !isNull(n) {
		typ = strings.ToLower(strings.TrimSpace(n.Value))
		if n.Kind != yaml.ScalarNode || !slices.Contains(Types, typ) {
			p.warn(n, "%s: unknown type %q (known: %s); skipped", where, n.Value, strings.Join(Types, ", "))
			return false
		}
	}
	if typ != TypeHTTP {
		for _, k := range []string{"url", "headers", "allowed_env_vars", "allow_private_network"} {
			if n := fields[k]; n != nil {
				p.warn(n, "%s: %s is only read with type: http; ignored", where, k)
			}
		}
		return p.command(h, where, entry, fields["command"])
	}
	if n := fields["command"]; n != nil {
		p.warn(n, "%s: command is ignored with type: http (the hook POSTs to its url)", where)
	}
	h.Type = TypeHTTP
	return p.httpTarget(h, where, entry, fields)
}

// httpTarget reads url, headers, allowed_env_vars and allow_private_network.
func (p *parser) httpTarget(h *Hook, where string, entry *yaml.Node, fields map[string]*yaml.Node) bool {
	n := fields["url"]
	if n == nil || n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		at := entry
		if n != nil {
			at = n
		}
		p.warn(at, "%s: type: http needs a non-empty string 'url'; skipped", where)
		return false
	}
	raw := strings.TrimSpace(n.Value)
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		p.warn(n, "%s: url %q is not an http:// or https:// URL; skipped", where, netguard.RedactURL(raw))
		return false
	case u.User != nil:
		p.warn(n, "%s: url must not carry credentials (user:password@); put them in a header whose value names an environment variable listed in allowed_env_vars; skipped", where)
		return false
	}
	t := &HTTPTarget{URL: raw, Headers: map[string]string{}}
	if n := fields["allowed_env_vars"]; !isNull(n) {
		if n.Kind != yaml.SequenceNode {
			p.warn(n, "%s: allowed_env_vars must be a list of variable names; no variable is allowed", where)
		} else {
			for _, v := range n.Content {
				t.AllowedEnvVars = append(t.AllowedEnvVars, strings.TrimPrefix(strings.TrimSpace(v.Value), "$"))
			}
		}
	}
	p.headers(t, where, fields["headers"])
	if n := fields["allow_private_network"]; !isNull(n) {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			p.warn(n, "%s: allow_private_network must be true or false; private addresses stay refused", where)
		} else {
			t.AllowPrivate = n.Value == "true"
		}
	}
	h.Command, h.HTTP = raw, t
	return true
}

// headers reads the headers mapping; a reference to a variable not in allowed_env_vars is
// a warning (it is sent as "", as Claude Code does).
func (p *parser) headers(t *HTTPTarget, where string, n *yaml.Node) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.warn(n, "%s: headers must be a mapping of header name to value; no header sent", where)
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if v.Kind != yaml.ScalarNode {
			p.warn(v, "%s: header %q must be a string; not sent", where, k.Value)
			continue
		}
		t.Headers[k.Value] = v.Value
		for _, m := range envRef().FindAllStringSubmatch(v.Value, -1) {
			if name := m[1] + m[2]; !slices.Contains(t.AllowedEnvVars, name) {
				p.warn(v, "%s: header %q names $%s, which allowed_env_vars does not list: it is sent as an empty string", where, k.Value, name)
			}
		}
	}
}
