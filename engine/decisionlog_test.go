package engine

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// guardPlugin blocks rm, adds a token to fetch's arguments and lets the rest through;
// its pre_llm_call adds a context.
var guardPlugin = pluginFiles("guard", "", `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.tool_name == "terminal" and string.find(kw.args.command, "rm ", 1, true) then
      return {action = "block", message = "no rm"}
    end
    if kw.tool_name == "fetch" then
      return {action = "modify", args = {url = kw.args.url, token = "hook-secret"}}
    end
  end)
  ctx.register_hook("pre_llm_call", function(kw) return "be brief" end)
end
`)

// collector is a decision-log endpoint that keeps every entry, and every raw body.
type collector struct {
	mu      sync.Mutex
	entries []decisionlog.Entry
	raw     bytes.Buffer
	auth    []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sent, _ := io.ReadAll(r.Body)
	entries, err := decisionlog.ReadBatch(bytes.NewReader(sent))
	if err != nil || r.Header.Get("Content-Encoding") != "gzip" {
		http.Error(w, fmt.Sprintf("want gzip'd NDJSON entries: %v", err), 400)
		return
	}
	zr, _ := gzip.NewReader(bytes.NewReader(sent))
	body, _ := io.ReadAll(zr) // every byte that arrived, for what must not be in it
	c.mu.Lock()
	defer c.mu.Unlock()
	c.raw.Write(body)
	c.auth = append(c.auth, r.Header.Get("Authorization"))
	c.entries = append(c.entries, entries...)
}

// managedHome is a managed home whose config.yaml is cfg.
func managedHome(t *testing.T, cfg string) string {
	return testutil.Home(t, map[string]string{"config.yaml": cfg})
}

// step is one call of a replayed conversation and the decision it must log.
type step struct {
	hook    hookspec.Hook
	kw      map[string]any
	outcome string
	hook_   string
	input   map[string]any // the input the receiver must see
	result  map[string]any
}

