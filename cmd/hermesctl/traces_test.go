package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
