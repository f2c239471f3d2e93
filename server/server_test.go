package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/metrics"
)

const guard = `
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if (kw.args.command or ""):find("rm -rf", 1, true) then
      return {action = "block", message = "no rm -rf"}
    end
  end)
  ctx.register_hook("pre_llm_call", function(kw) return {context = "be brief"} end)
  ctx.register_hook("pre_verify", function(kw) return {action = "continue", reason = "run the tests"} end)
end
`

// testHome writes a home with the guard plugin (and extra files: path -> content).
func testHome(t *testing.T, extra map[string]string) string {
	home := t.TempDir()
	files := map[string]string{"plugins/guard/plugin.yaml": "name: guard\n", "plugins/guard/handler.lua": guard, "config.yaml": "max_verify_nudges: 2\n"}
	for k, v := range extra {
		files[k] = v
	}
	for name, content := range files {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func newServer(t *testing.T, home string, opts Options) (*Server, *engine.Engine) {
	t.Helper()
	eng, err := engine.New(context.Background(), engine.Options{Home: home, TracerProvider: opts.TracerProvider})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	opts.Engine = eng
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, eng
}

// do sends one request to h and returns the status and the body.
func do(t *testing.T, h http.Handler, method, path, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b), w.Result().Header
}

func TestHookEndpoint(t *testing.T) {
	s, _ := newServer(t, testHome(t, nil), Options{})
	cases := []struct {
		path, body string
		code       int
		want       string
	}{
		{"/v1/hooks/pre_tool_call", `{"tool_name":"terminal","args":{"command":"rm -rf /"}}`, 200, `{"hook":"pre_tool_call","outcome":{"action":"block","message":"no rm -rf"}}`},
		{"/v1/hooks/pre_tool_call", `{"tool_name":"terminal","args":{"command":"ls"}}`, 200, `{"hook":"pre_tool_call","outcome":null}`},
		{"/v1/hooks/pre_llm_call", `{"user_message":"hi"}`, 200, `{"hook":"pre_llm_call","outcome":{"context":"be brief"}}`},
		{"/v1/hooks/post_tool_call", ``, 200, `{"hook":"post_tool_call","outcome":null}`},
		{"/v1/hooks/pre_tool_cal", `{}`, 404, `{"error":"no hook \"pre_tool_cal\" here"}`},
		{"/v1/hooks/wrap_tool_call", `{}`, 404, `{"error":"wrap_tool_call wraps a call, which cannot cross HTTP: run it in a Go host"}`},
		{"/v1/hooks/pre_tool_call", `[1]`, 400, `{"error":"the body must be a JSON object of the hook's kwargs"}`},
		{"/v1/hooks/pre_tool_call", `{"tool_name":`, 400, `{"error":"the body must be a JSON object of the hook's kwargs"}`},
	}
	for _, c := range cases {
		code, body, _ := do(t, s, "POST", c.path, c.body)
		if code != c.code || strings.TrimSpace(body) != c.want {
			t.Errorf("POST %s %s: %d %s, want %d %s", c.path, c.body, code, body, c.code, c.want)
		}
	}
}

func TestTokens(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.json")
	toks, _ := LoadTokens(file)
	tok, err := toks.Add(file, "ci-bot")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); bytes.Contains(b, []byte(tok)) {
		t.Fatal("the token file holds the token itself")
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("the token file's mode is %v", st.Mode().Perm())
	}
	loaded, err := LoadTokens(file)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	s, _ := newServer(t, testHome(t, nil), Options{Tokens: loaded, AccessLog: slog.New(slog.NewJSONHandler(&log, nil))})
	body := `{"tool_name":"terminal","args":{"command":"rm -rf /"}}`
	for _, h := range []string{"", "Bearer ", "Bearer " + tok + "x", "Basic " + tok} {
		if code, resp, hdr := do(t, s, "POST", "/v1/hooks/pre_tool_call", body, "Authorization", h); code != 401 || strings.Contains(resp, "block") || hdr.Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: %d %s", h, code, resp)
		}
	}
	if code, resp, _ := do(t, s, "POST", "/v1/hooks/pre_tool_call", body, "Authorization", "Bearer "+tok); code != 200 || !strings.Contains(resp, "block") {
		t.Errorf("with the token: %d %s", code, resp)
	}
	if !strings.Contains(log.String(), `"caller":"ci-bot"`) || !strings.Contains(log.String(), `"status":401`) {
		t.Errorf("the access log does not name the caller and the refusals:\n%s", log.String())
	}
	if code, _, _ := do(t, s, "GET", "/healthz", ""); code != 200 {
		t.Errorf("healthz needs no token: %d", code)
	}
	if err := loaded.Revoke(file, "ci-bot"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, []byte("{not json"), 0o600)
	if _, err := LoadTokens(file); err == nil {
		t.Error("a broken token file loads (as no tokens: an open server)")
	}
}

