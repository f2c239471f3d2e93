package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
)

// httpHook parses one type: http pre_tool_call entry with the extra YAML lines.
func httpHook(t *testing.T, url string, extra ...string) *Hook {
	t.Helper()
	text := "hooks:\n  pre_tool_call:\n    - type: http\n      url: " + url + "\n"
	for _, e := range extra {
		text += "      " + e + "\n"
	}
	hooks, warns := ParseHooks("config.yaml", hooksNode(t, text), testEvents)
	if len(hooks) != 1 {
		t.Fatalf("parsed %d hooks (warnings %v), want 1", len(hooks), warns)
	}
	return hooks[0]
}

// answering is a server that answers every POST with status and body, recording what came.
func answering(t *testing.T, status int, body string) (*httptest.Server, chan *http.Request) {
	got := make(chan *http.Request, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		got <- r
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

var rmCall = map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"}, "session_id": "s1"}

func TestHTTPHookBlocks(t *testing.T) {
	t.Setenv("POLICY_TOKEN", "s3cret")
	srv, got := answering(t, 200, `{"action": "block", "message": "no rm"}`)
	h := httpHook(t, srv.URL+"/guard", "allow_private_network: true",
		"headers: {Authorization: 'Bearer $POLICY_TOKEN', X-Other: '${HOME}'}", "allowed_env_vars: [POLICY_TOKEN]")
	res := h.Run(context.Background(), rmCall, RunOptions{})
	if res.Status != hookspec.StatusOK || res.Answer.Kind != hookspec.Block || res.Answer.Message != "no rm" {
		t.Fatalf("got %+v, want a block with its message", res)
	}
	r := <-got
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("request %s %s, want a JSON POST", r.Method, r.Header.Get("Content-Type"))
	}
	if a := r.Header.Get("Authorization"); a != "Bearer s3cret" {
		t.Errorf("Authorization = %q, want the allowed variable filled", a)
	}
	if o := r.Header.Get("X-Other"); o != "" {
		t.Errorf("X-Other = %q: a variable not in allowed_env_vars must be sent empty", o)
	}
	var p map[string]any
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &p); err != nil || p["hook_event_name"] != "pre_tool_call" || p["tool_name"] != "terminal" {
		t.Errorf("body %s is not the command hooks' payload", b)
	}
}

func TestHTTPHookRewrites(t *testing.T) {
	srv, _ := answering(t, 200, `{"action": "modify", "args": {"command": "ls"}}`)
	res := httpHook(t, srv.URL, "allow_private_network: true").Run(context.Background(), rmCall, RunOptions{})
	if res.Answer.Kind != hookspec.Modify || res.Answer.Args["command"] != "ls" {
		t.Fatalf("got %+v, want the arguments rewritten", res.Answer)
	}
}

func TestHTTPHookClaudeDialect(t *testing.T) {
	srv, got := answering(t, 200, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "denied by policy"}}`)
	h := httpHook(t, srv.URL, "allow_private_network: true", "dialect: claude")
	res := h.Run(context.Background(), rmCall, RunOptions{})
	if res.Answer.Kind != hookspec.Block || !strings.Contains(res.Answer.Message, "denied by policy") {
		t.Fatalf("got %+v, want Claude Code's deny read as a block", res)
	}
	var p map[string]any
	b, _ := io.ReadAll((<-got).Body)
	json.Unmarshal(b, &p)
	if p["hook_event_name"] != "PreToolUse" || p["tool_name"] != "Bash" {
		t.Errorf("body %s is not Claude Code's payload", b)
	}
}

// A slow endpoint is bounded by the hook's timeout: it fails open, or blocks with fail_closed.
func TestHTTPHookTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	for _, fc := range []bool{false, true} {
		h := httpHook(t, srv.URL, "allow_private_network: true")
		h.Timeout, h.FailClosed = 50*time.Millisecond, fc
		res := h.Run(context.Background(), rmCall, RunOptions{})
		if res.Status != hookspec.StatusTimeout {
			t.Errorf("fail_closed=%v: status %s (%s), want timeout", fc, res.Status, res.Err)
		}
		if blocked := res.Answer.Kind == hookspec.Block; blocked != fc {
			t.Errorf("fail_closed=%v: blocked=%v (%q)", fc, blocked, res.Answer.Message)
		}
	}
}

func TestHTTPHookErrors(t *testing.T) {
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			t.Error("the redirect was followed")
		}
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirect.Close)
	s500, _ := answering(t, 500, `{"action": "allow"}`)
	huge, _ := answering(t, 200, `{"action": "block", "message": "`+strings.Repeat("x", 2000)+`"}`)
	notJSON, _ := answering(t, 200, "OK, logged")
	cases := []struct {
		name, url, want string
		private         bool
		max             int
	}{
		{"500", s500.URL, "answered 500", true, 0},
		{"redirect", redirect.URL + "/start", "redirect to /elsewhere not followed", true, 0},
		{"oversized", huge.URL, "answer exceeded 1024 bytes", true, 1024},
		{"not JSON", notJSON.URL, "not a JSON object", true, 0},
		{"loopback by default", s500.URL, "loopback address", false, 0},
		{"name resolving to loopback", strings.Replace(s500.URL, "127.0.0.1", "localhost", 1), "loopback address", false, 0},
		{"metadata service", "http://169.254.169.254/latest/meta-data/", "link-local", false, 0},
		{"private network", "http://10.0.0.7/guard", "private address", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, fc := range []bool{false, true} {
				extra := []string{}
				if c.private {
					extra = append(extra, "allow_private_network: true")
				}
				h := httpHook(t, c.url, extra...)
				h.FailClosed = fc
				res := h.Run(context.Background(), rmCall, RunOptions{MaxOutput: c.max})
				if res.Status != hookspec.StatusError || !strings.Contains(res.Err, c.want) {
					t.Errorf("fail_closed=%v: status %s, err %q; want error containing %q", fc, res.Status, res.Err, c.want)
				}
				if blocked := res.Answer.Kind == hookspec.Block; blocked != fc {
					t.Errorf("fail_closed=%v: blocked=%v (%q)", fc, blocked, res.Answer.Message)
				}
			}
		})
	}
}

// The managed policy's allowed_http_urls lets a named URL reach a private address.
func TestHTTPHookAllowedByPolicy(t *testing.T) {
	srv, _ := answering(t, 200, `{"action": "block", "message": "policy"}`)
	h := httpHook(t, srv.URL+"/guard")
	res := h.Run(context.Background(), rmCall, RunOptions{AllowedURLs: []string{"http://127.0.0.1:*/guard"}})
	if res.Answer.Kind != hookspec.Block {
		t.Fatalf("got %+v, want the policy-allowed URL reached", res)
	}
	res = h.Run(context.Background(), rmCall, RunOptions{AllowedURLs: []string{"http://127.0.0.1:*/other"}})
	if res.Status != hookspec.StatusError || !strings.Contains(res.Err, "loopback") {
		t.Fatalf("got %+v, want refused: the pattern names another URL", res)
	}
}

func TestHTTPHookConfigWarnings(t *testing.T) {
	text := `hooks:
  pre_tool_call:
    - type: http
      url: "ftp://x/"
    - type: http
      url: "https://user:pw@hooks.example.com/"
    - type: http
    - type: grpc
      url: "https://x/"
    - type: http
      url: "https://hooks.example.com/g"
      headers: {Authorization: "Bearer $TOKEN"}
      persistent: true
