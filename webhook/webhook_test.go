package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"gopkg.in/yaml.v3"
)

// counts is an Observer that counts.
type counts struct {
	mu                         sync.Mutex
	delivered, failed, retries int
	drops                      map[hookspec.DropReason]int
}

func (c *counts) WebhookDelivered(name, event string, attempts int, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.delivered++
}

func (c *counts) WebhookAttemptFailed(name, event string, retry bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed++
	if retry {
		c.retries++
	}
}

func (c *counts) WebhookDropped(name, event string, reason hookspec.DropReason) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.drops == nil {
		c.drops = map[hookspec.DropReason]int{}
	}
	c.drops[reason]++
}

func endpoints(t *testing.T, text string) []*Endpoint {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	eps, warns := Parse("config.yaml", n.Content[0], func(s string) bool { return s == "pre_tool_call" || s == "post_tool_call" || s == "agent:end" })
	if len(warns) > 0 {
		t.Fatalf("warnings: %v", warns)
	}
	return eps
}

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func getenv(name string) string {
	if name == "HOOK_SECRET" {
		return secret
	}
	return ""
}

// The signature of the specification's example, as its reference library computes it.
func TestSignMatchesTheSpecificationVector(t *testing.T) {
	key, err := DecodeSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	for _, bad := range []string{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!", "whsec_c2hvcnQ="} {
		if _, err := DecodeSecret(bad); !errors.Is(err, ErrSecret) {
			t.Errorf("DecodeSecret(%q) = %v, want ErrSecret", bad, err)
		}
	}
}

// Every delivery verifies with the Standard Webhooks library, with the event's payload;
// the matcher and the events list choose what is sent.
func TestDeliveriesVerifyWithTheStandardWebhooksLibrary(t *testing.T) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		err  error
		body map[string]any
		id   string
	}
	received := make(chan got, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		g := got{err: wh.Verify(body, r.Header), id: r.Header.Get(HeaderID)}
		json.Unmarshal(body, &g.body)
		received <- g
	}))
	defer srv.Close()
	eps := endpoints(t, `
- name: audit
  url: `+srv.URL+`/hook
  events: [pre_tool_call, "agent:*"]
  matcher: "terminal|file"
  secret_env: HOOK_SECRET
  allow_private_network: true
`)
	c := &counts{}
	d := New(eps, Options{Getenv: getenv, Observer: c})
	d.Notify("pre_tool_call", map[string]any{"tool_name": "terminal", "tool_input": map[string]any{"command": "ls"}})
	d.Notify("pre_tool_call", map[string]any{"tool_name": "terminal2"}) // the matcher says no
	d.Notify("post_tool_call", map[string]any{"tool_name": "terminal"}) // not subscribed
	d.Notify("agent:end", map[string]any{"response": "done"})
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(received)
	var types []string
	ids := map[string]bool{}
	for g := range received {
		if g.err != nil {
			t.Errorf("delivery %s does not verify: %v", g.id, g.err)
		}
		types = append(types, g.body["type"].(string))
		ids[g.id] = true
	}
	if strings.Join(types, ",") != "pre_tool_call,agent:end" || len(ids) != 2 || c.delivered != 2 {
		t.Errorf("delivered %v (ids %v, counted %d), want pre_tool_call then agent:end, distinct ids", types, ids, c.delivered)
	}
}

