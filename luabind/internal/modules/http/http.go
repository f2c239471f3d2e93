package http

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// Limits of the http module.
const (
	httpDefaultTimeout = 10 * time.Second
	httpMaxBody        = 1 << 20 // response bytes; a longer response is an error
	httpMaxRedirects   = 5
)

// netRule is one parsed permissions.net entry: a host name or IP, with a port or any port.
type netRule struct {
	host, port string // lower-case host without brackets; "" port = any
	any        bool   // "*"
}

type netRules []netRule

// parseNetRules reads permissions.net: "host", "host:port", "[::1]:port", "::1", "*". A URL
// ("https://host/...") is accepted for its host.
func parseNetRules(entries []string) netRules {
	rules := make(netRules, 0, len(entries))
	for _, entry := range entries {
		entry = strings.ToLower(strings.TrimSpace(entry))
		if entry == "*" {
			rules = append(rules, netRule{any: true})
			continue
		}
		if strings.Contains(entry, "://") {
			if u, err := url.Parse(entry); err == nil && u.Host != "" {
				entry = u.Host
			}
		}
		if host, port, err := net.SplitHostPort(entry); err == nil {
			rules = append(rules, netRule{host: host, port: port})
			continue
		}
		rules = append(rules, netRule{host: strings.Trim(entry, "[]")})
	}
	return rules
}

// allows reports whether host:port may be reached.
func (rs netRules) allows(host, port string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, r := range rs {
		if r.any || r.host == host && (r.port == "" || r.port == port) {
			return true
		}
	}
	return false
}

func (rs netRules) allowsURL(u *url.URL) bool { return rs.allows(u.Hostname(), urlPort(u)) }

func urlPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// refusedError is a connection permissions.net does not allow.
type refusedError struct {
	what       string // "host", "redirect to host", "proxy"
	host, port string
	rules      netRules
}

func (e *refusedError) Error() string {
	target := fmt.Sprintf("host %q", e.host)
	for _, r := range e.rules {
		if r.host == strings.ToLower(e.host) && r.port != "" {
			target = fmt.Sprintf("host %q on port %s", e.host, e.port)
			break
		}
	}
	if e.what != "" {
		target = e.what + " " + target
	}
	return fmt.Sprintf("%s is not in permissions.net (add it to the manifest to allow it)", target)
}

// allowedProxy uses the proxy lookup names (HTTPS_PROXY, ...) only when permissions.net
// allows the proxy itself; otherwise requests go direct.
func allowedProxy(rules netRules, lookup func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		u, err := lookup(req)
		if err != nil || u == nil || !rules.allowsURL(u) {
			return nil, nil
		}
		return u, nil
	}
}

// newHTTPClient builds a state's client: every connection, redirect and proxy is checked
// against rules before it is made.
func newHTTPClient(rules netRules) *http.Client {
	dialer := &net.Dialer{Timeout: httpDefaultTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy: allowedProxy(rules, http.ProxyFromEnvironment),
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if !rules.allows(host, port) {
				return nil, &refusedError{host: host, port: port, rules: rules}
			}
			return dialer.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          8,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   httpDefaultTimeout,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > httpMaxRedirects {
				return fmt.Errorf("stopped after %d redirects", httpMaxRedirects)
			}
			if !rules.allowsURL(req.URL) {
				return &refusedError{what: "redirect to", host: req.URL.Hostname(), port: urlPort(req.URL), rules: rules}
			}
			return nil
		},
	}
}

// httpRequest is one request as Lua described it.
type httpRequest struct {
	method, url string
	headers     map[string]string
	body        []byte
	isJSON      bool
	timeout     time.Duration
}

// Module is the http module of one hook: the hosts its permissions.net allows, and the
// version the User-Agent names.
type Module struct {
	Net     []string
	Version string
}

// Instance is the http module in one state: its own client, whose idle connections Close
// closes.
type Instance struct {
	vu      modules.VU
	version string
	rules   netRules
	client  *http.Client
}