// Past MaxInFlight a call is answered 503 with Retry-After at once, and runs nothing.
func TestOverloadAnswers503(t *testing.T) {
	s, _ := newServer(t, testHome(t, nil), Options{MaxInFlight: 1})
	s.slots <- struct{}{} // a call in flight
	code, body, hdr := do(t, s, "POST", "/v1/hooks/pre_tool_call", `{"tool_name":"terminal","args":{"command":"rm -rf /"}}`)
	if code != 503 || hdr.Get("Retry-After") == "" || strings.Contains(body, "block") {
		t.Errorf("overloaded: %d %s %v", code, body, hdr)
	}
	<-s.slots
	if code, _, _ := do(t, s, "POST", "/v1/hooks/pre_tool_call", `{}`); code != 200 {
		t.Errorf("after the call ended: %d", code)
	}
}

func TestBodyCap(t *testing.T) {
	s, _ := newServer(t, testHome(t, nil), Options{MaxBody: 64})
	code, body, _ := do(t, s, "POST", "/v1/hooks/pre_tool_call", `{"tool_name":"terminal","args":{"command":"`+strings.Repeat("a", 100)+`"}}`)
	if code != 413 || !strings.Contains(body, "over 64 bytes") {
		t.Errorf("a large body: %d %s", code, body)
	}
}

// Claude Code's http hooks: the decision in a 2xx JSON body, 204 when there is nothing to
// say, and a plugin that did not load blocks in JSON (there is no exit code 2 over HTTP).
func TestClaudeEndpoint(t *testing.T) {
	s, _ := newServer(t, testHome(t, nil), Options{})
	rm := `{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`
	code, body, _ := do(t, s, "POST", "/v1/claude", rm)
	if code != 200 || strings.TrimSpace(body) != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm -rf"}}` {
		t.Errorf("rm: %d %s", code, body)
	}
	if code, body, _ := do(t, s, "POST", "/v1/claude", strings.Replace(rm, "rm -rf x", "ls", 1)); code != 204 || body != "" {
		t.Errorf("ls: %d %q", code, body)
	}
	broken, _ := newServer(t, testHome(t, map[string]string{"plugins/bad/plugin.yaml": "name: bad\n", "plugins/bad/handler.lua": "function register(ctx\n"}), Options{})
	code, body, _ = do(t, broken, "POST", "/v1/claude", strings.Replace(rm, "rm -rf x", "ls", 1))
	if code != 200 || !strings.Contains(body, `"permissionDecision":"deny"`) || !strings.Contains(body, "plugin bad") {
		t.Errorf("with a broken plugin: %d %s", code, body)
	}
}

// Two servers sharing a home's store (its database, or Redis) keep one Stop hook's nudge
// cap across both: calls alternate between them, and the third stop in a row is let
// through.
func TestNudgeCapAcrossServers(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		home := testHome(t, nil)
		nudgeCapAcross(t, home, home)
	})
	t.Run("redis", func(t *testing.T) {
		r := testutil.StartRedis(t)
		cfg := map[string]string{"config.yaml": "max_verify_nudges: 2\nstore:\n  url: " + r.URL + "\n"}
		nudgeCapAcross(t, testHome(t, cfg), testHome(t, cfg)) // two machines: two homes, one Redis
	})
}

func nudgeCapAcross(t *testing.T, homeA, homeB string) {
	a, _ := newServer(t, homeA, Options{})
	b, _ := newServer(t, homeB, Options{})
	stop := func(active bool) string {
		return `{"session_id":"s9","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":` + map[bool]string{true: "true", false: "false"}[active] + `}`
	}
	want := []bool{true, true, false}
	for i, srv := range []*Server{a, b, a} {
		code, body, _ := do(t, srv, "POST", "/v1/claude", stop(i > 0))
		if got := strings.Contains(body, `"decision":"block"`); got != want[i] || code/100 != 2 {
			t.Errorf("stop %d: %d %s, keep going %v", i+1, code, body, want[i])
		}
	}
}