// A delivery captured and sent again later is refused by the receiver's timestamp check,
// and its timestamp cannot be refreshed without the secret.
func TestReplayedDeliveryRejectedByTimestamp(t *testing.T) {
	wh, _ := standardwebhooks.NewWebhook(secret)
	key, _ := DecodeSecret(secret)
	body := []byte(`{"type":"pre_tool_call","timestamp":"2026-01-01T00:00:00Z","data":{}}`)
	sent := time.Now().Add(-6 * time.Minute) // captured six minutes ago
	h := http.Header{}
	h.Set(HeaderID, "msg_1")
	h.Set(HeaderTimestamp, itoa(sent.Unix()))
	h.Set(HeaderSignature, Sign(key, "msg_1", sent, body))
	if err := wh.VerifyIgnoringTimestamp(body, h); err != nil {
		t.Fatalf("the captured delivery itself is not validly signed: %v", err)
	}
	if err := wh.Verify(body, h); !errors.Is(err, standardwebhooks.ErrMessageTooOld) {
		t.Errorf("replay: %v, want ErrMessageTooOld", err)
	}
	if err := Verify(key, "msg_1", itoa(sent.Unix()), h.Get(HeaderSignature), body, time.Now(), 5*time.Minute); err == nil {
		t.Error("our Verify accepted the replay")
	}
	h.Set(HeaderTimestamp, itoa(time.Now().Unix())) // refreshed by the attacker
	if err := wh.Verify(body, h); !errors.Is(err, standardwebhooks.ErrNoMatchingSignature) {
		t.Errorf("refreshed timestamp: %v, want ErrNoMatchingSignature", err)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// An endpoint that is down: each delivery is tried MaxAttempts times, then dropped and counted.
func TestEndpointDownRetriesThenDrops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"
	ln.Close() // nothing listens there any more
	eps := endpoints(t, "- {name: down, url: \""+url+"\", events: [pre_tool_call], secret_env: HOOK_SECRET, allow_private_network: true}\n")
	c := &counts{}
	d := New(eps, Options{Getenv: getenv, Observer: c, MaxAttempts: 3, Backoff: time.Millisecond})
	d.Notify("pre_tool_call", map[string]any{"tool_name": "terminal"})
	d.Notify("pre_tool_call", map[string]any{"tool_name": "terminal"})
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.failed != 6 || c.retries != 4 || c.drops[hookspec.DropFailed] != 2 || c.delivered != 0 {
		t.Errorf("failed %d, retries %d, drops %v, delivered %d; want 6 attempts, 4 retries, 2 dropped as failed", c.failed, c.retries, c.drops, c.delivered)
	}
}

// Notify never waits for an endpoint: with the receiver stuck, every call returns, what does
// not fit the queue is dropped and counted, and nothing is lost without being counted.
func TestNotifyNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	eps := endpoints(t, "- {name: stuck, url: \""+srv.URL+"\", events: [\"*\"], secret_env: HOOK_SECRET, allow_private_network: true}\n")
	c := &counts{}
	d := New(eps, Options{Getenv: getenv, Observer: c, QueueSize: 2})
	const n = 100
	for range n {
		d.Notify("pre_tool_call", map[string]any{"tool_name": "terminal"})
	}
	close(release)
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.drops[hookspec.DropQueueFull] < n-3 || c.delivered+c.drops[hookspec.DropQueueFull] != n {
		t.Errorf("delivered %d, dropped %v of %d; want at most 3 taken while stuck, every other one counted as dropped", c.delivered, c.drops, n)
	}
	d.Notify("pre_tool_call", nil)
	if c.drops[hookspec.DropClosed] != 1 {
		t.Errorf("after Close: drops %v, want one closed", c.drops)
	}
}

