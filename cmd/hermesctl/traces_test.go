package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver: it decodes each request as the collector
// does (ExportTraceServiceRequest, protobuf) and keeps the spans.
type otlpReceiver struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	service []string
	headers []http.Header
	fail    bool // refuse the spans
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces application/x-protobuf", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = z
	}
	data, err := io.ReadAll(body)
	var req collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(data, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.headers = append(rc.headers, r.Header.Clone())
	if rc.fail {
		http.Error(w, "spans refused", http.StatusBadRequest)
		return
	}
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				rc.service = append(rc.service, kv.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func strAttr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// TestReplayExportsOTLP: hermesctl demo --otlp-endpoint sends the run's spans to an
// OTLP/HTTP receiver, in the collector's wire format, as one trace with the blocked call.
func TestReplayExportsOTLP(t *testing.T) {
	rc := &otlpReceiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=hermes-test") // the standard variables are honoured
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"demo", "--otlp-endpoint", srv.URL}, strings.NewReader(""), &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.spans) == 0 {
		t.Fatal("the receiver got no span")
	}
	if h := rc.headers[0].Get("x-tenant"); h != "hermes-test" {
		t.Errorf("header from OTEL_EXPORTER_OTLP_HEADERS: %q, want hermes-test", h)
	}
	if rc.service[0] != "hermesctl" {
		t.Errorf("service.name %q, want hermesctl", rc.service[0])
	}
	var root *tracepb.Span
	blocked := 0
	for _, s := range rc.spans {
		if len(s.ParentSpanId) == 0 {
			if root != nil {
				t.Fatalf("two roots: %q and %q, want one trace for the run", root.Name, s.Name)
			}
			root = s
		}
		if s.Name == "fire pre_tool_call" && strAttr(s, "hermes.decision") == "block" {
			blocked++
			if strAttr(s, "hermes.decision.hook") == "" || strAttr(s, "hermes.decision.reason") == "" {
				t.Errorf("blocked firing without its hook and reason: %v", s.Attributes)
			}
		}
	}
	if root == nil || root.Name != "replay transcript.jsonl" {
		t.Fatalf("root span %v, want replay transcript.jsonl", root)
	}
	for _, s := range rc.spans {
		if !bytes.Equal(s.TraceId, root.TraceId) {
			t.Errorf("span %q in another trace", s.Name)
		}
	}
	if blocked != 2 { // the demo blocks rm -rf / and a force push
		t.Errorf("%d blocked pre_tool_call firings exported, want 2", blocked)
	}
}

// TestOTLPEndpointFromEnvironment: OTEL_EXPORTER_OTLP_ENDPOINT alone asks for the export,
// as it does of any OpenTelemetry program.
func TestOTLPEndpointFromEnvironment(t *testing.T) {
	rc := &otlpReceiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"demo"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.spans) == 0 {
		t.Error("OTEL_EXPORTER_OTLP_ENDPOINT set: no span exported")
	}
}

// TestOTLPEndpointFlagErrors: a flag value that is not an http(s) URL is a usage error.
func TestOTLPEndpointFlagErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"demo", "--otlp-endpoint", "localhost:4318"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "want an http:// or https:// URL") {
		t.Errorf("exit %d, stderr %q; want %d and what to write", code, stderr.String(), exitUsage)
	}
}

// TestOTLPEnvironmentErrors: a standard variable hermesctl cannot use is a usage error,
// before the run, naming the variable and what it wants.
func TestOTLPEnvironmentErrors(t *testing.T) {
	for name, value := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318",
		"OTEL_EXPORTER_OTLP_HEADERS":  "x-tenant",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv(name, value)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"demo"}, strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), name+"=") && !strings.Contains(stderr.String(), name+":") {
				t.Errorf("exit %d, stderr %q; want %d and the variable named", code, stderr.String(), exitUsage)
			}
			if strings.Contains(stdout.String(), "pre_tool_call") {
				t.Errorf("the run went ahead:\n%s", stdout.String())
			}
		})
	}
}

