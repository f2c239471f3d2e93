package http

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

func TestHTTPNetRules(t *testing.T) {
	rules := parseNetRules([]string{"API.Telegram.org", "127.0.0.1:8080", "[::1]:9", "::2", "https://hooks.example.com/x"})
	tests := []struct {
		host, port string
		want       bool
	}{
		{"api.telegram.org", "443", true},
		{"API.TELEGRAM.ORG", "80", true},
		{"evil.telegram.org", "443", false},
		{"127.0.0.1", "8080", true},
		{"127.0.0.1", "8081", false},
		{"::1", "9", true},
		{"[::1]", "9", true},
		{"::1", "10", false},
		{"::2", "1", true},
		{"hooks.example.com", "1", true},
		{"example.com", "443", false},
	}
	for _, tt := range tests {
		if got := rules.allows(tt.host, tt.port); got != tt.want {
			t.Errorf("allows(%q, %q) = %v, want %v", tt.host, tt.port, got, tt.want)
		}
	}
	if !parseNetRules([]string{"*"}).allows("anything.example", "1") {
		t.Error(`"*" does not allow every host`)
	}
}

func TestHTTPProxyOnlyWhenAllowed(t *testing.T) {
	proxy, _ := url.Parse("http://proxy.internal:3128")
	lookup := func(*http.Request) (*url.URL, error) { return proxy, nil }
	req := httptest.NewRequest("GET", "https://api.example.com/", nil)
	for _, tt := range []struct {
		net  []string
		want *url.URL
	}{
		{[]string{"api.example.com"}, nil},
		{[]string{"api.example.com", "proxy.internal:3128"}, proxy},
		{[]string{"api.example.com", "proxy.internal:8080"}, nil},
	} {
		got, err := allowedProxy(parseNetRules(tt.net), lookup)(req)
		if err != nil || got != tt.want {
			t.Errorf("net %v: proxy = %v, %v; want %v", tt.net, got, err, tt.want)
		}
	}
}
