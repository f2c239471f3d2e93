package ocibundle

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// session speaks the OCI distribution API to one repository: anonymously first, then, on
// a 401, with what the challenge asks for (a bearer token from the token service, or the
// Docker configuration's credentials as basic auth), once per request.
type session struct {
	client *http.Client
	ref    Reference
	base   string // scheme://host of the registry
	scope  string // repository:<name>:pull or pull,push
}

// tokens holds the Authorization a registry took, per host and scope, for the process.
var tokens struct {
	sync.Mutex
	m map[string]string
}

func newSession(ref Reference, client *http.Client, actions string) *session {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := plainHTTP(req.URL); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	scheme := "https"
	if Loopback(ref.host()) {
		scheme = "http"
	}
	return &session{client: &c, ref: ref, base: scheme + "://" + ref.host(), scope: "repository:" + ref.Repository + ":" + actions}
}

// plainHTTP refuses plain HTTP to anything but a loopback address.
func plainHTTP(u *url.URL) error {
	if u.Scheme != "https" && !(u.Scheme == "http" && Loopback(u.Host)) {
		return fmt.Errorf("refusing %s://%s: only https, or http to a loopback address", u.Scheme, u.Host)
	}
	return nil
}

// url is the address of the API path p (/manifests/..., /blobs/...) of the repository.
func (s *session) url(p string) string { return s.base + "/v2/" + s.ref.Repository + p }

// do sends a request (body may be nil), authorizing it when the registry asks to.
func (s *session) do(ctx context.Context, method, rawURL string, header http.Header, body []byte) (*http.Response, error) {
	key := s.ref.host() + " " + s.scope
	tokens.Lock()
	authz := tokens.m[key]
	tokens.Unlock()
	resp, err := s.send(ctx, method, rawURL, header, body, authz)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	drain(resp)
	if authz, err = s.authorize(ctx, challenge); err != nil {
		return nil, err
	}
	tokens.Lock()
	if tokens.m == nil {
		tokens.m = map[string]string{}
	}
	tokens.m[key] = authz
	tokens.Unlock()
	return s.send(ctx, method, rawURL, header, body, authz)
}

func (s *session) send(ctx context.Context, method, rawURL string, header http.Header, body []byte, authz string) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, r)
	if err != nil {
		return nil, err
	}
	if err := plainHTTP(req.URL); err != nil {
		return nil, err
	}
	maps.Copy(req.Header, header)
	if authz != "" && req.URL.Host == s.ref.host() {
		req.Header.Set("Authorization", authz)
	}
	return s.client.Do(req)
}

// drain reads a little of a response body, so that the connection can be reused, and
// closes it.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
}

// authorize answers a WWW-Authenticate challenge with the value of an Authorization
// header, from the Docker configuration's credentials for the registry.
func (s *session) authorize(ctx context.Context, challenge string) (string, error) {
	scheme, params := parseChallenge(challenge)
	cred, err := dockerCredential(ctx, s.ref.host())
	if err != nil {
		return "", fmt.Errorf("reading the Docker credentials for %s: %v", s.ref.Registry, err)
	}
	switch scheme {
	case "basic":
		if cred.Username == "" && cred.Password == "" {
			return "", fmt.Errorf("%s asks for credentials and the Docker configuration has none for it: docker login %s", s.ref.Registry, s.ref.Registry)
		}
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(cred.Username+":"+cred.Password)), nil
	case "bearer":
		if cred.RegistryToken != "" {
			return "Bearer " + cred.RegistryToken, nil
		}
		tok, err := s.token(ctx, params, cred)
		if err != nil {
			return "", err
		}
		return "Bearer " + tok, nil
	}
	return "", fmt.Errorf("%s answers 401 with no challenge this client knows (%q)", s.ref.Registry, challenge)
}