// TestReplayExportFailureIsReported: a collector that refuses the spans is an error the
// user sees (exit 1), after the timeline, never a silent loss.
func TestReplayExportFailureIsReported(t *testing.T) {
	rc := &otlpReceiver{fail: true}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"demo", "--otlp-endpoint", srv.URL}, strings.NewReader(""), &stdout, &stderr)
	if code != exitInternal {
		t.Errorf("exit %d, want %d", code, exitInternal)
	}
	if !strings.Contains(stderr.String(), "exporting spans to "+srv.URL) {
		t.Errorf("stderr does not say the export failed:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "pre_tool_call") {
		t.Errorf("the timeline was not printed:\n%s", stdout.String())
	}
}

// reportHome is a home whose replay shows every kind of bar: a guard that counts calls in the
// store and blocks rm -rf /, a hook that rewrites ls (so the guard is asked again), and one
// that always fails.
func reportHome(t *testing.T) string {
	home := t.TempDir()
	files := map[string]string{
		"plugins/guard/plugin.yaml": "name: guard\npriority: 10\n",
		"plugins/guard/handler.lua": `local store = require("store")
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    store.incr("calls")
    if kw.args.command == "rm -rf /" then return {action = "block", message = "not allowed"} end
  end)
end`,
		"plugins/rewriter/plugin.yaml": "name: rewriter\npriority: 5\n",
		"plugins/rewriter/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command == "ls" then return {action = "modify", args = {command = "ls -la"}} end
  end)
end`,
		"plugins/broken/plugin.yaml": "name: broken\n",
		"plugins/broken/handler.lua": `function register(ctx) ctx.register_hook("pre_tool_call", function(kw) error("boom <b>") end) end`,
		"transcript.jsonl": `{"type":"message","platform":"telegram","user_id":"u1","chat_id":"c1","chat_type":"dm","text":"hi"}
{"type":"llm","model":"m1","tool_calls":[{"id":"call-1","name":"terminal","args":{"command":"ls"},"result":"ok"},{"id":"call-2","name":"terminal","args":{"command":"rm -rf /"},"result":"gone"}]}
{"type":"llm","model":"m1","response":"done"}
`,
	}
	for name, body := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// TestReportShowsStatusesAndDecisions: the page of a replay colours each hook by its status
// and says what it decided: the failure (its message escaped), the block and why, the hook
// asked again, the store calls; it needs nothing from elsewhere.
func TestReportShowsStatusesAndDecisions(t *testing.T) {
	home := reportHome(t)
	out := filepath.Join(t.TempDir(), "r.html")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"replay", filepath.Join(home, "transcript.jsonl"), "--home", home, "--html", out},
		strings.NewReader(""), &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		`data-kind="hook" data-status="error"`, `class="bar error`, `error: `, `boom &lt;b&gt;`,
		`data-kind="fire" data-status="" data-decision="block"`, `class="bar blocked`, `blocked by guard: not allowed`,
		`block: not allowed`, `(asked again)`, `class="bar decided`, `modify`, `store.incr`,
		`<span>2 failed</span>`, `<span>1 tool calls blocked</span>`, `id="slowest"`, `message in from u1 on telegram`,
		`terminal {&#34;command&#34;:&#34;rm -rf /&#34;}  -&gt;  {&#34;error&#34;:&#34;not allowed&#34;}`, // the call and what the model saw, on its row
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, external := range []string{"<script", "src=", "http://", "https://", "@import", "url("} {
		if strings.Contains(page, external) {
			t.Errorf("the page is not self-contained: it has %q", external)
		}
	}
}

// TestReportFileErrors: a report that cannot be written is an error naming the flag, after
// the timeline.
func TestReportFileErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"demo", "--html", filepath.Join(t.TempDir(), "missing", "r.html")}, strings.NewReader(""), &stdout, &stderr)
	if code != exitInternal || !strings.Contains(stderr.String(), "--html") || !strings.Contains(stdout.String(), "shutdown") {
		t.Errorf("exit %d, stderr %q; want %d, the error, and the timeline printed", code, stderr.String(), exitInternal)
	}
}