var (
	_ modules.Module   = Module{}
	_ modules.Instance = (*Instance)(nil)
	_ modules.Closer   = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (m Module) NewModuleInstance(vu modules.VU) modules.Instance {
	rules := parseNetRules(m.Net)
	return &Instance{vu: vu, version: m.Version, rules: rules, client: newHTTPClient(rules)}
}

// Close implements modules.Closer.
func (e *Instance) Close() { e.client.CloseIdleConnections() }

// Exports implements modules.Instance: request{...}, get(url, opts?), post(url, body, opts?).
func (e *Instance) Exports() lua.LValue {
	L := e.vu.Runtime()
	do := func(L *lua.LState, fn string, r httpRequest) (lua.LValue, error) {
		return e.doHTTP(L, fn, r), nil
	}
	orEmpty := func(L *lua.LState, o modules.Opt[*lua.LTable]) *lua.LTable {
		if o.Set {
			return o.V
		}
		return L.NewTable()
	}
	return modules.FuncTable(L, map[string]lua.LGFunction{
		"request": modules.Fn1(func(L *lua.LState, t *lua.LTable) (lua.LValue, error) {
			return do(L, "http.request", e.requestFromTable(L, "http.request", t, true))
		}),
		"get": modules.Fn2(func(L *lua.LState, url string, opts modules.Opt[*lua.LTable]) (lua.LValue, error) {
			r := e.requestFromTable(L, "http.get", orEmpty(L, opts), false)
			r.method, r.url = http.MethodGet, url
			return do(L, "http.get", r)
		}),
		"post": modules.Fn3(func(L *lua.LState, url string, body lua.LValue, opts modules.Opt[*lua.LTable]) (lua.LValue, error) {
			r := e.requestFromTable(L, "http.post", orEmpty(L, opts), false)
			r.method, r.url = http.MethodPost, url
			switch body := body.(type) {
			case lua.LString:
				r.body = []byte(body)
			case *lua.LTable:
				r.body, r.isJSON = e.encodeBody(L, "http.post", body), true
			case *lua.LNilType:
			default:
				return nil, &modules.ArgError{N: 2, Msg: "string or table expected, got " + body.Type().String()}
			}
			return do(L, "http.post", r)
		}),
	})
}

// requestFromTable reads the request options; full allows url, method, body and json too.
func (e *Instance) requestFromTable(L *lua.LState, fn string, t *lua.LTable, full bool) httpRequest {
	r := httpRequest{method: http.MethodGet, headers: map[string]string{}, timeout: httpDefaultTimeout}
	hasBody := false
	t.ForEach(func(k, v lua.LValue) {
		key := lua.LVAsString(k)
		switch {
		case key == "headers":
			h, ok := v.(*lua.LTable)
			if !ok {
				L.RaiseError("%s: headers must be a table of strings", fn)
			}
			h.ForEach(func(name, value lua.LValue) { r.headers[lua.LVAsString(name)] = lua.LVAsString(value) })
		case key == "timeout":
			n, ok := v.(lua.LNumber)
			if !ok || n <= 0 {
				L.RaiseError("%s: timeout must be a positive number of seconds", fn)
			}
			r.timeout = time.Duration(float64(n) * float64(time.Second))
		case full && key == "url":
			r.url = lua.LVAsString(v)
		case full && key == "method":
			r.method = strings.ToUpper(lua.LVAsString(v))
		case full && (key == "body" || key == "json"):
			if hasBody {
				L.RaiseError("%s: give body or json, not both", fn)
			}
			hasBody = true
			if key == "json" {
				r.body, r.isJSON = e.encodeBody(L, fn, v), true
			} else {
				r.body = []byte(lua.LVAsString(v))
			}
		default:
			want := "headers, timeout"
			if full {
				want = "method, url, headers, body, json, timeout"
			}
			L.RaiseError("%s: unknown option %q (want %s)", fn, key, want)
		}
	})
	if full && r.url == "" {
		L.RaiseError("%s: url is required", fn)
	}
	return r
}

func (e *Instance) encodeBody(L *lua.LState, fn string, v lua.LValue) []byte {
	g, err := e.vu.ToGo(v)
	if err == nil {
		var b []byte
		if b, err = stdlib.MarshalJSON(g); err == nil {
			return b
		}
	}
	L.RaiseError("%s: cannot encode the body as JSON: %v", fn, err)
	return nil
}

// doHTTP makes the request under the call's context and r's timeout, and returns the
// response table. Every failure is raised as a Lua error.
func (e *Instance) doHTTP(L *lua.LState, fn string, r httpRequest) *lua.LTable {
	u, err := url.Parse(r.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		L.RaiseError("%s: invalid url %q (want http:// or https:// and a host)", fn, r.url)
	}
	if !e.rules.allowsURL(u) {
		L.RaiseError("http: %s", &refusedError{host: u.Hostname(), port: urlPort(u), rules: e.rules})
	}
	parent := limits.Context(L)
	ctx, cancel := context.WithTimeout(parent, r.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), bytes.NewReader(r.body))
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	if r.body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	req.Header.Set("User-Agent", "hermes/"+e.version)
	if r.isJSON {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.headers {
		if strings.EqualFold(k, "host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	what := r.method + " " + u.Host // never the path or query: they may hold tokens
	status, header, body, err := e.roundTrip(req)
	if err != nil {
		L.RaiseError("%s", httpError(ctx, parent, what, r.timeout, err))
	}
	null, arrayMeta := e.vu.JSON()
	return responseTable(L, null, arrayMeta, status, header, body)
}

// roundTrip sends req and reads at most httpMaxBody bytes of the answer. The call is
// marked as waiting meanwhile, so the memory guard does not count the host's allocations.
func (e *Instance) roundTrip(req *http.Request) (int, http.Header, []byte, error) {
	defer e.vu.Wait()()
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, httpMaxBody+1))
	if err != nil {
		return 0, nil, nil, err
	}
	if len(body) > httpMaxBody {
		return 0, nil, nil, fmt.Errorf("response body is larger than the %s limit", limits.ByteSize(httpMaxBody))
	}
	return resp.StatusCode, resp.Header, body, nil
}

// httpError phrases a failed request for the hook's author.
func httpError(ctx, parent context.Context, what string, timeout time.Duration, err error) string {
	var refused *refusedError
	switch {
	case errors.As(err, &refused):
		return "http: " + refused.Error()
	case parent.Err() != nil:
		return fmt.Sprintf("http: %s: interrupted: %v", what, parent.Err())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("http: %s: timed out after %s", what, timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Sprintf("http: %s: %v", what, err)
}

// responseTable is {status, headers (lower-case names), body, json (when JSON)}.
func responseTable(L *lua.LState, null *lua.LUserData, arrayMeta *lua.LTable, status int, header http.Header, body []byte) *lua.LTable {
	limits.ChargeString(L, len(body))
	res := L.CreateTable(0, 4)
	res.RawSetString("status", lua.LNumber(status))
	headers := L.CreateTable(0, len(header))
	for k, vs := range header {
		headers.RawSetString(strings.ToLower(k), lua.LString(strings.Join(vs, ", ")))
	}
	res.RawSetString("headers", headers)
	res.RawSetString("body", lua.LString(body))
	if mt, _, err := mime.ParseMediaType(header.Get("Content-Type")); err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		if v, err := stdlib.DecodeLua(L, string(body), 0, null, arrayMeta); err == nil {
			res.RawSetString("json", v)
		}
	}
	return res
}