// token asks the token service of a bearer challenge for a token of the challenge's
// scope and the session's: with the identity token, else basic auth with the user and
// password, else anonymously.
func (s *session) token(ctx context.Context, params map[string]string, cred credential) (string, error) {
	realm, err := url.Parse(params["realm"])
	if err != nil || realm.Host == "" {
		return "", fmt.Errorf("%s answers 401 with a bearer challenge of no valid realm (%q)", s.ref.Registry, params["realm"])
	}
	if err := plainHTTP(realm); err != nil {
		return "", fmt.Errorf("the token service of %s: %v", s.ref.Registry, err)
	}
	q := url.Values{}
	if params["service"] != "" {
		q.Set("service", params["service"])
	}
	for _, sc := range []string{params["scope"], s.scope} {
		if sc != "" && !strings.Contains(" "+strings.Join(q["scope"], " ")+" ", " "+sc+" ") {
			q.Add("scope", sc)
		}
	}
	var req *http.Request
	if cred.IdentityToken != "" {
		q.Set("grant_type", "refresh_token")
		q.Set("refresh_token", cred.IdentityToken)
		q.Set("client_id", "hermesctl")
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, realm.String(), strings.NewReader(q.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		realm.RawQuery = mergeQuery(realm.RawQuery, q)
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, realm.String(), nil)
		if err == nil && (cred.Username != "" || cred.Password != "") {
			req.SetBasicAuth(cred.Username, cred.Password)
		}
	}
	if err != nil {
		return "", err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if cred.empty() {
			hint = ": the Docker configuration has no credentials for it (docker login " + s.ref.Registry + ")"
		}
		return "", fmt.Errorf("the token service %s of %s answers %s%s", redact(realm), s.ref.Registry, resp.Status, hint)
	}
	var body struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil {
		return "", fmt.Errorf("the token service %s of %s: %v", redact(realm), s.ref.Registry, err)
	}
	if body.Token == "" {
		body.Token = body.AccessToken
	}
	if body.Token == "" {
		return "", fmt.Errorf("the token service %s of %s gave no token", redact(realm), s.ref.Registry)
	}
	return body.Token, nil
}

func mergeQuery(raw string, q url.Values) string {
	if raw == "" {
		return q.Encode()
	}
	return raw + "&" + q.Encode()
}

// redact is u without its query and credentials.
func redact(u *url.URL) string { return u.Scheme + "://" + u.Host + u.Path }

// parseChallenge reads `Scheme k="v", k2=v2`: the scheme in lower case and its parameters
// (keys in lower case; a quoted value may hold commas and backslash escapes).
func parseChallenge(h string) (string, map[string]string) {
	scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	params := map[string]string{}
	for rest = strings.TrimSpace(rest); rest != ""; {
		key, after, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		key = strings.ToLower(strings.TrimSpace(key))
		var val strings.Builder
		i := 0
		if strings.HasPrefix(after, `"`) {
			for i = 1; i < len(after) && after[i] != '"'; i++ {
				if after[i] == '\\' && i+1 < len(after) {
					i++
				}
				val.WriteByte(after[i])
			}
			i++ // the closing quote
		} else {
			for ; i < len(after) && after[i] != ','; i++ {
				val.WriteByte(after[i])
			}
		}
		params[key] = strings.TrimSpace(val.String())
		rest = strings.TrimLeft(after[min(i, len(after)):], ", \t")
	}
	return strings.ToLower(scheme), params
}

// statusError describes a response the registry should not have given, with the code and
// message of its error body (OCI distribution spec) when it has one.
func statusError(resp *http.Response) error {
	defer drain(resp)
	what := resp.Request.Method + " " + redact(resp.Request.URL) + ": " + resp.Status
	var body struct {
		Errors []struct{ Code, Message string }
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<10)).Decode(&body) == nil && len(body.Errors) > 0 {
		what += ": " + body.Errors[0].Code + ": " + body.Errors[0].Message
	}
	return errors.New(what)
}
