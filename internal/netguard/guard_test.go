package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckRefusesNonPublicAddresses(t *testing.T) {
	refused := []string{
		"127.0.0.1:80", "127.9.9.9:80", "[::1]:443", "10.1.2.3:80", "172.16.0.1:80", "192.168.1.1:80",
		"169.254.169.254:80", "[fe80::1]:80", "[fd00:ec2::254]:80", "100.100.100.200:80",
		"0.0.0.0:80", "[::]:80", "224.0.0.1:80", "[::ffff:127.0.0.1]:80", "[::ffff:169.254.169.254]:80",
		"[64:ff9b::a9fe:a9fe]:80", "[2002:7f00:1::]:80", "[2002:a00:1::1]:80",
	}
	for _, a := range refused {
		if err := Check(a); !errors.Is(err, ErrRefused) {
			t.Errorf("Check(%s) = %v, want refused", a, err)
		}
	}
	for _, a := range []string{"93.184.216.34:443", "[2606:4700::1111]:443", "8.8.8.8:53", "[64:ff9b::808:808]:53", "[2002:808:808::]:53"} {
		if err := Check(a); err != nil {
			t.Errorf("Check(%s) = %v, want allowed", a, err)
		}
	}
}

func TestMatchURL(t *testing.T) {
	cases := []struct {
		pattern, url string
		want         bool
	}{
		{"https://hooks.example.com/*", "https://hooks.example.com/guard", true},
		{"https://hooks.example.com/*", "https://hooks.example.com.evil.net/guard", false},
		{"https://hooks.example.com/guard", "https://hooks.example.com/guard", true},
		{"https://hooks.example.com/guard", "https://hooks.example.com/guard2", false},
		{"http://127.0.0.1:*/hook", "http://127.0.0.1:8080/hook", true},
		{"http://127.0.0.1:*/hook", "http://127.0.0.1:8080/hook/x", false},
		{"*", "anything", true},
		{"https://*.example.com/*", "https://a.example.com/x", true},
		{"a*b*c", "abc", true},
		{"a*bc", "abc", true},
		{"ab*bc", "abc", false},
	}
	for _, c := range cases {
		if got := MatchURL(c.pattern, c.url); got != c.want {
			t.Errorf("MatchURL(%q, %q) = %v, want %v", c.pattern, c.url, got, c.want)
		}
	}
}

func okServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientRefusesLoopbackByDefault(t *testing.T) {
	srv := okServer(t)
	_, err := Options{}.Client(srv.URL).Get(srv.URL)
	var re *RefusedError
	if !errors.As(err, &re) || re.Reason != "loopback" {
		t.Fatalf("got %v, want a refusal of the loopback address", err)
	}
	if !strings.Contains(Describe(err, srv.URL, 0), "allow_private_network") {
		t.Errorf("the message does not say how to allow it: %s", Describe(err, srv.URL, 0))
	}
}

// A host name is checked on the address it resolves to, not on its text.
func TestClientChecksTheResolvedAddress(t *testing.T) {
	srv := okServer(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, name := range []string{"localhost", "hooks.example.com"} {
		url := "http://" + name + ":" + port + "/"
		opts := Options{Resolver: pointAt("127.0.0.1")}
		if _, err := opts.Client(url).Get(url); !errors.Is(err, ErrRefused) {
			t.Errorf("%s resolving to loopback: got %v, want refused", name, err)
		}
		opts.AllowPrivate = true
		resp, err := opts.Client(url).Get(url)
		if err != nil {
			t.Fatalf("%s with allow_private_network: %v", name, err)
		}
		resp.Body.Close()
	}
}

func TestClientAllowedURLPattern(t *testing.T) {
	srv := okServer(t)
	opts := Options{AllowedURLs: []string{"http://127.0.0.1:*/allowed/*"}}
	resp, err := opts.Client(srv.URL + "/allowed/x").Get(srv.URL + "/allowed/x")
	if err != nil {
		t.Fatalf("allowed pattern: %v", err)
	}
	resp.Body.Close()
	if _, err := opts.Client(srv.URL + "/other").Get(srv.URL + "/other"); !errors.Is(err, ErrRefused) {
		t.Errorf("URL outside the pattern: got %v, want refused", err)
	}
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	var followed bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			followed = true
		}
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	resp, err := Options{AllowPrivate: true}.Client(srv.URL).Get(srv.URL + "/start")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || followed {
		t.Errorf("status %d, followed %v; want the 302 itself, not followed", resp.StatusCode, followed)
	}
}

func TestReadBodyCaps(t *testing.T) {
	b, err := ReadBody(strings.NewReader(strings.Repeat("x", 11)), 10)
	if !errors.Is(err, ErrBodyTooLarge) || len(b) != 10 {
		t.Errorf("got %d bytes, %v; want 10 and ErrBodyTooLarge", len(b), err)
	}
	b, err = ReadBody(strings.NewReader(strings.Repeat("x", 10)), 10)
	if err != nil || len(b) != 10 {
		t.Errorf("got %d bytes, %v; want 10 and no error", len(b), err)
	}
}

func TestRedact(t *testing.T) {
	got := RedactURL("https://user:pw@h.example/p?token=abc&x=1")
	if strings.Contains(got, "pw") || strings.Contains(got, "abc") || !strings.Contains(got, "h.example/p") {
		t.Errorf("RedactURL = %s", got)
	}
	h := RedactHeaders(map[string]string{"Authorization": "Bearer s3cret"})
	if len(h) != 1 || strings.Contains(h[0], "s3cret") {
		t.Errorf("RedactHeaders = %v", h)
	}
}

// pointAt is a resolver that answers every name with ip, through a tiny DNS server of
// its own (a Go resolver dials it instead of the system's).
func pointAt(ip string) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		client, server := net.Pipe()
		go serveDNS(server, net.ParseIP(ip).To4())
		return client, nil
	}}
}

// FuzzMatchURL holds MatchURL to the meaning of its patterns: `*` is any run of characters,
// everything else is literal, and the whole URL must match (compared with a regexp built
// from the pattern).
func FuzzMatchURL(f *testing.F) {
	for _, s := range [][2]string{{"https://h/*", "https://h/x"}, {"a*b*c", "abc"}, {"ab*bc", "abc"}, {"*", ""}, {"**x", "yx"}, {"http://127.0.0.1:*/g", "http://127.0.0.1:80/g"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, url string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(url) {
			t.Skip("the regexp oracle needs UTF-8")
		}
		parts := strings.Split(pattern, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re := regexp.MustCompile(`^(?s:` + strings.Join(parts, ".*") + `)$`)
		if got, want := MatchURL(pattern, url), re.MatchString(url); got != want {
			t.Errorf("MatchURL(%q, %q) = %v, want %v", pattern, url, got, want)
		}
	})
}