// The receiver gets one entry per firing of a point with hooks, in order, with the caller,
// the deciding hook, the outcome and the arguments masked: the secrets never leave the
// process.
func TestDecisionLogShipsEveryDecisionMasked(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	mh := managedHome(t, "decision_log:\n  url: "+srv.URL+"\n  mask: [args.token, args.command, user_message]\n  batch: 2\n  flush_interval: 1h\n  token_env: LOG_TOKEN\n")
	e, err := New(context.Background(), Options{Home: testutil.Home(t, guardPlugin), ManagedHome: mh,
		Getenv: func(k string) string { return map[string]string{"LOG_TOKEN": "t0k"}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	m := decisionlog.Marker
	steps := []step{
		{hookspec.PreLLMCall, map[string]any{"session_id": "s", "user_message": "my password is hunter2"}, "context", "guard",
			map[string]any{"session_id": "s", "user_message": m}, map[string]any{"text": "be brief"}},
		{hookspec.PreToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls /secret"}}, "none", "",
			map[string]any{"tool_name": "terminal", "args": map[string]any{"command": m}}, nil},
		{hookspec.PreToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /secret"}}, "block", "guard",
			map[string]any{"tool_name": "terminal", "args": map[string]any{"command": m}}, map[string]any{"message": "no rm"}},
		{hookspec.PreToolCall, map[string]any{"tool_name": "fetch", "args": map[string]any{"url": "https://x", "token": "user-secret"}}, "modify", "guard",
			map[string]any{"tool_name": "fetch", "args": map[string]any{"url": "https://x", "token": m}}, map[string]any{"args": map[string]any{"url": "https://x", "token": m}}},
		{hookspec.PostToolCall, map[string]any{"tool_name": "terminal", "result": "x"}, "", "", nil, nil}, // no hook: nothing logged
	}
	ctx := WithCaller(context.Background(), "ci-bot")
	for _, s := range steps {
		e.Fire(ctx, s.hook, s.kw)
	}
	if err := e.Close(context.Background()); err != nil { // sends what is buffered
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var want []decisionlog.Entry
	for _, s := range steps[:4] {
		w := decisionlog.Entry{Event: s.hook.String(), Caller: "ci-bot", Outcome: s.outcome, Hook: s.hook_,
			Hooks: []decisionlog.Run{{Hook: "guard", Source: "plugin", Status: "ok"}}, Input: s.input, Result: s.result}
		if s.hook_ != "" {
			w.Source = "plugin"
		}
		want = append(want, w)
	}
	ignore := func(k string, v any) bool {
		return k != "session_id" && k != "user_message" && k != "tool_name" && k != "args"
	}
	got := make([]decisionlog.Entry, len(c.entries))
	for i, en := range c.entries {
		if en.Time.IsZero() {
			t.Errorf("entry %d has no time", i)
		}
		en.Time = want[0].Time
		for k, v := range en.Input { // the kwargs the engine adds (ids, cwd, ...) are not this test's subject
			if ignore(k, v) {
				delete(en.Input, k)
			}
		}
		got[i] = en
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	for _, secret := range []string{"hunter2", "/secret", "user-secret", "hook-secret"} {
		if strings.Contains(c.raw.String(), secret) {
			t.Errorf("%q reached the receiver", secret)
		}
	}
	for _, a := range c.auth {
		if a != "Bearer t0k" {
			t.Errorf("Authorization = %q, want the token of token_env", a)
		}
	}
}

// A receiver that is down costs no decision: every call is decided as without a log, and
// each entry is counted as failed (retries exhausted) or dropped (buffer full), in the
// engine's metrics.
func TestDecisionLogReceiverDown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	metrics := NewMetrics()
	e, err := New(context.Background(), Options{Home: testutil.Home(t, guardPlugin), Metrics: metrics,
		DecisionLog: &decisionlog.Options{URL: srv.URL, Buffer: 4, Batch: 2, Retries: 1, Backoff: 1}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := range n {
		cmd := "ls"
		if i%2 == 0 {
			cmd = "rm -rf /"
		}
		blocked := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": cmd}}).Block != nil
		if blocked != (i%2 == 0) {
			t.Fatalf("call %d (%s): blocked = %v", i, cmd, blocked)
		}
	}
	e.Close(context.Background())
	sent, dropped, failed := metrics.decisionsSent.With().Value(), metrics.decisionsDropped.With().Value(), metrics.decisionsFailed.With().Value()
	if sent != 0 || dropped+failed != n || failed == 0 {
		t.Errorf("sent %v, dropped %v, failed %v; want none sent and all %d counted, some failed", sent, dropped, failed, n)
	}
}

// An endpoint that never answers never holds up a call: once the buffer is full, the
// decisions are dropped and counted, and every Fire returns.
func TestDecisionLogStuckReceiverNeverBlocks(t *testing.T) {
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	metrics := NewMetrics()
	e, err := New(context.Background(), Options{Home: testutil.Home(t, guardPlugin), Metrics: metrics,
		DecisionLog: &decisionlog.Options{URL: srv.URL, Buffer: 2, Batch: 1}})
	if err != nil {
		t.Fatal(err)
	}
	kw := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"}}
	e.Fire(context.Background(), hookspec.PreToolCall, kw)
	<-arrived // the shipper is stuck in its POST
	for range 50 {
		if e.Fire(context.Background(), hookspec.PreToolCall, kw).Block() == nil {
			t.Fatal("the guard did not block")
		}
	}
	if d := metrics.decisionsDropped.With().Value(); d != 48 {
		t.Errorf("dropped %v, want 48 (the buffer holds 2)", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.Close(ctx)
}

// The audit log's digests are of the masked arguments: two calls that differ only in a
// masked field log the same digest, so the field cannot be guessed from the log.
func TestAuditLogMasked(t *testing.T) {
	digests := func(cfg string) []string {
		logs := &testutil.Buffer{}
		e, err := New(context.Background(), Options{Home: testutil.Home(t, guardPlugin), ManagedHome: managedHome(t, cfg), Logger: newTestLogger(logs)})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close(context.Background())
		for _, tok := range []string{"1234", "9999"} {
			e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /", "token": tok}})
		}
		var out []string
		for _, line := range strings.Split(logs.String(), "\n") {
			if i := strings.Index(line, "before_sha256="); i >= 0 && strings.Contains(line, "audit=block") {
				out = append(out, strings.Fields(line[i:])[0])
			}
		}
		if len(out) != 2 {
			t.Fatalf("audit lines: %q", logs.String())
		}
		return out
	}
	if d := digests("decision_log:\n  mask: [args.token]\n"); d[0] != d[1] {
		t.Errorf("masked: digests %q differ: the token shows through", d)
	}
	if d := digests("{}\n"); d[0] == d[1] {
		t.Errorf("unmasked: digests %q equal: the test cannot tell", d)
	}
}

// Mistakes in decision_log: stop the load with the file and line; the section in the
// user's home is ignored with a warning.
func TestDecisionLogConfig(t *testing.T) {
	for cfg, want := range map[string]string{
		"decision_log:\n  url: ftp://x\n":                     `config.yaml:2: decisionlog: url "ftp://x" is not an http or https URL`,
		"decision_log:\n  url: http://x\n  mask: [a..b]\n":    "config.yaml:3: decisionlog: mask path",
		"decision_log:\n  url: http://x\n  batch: 0\n":        "config.yaml:3: decision_log.batch must be at least 1",
		"decision_log:\n  url: http://x\n  token_env: NOPE\n": "config.yaml:3: decision_log.token_env names $NOPE, which is not set",
		"decision_log:\n  flush_interval: soon\n":             "config.yaml:2: decision_log.flush_interval must be a duration",
	} {
		_, err := New(context.Background(), Options{Home: testutil.Home(t, nil), ManagedHome: managedHome(t, cfg), Getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", cfg, err, want)
		}
	}
	e, _ := newEngine(t, testutil.Home(t, map[string]string{"config.yaml": "decision_log:\n  url: http://x\n"}))
	if w := e.Warnings(); len(w) != 1 || !strings.Contains(w[0].String(), "config.yaml:1: decision_log: is read only from the managed home") {
		t.Errorf("warnings = %v", w)
	}
}

// A reload that changes decision_log: sends the next decisions to the new endpoint.
func TestDecisionLogFollowsReload(t *testing.T) {
	a, b := &collector{}, &collector{}
	sa, sb := httptest.NewServer(a), httptest.NewServer(b)
	defer sa.Close()
	defer sb.Close()
	mh := managedHome(t, "decision_log: {url: \""+sa.URL+"\"}\n")
	e, err := New(context.Background(), Options{Home: testutil.Home(t, guardPlugin), ManagedHome: mh})
	if err != nil {
		t.Fatal(err)
	}
	kw := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"}}
	e.Fire(context.Background(), hookspec.PreToolCall, kw)
	writeFile(t, mh+"/config.yaml", "decision_log: {url: \""+sb.URL+"\"}\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Fire(context.Background(), hookspec.PreToolCall, kw)
	e.Close(context.Background())
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.entries) != 1 {
		t.Errorf("the new endpoint got %d entries, want 1", len(b.entries))
	}
}