// The caller's W3C traceparent is continued: the server's span and the hook's span are in
// the caller's trace.
func TestTraceparentContinued(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	s, _ := newServer(t, testHome(t, nil), Options{TracerProvider: tp})
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	do(t, s, "POST", "/v1/hooks/pre_tool_call", `{"tool_name":"terminal","args":{"command":"ls"}}`, "traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	spans := exp.GetSpans()
	if len(spans) < 2 {
		t.Fatalf("%d spans, want the server's and the hook's", len(spans))
	}
	for _, sp := range spans {
		if sp.SpanContext.TraceID().String() != traceID {
			t.Errorf("span %q is in trace %s, not the caller's", sp.Name, sp.SpanContext.TraceID())
		}
	}
}

// The OpenAPI document describes the server's real answers: each is valid against the
// schema of its path and status.
func TestOpenAPIMatchesAnswers(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tokens.json")
	toks, _ := LoadTokens(file)
	tok, _ := toks.Add(file, "t")
	s, _ := newServer(t, testHome(t, nil), Options{Tokens: toks, MaxBody: 4096, Registry: metrics.NewRegistry()})
	auth := []string{"Authorization", "Bearer " + tok}
	calls := []struct{ method, path, body, schema string }{
		{"POST", "/v1/hooks/pre_tool_call", `{"tool_name":"terminal","args":{"command":"rm -rf /"}}`, "HookAnswer"},
		{"POST", "/v1/hooks/transform_llm_output", `{"response_text":"x"}`, "HookAnswer"},
		{"POST", "/v1/hooks/nope", `{}`, "Error"},
		{"POST", "/v1/hooks/pre_tool_call", `{`, "Error"},
		{"POST", "/v1/hooks/pre_tool_call", strings.Repeat(" ", 5000), "Error"},
		{"POST", "/v1/agents/codex", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`, "CommandReply"},
		{"POST", "/v1/agents/codex", `{}`, "Error"},
		{"GET", "/healthz", ``, "Status"},
		{"GET", "/readyz", ``, "Status"},
		{"GET", "/v1/status", ``, "ServerStatus"},
	}
	for _, call := range calls {
		code, body, _ := do(t, s, call.method, call.path, call.body, auth...)
		sch, err := c.Compile("openapi.json#/components/schemas/" + call.schema)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %s", call.method, call.path, code, body)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s %s (%d) does not match %s: %v\n%s", call.method, call.path, code, call.schema, err, body)
		}
	}
	code, body, _ := do(t, s, "POST", "/v1/hooks/pre_tool_call", `{}`)
	if code != 401 {
		t.Errorf("without a token: %d %s", code, body)
	}
	if _, body, _ := do(t, s, "GET", "/metrics", ""); !strings.Contains(body, `hermes_server_requests_total{caller="t",code="200",route="/v1/hooks/{hook}"}`) {
		t.Errorf("metrics do not count the calls:\n%s", body)
	}
}

// GET /v1/status and /metrics report the managed home's bundle feed: the active revision,
// the one running, and the last error of a refused bundle; the answer matches openapi.json.
func TestStatusReportsTheBundle(t *testing.T) {
	f := testutil.NewBundleFeed(t, "1m", "")
	t.Setenv("HERMES_MANAGED_HOME", f.Managed)
	guardPlugin := map[string]string{"plugins/fleet/plugin.yaml": "name: fleet\n", "plugins/fleet/handler.lua": guard}
	f.Publish(guardPlugin, 4, "release")
	if _, _, err := engine.PullBundle(context.Background(), engine.Options{}); err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, t.TempDir(), Options{Registry: metrics.NewRegistry()})
	f.Publish(guardPlugin, 5, "other") // not a configured key: refused
	_, _, pullErr := engine.PullBundle(context.Background(), engine.Options{})
	if pullErr == nil {
		t.Fatal("a bundle signed by another key was activated")
	}
	code, body, _ := do(t, s, "GET", "/v1/status", "")
	var got struct {
		Plugins int                 `json:"plugins"`
		Bundle  engine.BundleStatus `json:"bundle"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || code != 200 {
		t.Fatalf("GET /v1/status: %d %s", code, body)
	}
	if b := got.Bundle; b.Revision != 4 || b.Running != 4 || b.LastError != pullErr.Error() || b.ActivatedAt.IsZero() || b.LastCheck.IsZero() || got.Plugins != 1 {
		t.Errorf("status %s: want revision 4 active and running, the refusal as last error, one plugin", body)
	}
	var doc map[string]any
	json.Unmarshal(openAPI, &doc)
	c := jsonschema.NewCompiler()
	c.AddResource("openapi.json", doc)
	sch, err := c.Compile("openapi.json#/components/schemas/ServerStatus")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal([]byte(body), &v)
	if err := sch.Validate(v); err != nil {
		t.Errorf("/v1/status does not match ServerStatus: %v\n%s", err, body)
	}
	_, metrics, _ := do(t, s, "GET", "/metrics", "")
	for _, want := range []string{"hermes_bundle_revision 4", "hermes_bundle_running_revision 4", "hermes_bundle_check_failing 1", "hermes_bundle_last_success_timestamp_seconds 1."} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics)
		}
	}
}