func TestPrivateEndpointRefusedByDefault(t *testing.T) {
	var allowed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed.Load() {
			t.Error("a refused address was reached")
		}
		w.Write([]byte("thanks"))
	}))
	defer srv.Close()
	eps := endpoints(t, "- {name: local, url: \""+srv.URL+"\", events: [\"*\"], secret_env: HOOK_SECRET}\n")
	c := &counts{}
	d := New(eps, Options{Getenv: getenv, Observer: c, Backoff: time.Millisecond})
	d.Notify("pre_tool_call", nil)
	d.Close(context.Background())
	if c.failed != 1 || c.retries != 0 || c.drops[hookspec.DropFailed] != 1 {
		t.Errorf("failed %d, retries %d, drops %v: a refused address fails once, without retries", c.failed, c.retries, c.drops)
	}
	a, err := New(eps, Options{Getenv: getenv}).Test(context.Background(), "local", "pre_tool_call", nil)
	if err != nil || !strings.Contains(a.Err, "loopback") {
		t.Errorf("Test: %+v, %v; want the loopback refusal", a, err)
	}
	d2 := New(eps, Options{Getenv: getenv, AllowedURLs: []string{srv.URL + "*"}})
	defer d2.Close(context.Background())
	allowed.Store(true)
	if a, err := d2.Test(context.Background(), "local", "pre_tool_call", nil); err != nil || a.Status != 200 || a.Body != "thanks" {
		t.Errorf("allowed by policy: %+v, %v", a, err)
	}
}

func TestNoSecretSendsNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("an unsigned delivery was sent") }))
	defer srv.Close()
	eps := endpoints(t, "- {name: x, url: \""+srv.URL+"\", events: [\"*\"], secret_env: MISSING, allow_private_network: true}\n")
	c := &counts{}
	d := New(eps, Options{Getenv: getenv, Observer: c})
	d.Notify("pre_tool_call", nil)
	d.Close(context.Background())
	if c.drops[hookspec.DropNoSecret] != 1 {
		t.Errorf("drops %v, want one no_secret", c.drops)
	}
}

func TestParseWarnings(t *testing.T) {
	var n yaml.Node
	yaml.Unmarshal([]byte(`
- {name: a, url: "ftp://x", events: ["*"], secret_env: S}
- {name: b, url: "https://u:p@x/", events: ["*"], secret_env: S}
- {name: c, url: "https://x/", events: [pre_tool_cal], secret_env: S}
- {url: "https://x/", events: ["*"], secret_env: S}
- {name: e, url: "https://x/", events: ["*"], secret_env: S, matcher: "("}
- {name: f, url: "https://x/", events: ["*"], secret_env: S, secert: 1}
- {name: f, url: "https://x/", events: ["*"], secret_env: S}
`), &n)
	eps, warns := Parse("config.yaml", n.Content[0], func(s string) bool { return s == "pre_tool_call" })
	if len(eps) != 1 || eps[0].Name != "f" {
		t.Errorf("endpoints %v, want only the first f", eps)
	}
	all := ""
	for _, w := range warns {
		all += w.String() + "\n"
	}
	for _, want := range []string{"(a): url must be", "(b): url must be", `unknown event "pre_tool_cal"`, `missing a non-empty string "name"`, "not a valid regular expression", `unknown key "secert"`, `name "f" is used twice`} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "u:p@") {
		t.Errorf("a warning shows credentials:\n%s", all)
	}
}

// FuzzParse: any webhooks: value parses without panicking, and every endpoint it keeps has
// what a delivery needs.
func FuzzParse(f *testing.F) {
	f.Add("- {name: a, url: \"https://x/\", events: [\"*\"], secret_env: S, matcher: t, timeout: 5}")
	f.Add("- {name: a, url: \"http://u@x/\", events: [agent:*], secret_env: S}\n- [1]\n- {name: a}")
	f.Add("{}")
	f.Fuzz(func(t *testing.T, text string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(text), &n) != nil || len(n.Content) == 0 {
			return
		}
		eps, _ := Parse("config.yaml", n.Content[0], func(string) bool { return true })
		names := map[string]bool{}
		for _, ep := range eps {
			if ep.Name == "" || ep.SecretEnv == "" || len(ep.Events) == 0 || ep.Timeout < time.Second || ep.Timeout > MaxTimeout || names[ep.Name] {
				t.Fatalf("endpoint %+v kept", ep)
			}
			if u := strings.ToLower(ep.URL); !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				t.Fatalf("url %q kept", ep.URL)
			}
			names[ep.Name] = true
			ep.Wants("pre_tool_call", "terminal")
		}
	})
}