`
	hooks, warns := ParseHooks("config.yaml", hooksNode(t, text), testEvents)
	if len(hooks) != 1 || hooks[0].Type != TypeHTTP || hooks[0].Persistent {
		t.Fatalf("hooks %+v, want only the last, not persistent", hooks)
	}
	all := ""
	for _, w := range warns {
		all += w.String() + "\n"
	}
	for _, want := range []string{"not an http:// or https:// URL", "must not carry credentials", "needs a non-empty string 'url'",
		`unknown type "grpc"`, "allowed_env_vars does not list", "persistent is ignored"} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "pw@") {
		t.Errorf("a warning shows the URL's password:\n%s", all)
	}
}

// Firings of one HTTP hook reuse its connection: the endpoint sees one connection for many
// calls (no handshake per tool call), and Close lets it go.
func TestHTTPHookReusesItsConnection(t *testing.T) {
	conns := make(chan string, 16)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{}`)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns <- c.RemoteAddr().String()
		}
	}
	srv.Start()
	defer srv.Close()
	h := httpHook(t, srv.URL, "allow_private_network: true")
	for range 5 {
		if res := h.Run(context.Background(), rmCall, RunOptions{}); res.Status != hookspec.StatusOK {
			t.Fatalf("run: %+v", res)
		}
	}
	h.Close()
	srv.Close() // waits for the connections to end
	if n := len(conns); n != 1 {
		t.Errorf("%d connections for 5 firings, want 1", n)
	}
}

// An http hook's URL is logged without its query values, on every line of a run, its
// answer's systemMessage and its errors included.
func TestHTTPHookLogsNoQueryValue(t *testing.T) {
	srv, _ := answering(t, 200, `{"decision": "block", "reason": "no", "systemMessage": "seen"}`)
	for _, h := range []*Hook{
		httpHook(t, srv.URL+"/guard?token=Q5ecret", "allow_private_network: true", "dialect: claude"),
		httpHook(t, "http://127.0.0.1:1/guard?token=Q5ecret", "allow_private_network: true"),
		httpHook(t, srv.URL+"/guard?token=Q5ecret"), // refused: a loopback address
	} {
		var logs strings.Builder
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		res := h.Run(context.Background(), rmCall, RunOptions{Logger: log})
		if !strings.Contains(logs.String(), "token=[redacted]") {
			t.Errorf("logs do not name the hook:\n%s", logs.String())
		}
		if strings.Contains(logs.String()+res.Err+res.Answer.Message, "Q5ecret") {
			t.Errorf("a query value was shown: %+v\n%s", res, logs.String())
		}
	}
}

// A url that is refused is named in the warning without its query values.
func TestRefusedURLWarningShowsNoQueryValue(t *testing.T) {
	text := "hooks:\n  pre_tool_call:\n    - type: http\n      url: ftp://guard.example/check?token=Q5ecret\n"
	hooks, warns := ParseHooks("config.yaml", hooksNode(t, text), testEvents)
	shown := fmt.Sprint(warns)
	if len(hooks) != 0 || !strings.Contains(shown, "ftp://guard.example/check?token=[redacted]") || strings.Contains(shown, "Q5ecret") {
		t.Errorf("hooks %v, warnings %s: want the hook skipped, its URL named without its query value", hooks, shown)
	}
}
