package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP trace receiver: it decodes each request as a collector does
// and answers with the statuses of answer, in turn (200 once they run out).
type collector struct {
	mu      sync.Mutex
	reqs    []*collectortrace.ExportTraceServiceRequest
	headers []http.Header
	paths   []string
	answer  []int
	after   string // the Retry-After of a failure
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	req := &collectortrace.ExportTraceServiceRequest{}
	if err == nil {
		err = proto.Unmarshal(data, req)
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf" {
		err = io.ErrUnexpectedEOF
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	c.reqs = append(c.reqs, req)
	c.headers = append(c.headers, r.Header.Clone())
	c.paths = append(c.paths, r.URL.Path)
	if n := len(c.reqs); n <= len(c.answer) && c.answer[n-1] != http.StatusOK {
		if c.after != "" {
			w.Header().Set("Retry-After", c.after)
		}
		http.Error(w, "collector says "+http.StatusText(c.answer[n-1]), c.answer[n-1])
		return
	}
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (c *collector) requests() []*collectortrace.ExportTraceServiceRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs)
}

var (
	traceID  = trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	spanID   = trace.SpanID{1, 1, 1, 1, 1, 1, 1, 1}
	parentID = trace.SpanID{2, 2, 2, 2, 2, 2, 2, 2}
	linkID   = trace.SpanID{3, 3, 3, 3, 3, 3, 3, 3}
	start    = time.Unix(1700000000, 123456789)
)

// testSpans are spans with every field set: the first in a resource and scope of their
// own, the others sharing a second resource in two scopes.
func testSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	ts, err := trace.ParseTraceState("vendor=value,other=x")
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0",
		attribute.String("service.name", "hermesctl"), attribute.Int("pid", 42))
	scope := instrumentation.Scope{Name: "hermes/engine", Version: "1.2.3", SchemaURL: "https://opentelemetry.io/schemas/1.24.0",
		Attributes: attribute.NewSet(attribute.Bool("scoped", true))}
	full := tracetest.SpanStub{
		Name: "fire pre_tool_call",
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID,
			TraceFlags: trace.FlagsSampled, TraceState: ts}),
		Parent:    trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: parentID, Remote: true}),
		SpanKind:  trace.SpanKindServer,
		StartTime: start,
		EndTime:   start.Add(1500 * time.Millisecond),
		Attributes: []attribute.KeyValue{
			attribute.Bool("b", true), attribute.Int64("i", -7), attribute.Float64("f", 2.5), attribute.String("s", "block"),
			attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, 2}),
			attribute.Float64Slice("fs", []float64{0.5}), attribute.StringSlice("ss", []string{"a", "b"}),
		},
		Events: []sdktrace.Event{{Name: "exception", Time: start.Add(time.Millisecond),
			Attributes: []attribute.KeyValue{attribute.String("exception.message", "boom")}, DroppedAttributeCount: 2}},
		Links: []sdktrace.Link{{
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: linkID,
				TraceFlags: trace.FlagsSampled, Remote: true}),
			Attributes: []attribute.KeyValue{attribute.String("link", "caller")}, DroppedAttributeCount: 1}},
		Status:               sdktrace.Status{Code: codes.Error, Description: "hook failed"},
		DroppedAttributes:    3,
		DroppedEvents:        4,
		DroppedLinks:         5,
		Resource:             res,
		InstrumentationScope: scope,
	}
	other := resource.NewSchemaless(attribute.String("service.name", "other"))
	child := func(name string, id byte, scope instrumentation.Scope, kind trace.SpanKind, code codes.Code) tracetest.SpanStub {
		return tracetest.SpanStub{
			Name:        name,
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: trace.SpanID{id}}),
			Parent:      trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID}),
			SpanKind:    kind, StartTime: start, EndTime: start.Add(time.Second),
			Status:   sdktrace.Status{Code: code},
			Resource: other, InstrumentationScope: scope,
		}
	}
	return tracetest.SpanStubs{
		full,
		child("a", 10, instrumentation.Scope{Name: "x"}, trace.SpanKindClient, codes.Ok),
		child("b", 11, instrumentation.Scope{Name: "y"}, trace.SpanKindProducer, codes.Unset),
		child("c", 12, instrumentation.Scope{Name: "x"}, trace.SpanKindConsumer, codes.Unset),
		child("d", 13, instrumentation.Scope{}, trace.SpanKindInternal, codes.Unset),
	}.Snapshots()
}

func str(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}

func list(vs ...*commonpb.AnyValue) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vs}}}
}

func boolean(b bool) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: b}}
}

func integer(n int64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}
}

func double(f float64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: f}}
}

func newExporter(t *testing.T, o Options) *Exporter {
	t.Helper()
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestExportsEveryField: what a collector decodes holds every field of the spans, grouped
// by resource and scope.
func TestExportsEveryField(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	e := newExporter(t, Options{URL: srv.URL + "/v1/traces"})
	if err := e.ExportSpans(context.Background(), testSpans(t)); err != nil {
		t.Fatal(err)
	}
	reqs := c.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	rss := reqs[0].ResourceSpans
	if len(rss) != 2 {
		t.Fatalf("%d resources, want 2", len(rss))
	}
	wantRes := &tracepb.ResourceSpans{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "pid", Value: integer(42)}, {Key: "service.name", Value: str("hermesctl")}}},
		SchemaUrl: "https://opentelemetry.io/schemas/1.26.0",
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: "hermes/engine", Version: "1.2.3",
				Attributes: []*commonpb.KeyValue{{Key: "scoped", Value: boolean(true)}}},
			SchemaUrl: "https://opentelemetry.io/schemas/1.24.0",
			Spans: []*tracepb.Span{{
				TraceId:           traceID[:],
				SpanId:            spanID[:],
				ParentSpanId:      parentID[:],
				TraceState:        "vendor=value,other=x",
				Flags:             0x301, // sampled, whether the parent is remote is known, and it is
				Name:              "fire pre_tool_call",
				Kind:              tracepb.Span_SPAN_KIND_SERVER,
				StartTimeUnixNano: uint64(start.UnixNano()),
				EndTimeUnixNano:   uint64(start.Add(1500 * time.Millisecond).UnixNano()),
				Attributes: []*commonpb.KeyValue{
					{Key: "b", Value: boolean(true)}, {Key: "i", Value: integer(-7)}, {Key: "f", Value: double(2.5)},
					{Key: "s", Value: str("block")}, {Key: "bs", Value: list(boolean(true), boolean(false))},
					{Key: "is", Value: list(integer(1), integer(2))}, {Key: "fs", Value: list(double(0.5))},
					{Key: "ss", Value: list(str("a"), str("b"))},
				},
				DroppedAttributesCount: 3,
				Events: []*tracepb.Span_Event{{Name: "exception", TimeUnixNano: uint64(start.Add(time.Millisecond).UnixNano()),
					Attributes: []*commonpb.KeyValue{{Key: "exception.message", Value: str("boom")}}, DroppedAttributesCount: 2}},
				DroppedEventsCount: 4,
				Links: []*tracepb.Span_Link{{TraceId: traceID[:], SpanId: linkID[:], Flags: 0x301,
					Attributes: []*commonpb.KeyValue{{Key: "link", Value: str("caller")}}, DroppedAttributesCount: 1}},
				DroppedLinksCount: 5,
				Status:            &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "hook failed"},
			}},
		}},
	}
	if !proto.Equal(rss[0], wantRes) {
		t.Errorf("first resource:\n%v\nwant\n%v", rss[0], wantRes)
	}
	var got []string
	for _, ss := range rss[1].ScopeSpans {
		var names []string
		for _, s := range ss.Spans {
			names = append(names, s.Name+"/"+s.Kind.String()+"/"+s.Status.GetCode().String())
			if s.Flags != 0x100 || !bytes.Equal(s.ParentSpanId, spanID[:]) {
				t.Errorf("span %s: flags %#x, parent %x; want 0x100 (a local parent) and %x", s.Name, s.Flags, s.ParentSpanId, spanID)
			}
		}
		got = append(got, ss.GetScope().GetName()+": "+strings.Join(names, " "))
	}
	want := []string{
		"x: a/SPAN_KIND_CLIENT/STATUS_CODE_OK c/SPAN_KIND_CONSUMER/STATUS_CODE_UNSET",
		"y: b/SPAN_KIND_PRODUCER/STATUS_CODE_UNSET",
		": d/SPAN_KIND_INTERNAL/STATUS_CODE_UNSET",
	}
	if !slices.Equal(got, want) {
		t.Errorf("second resource's scopes:\n%q\nwant\n%q", got, want)
	}
	if rss[1].ScopeSpans[2].Scope != nil {
		t.Errorf("the zero scope is sent as %v, want none", rss[1].ScopeSpans[2].Scope)
	}
}

// TestAttributeValueTypes: the attribute types beyond the basic ones (bytes, nested
// slices, maps, empty) are sent as the OTLP values they are.
func TestAttributeValueTypes(t *testing.T) {
	kvs := []attribute.KeyValue{
		{Key: "bytes", Value: attribute.ByteSliceValue([]byte{0, 1})},
		{Key: "slice", Value: attribute.SliceValue(attribute.StringValue("x"), attribute.IntValue(1))},
		{Key: "map", Value: attribute.MapValue(attribute.String("k", "v"))},
		{Key: "empty"},
	}
	var decoded commonpb.KeyValueList // values = 1: the attributes as a span's are written
	if err := proto.Unmarshal(appendKeyValues(nil, 1, kvs), &decoded); err != nil {
		t.Fatal(err)
	}
	got := decoded.Values
	if len(got) != len(kvs) {
		t.Fatalf("%d attributes decoded, want %d", len(got), len(kvs))
	}
	want := []*commonpb.KeyValue{
		{Key: "bytes", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: []byte{0, 1}}}},
		{Key: "slice", Value: list(str("x"), integer(1))},
		{Key: "map", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{
			Values: []*commonpb.KeyValue{{Key: "k", Value: str("v")}}}}}},
		{Key: "empty", Value: &commonpb.AnyValue{}},
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("%s: %v, want %v", want[i].Key, got[i], want[i])
		}
	}
}

// TestSameRequestAsOpenTelemetryExporter: the request is the one the OpenTelemetry
// project's OTLP/HTTP exporter sends for the same spans.
func TestSameRequestAsOpenTelemetryExporter(t *testing.T) {
	ours, theirs := &collector{}, &collector{}
	srvOurs, srvTheirs := httptest.NewServer(ours), httptest.NewServer(theirs)
	defer srvOurs.Close()
	defer srvTheirs.Close()
	spans := testSpans(t)
	if err := newExporter(t, Options{URL: srvOurs.URL + "/v1/traces"}).ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	ref, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(srvTheirs.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	got, want := ours.requests(), theirs.requests()
	if len(got) != 1 || len(want) != 1 {
		t.Fatalf("%d and %d requests, want 1 each", len(got), len(want))
	}
	// The OpenTelemetry exporter leaves out a link's trace state, and orders resources as
	// a map does.
	for _, rs := range got[0].ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				for _, l := range s.Links {
					l.TraceState = ""
				}
			}
		}
	}
	byResource := func(a, b *tracepb.ResourceSpans) int {
		ka, _ := proto.MarshalOptions{Deterministic: true}.Marshal(a.Resource)
		kb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(b.Resource)
		return bytes.Compare(ka, kb)
	}
	slices.SortFunc(got[0].ResourceSpans, byResource)
	slices.SortFunc(want[0].ResourceSpans, byResource)
	if !proto.Equal(got[0], want[0]) {
		t.Errorf("our request:\n%v\nthe OpenTelemetry exporter's:\n%v", got[0], want[0])
	}
}

// TestEnvironment: the endpoint, headers and compression come from the standard
// variables, the _TRACES_ forms winning; the body is protobuf whatever the protocol says.
func TestEnvironment(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL+"/base/")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=hermes%20test, authorization = Bearer%3Dtoken ,")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "none")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json") // protobuf all the same: the collector refuses anything else
	e := newExporter(t, Options{})
	if err := e.ExportSpans(context.Background(), testSpans(t)[:1]); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", srv.URL+"/exact")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-other=1")
	if err := newExporter(t, Options{}).ExportSpans(context.Background(), testSpans(t)[:1]); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	if err := newExporter(t, Options{URL: srv.URL + "/flag"}).ExportSpans(context.Background(), testSpans(t)[:1]); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if want := []string{"/base/v1/traces", "/exact", "/flag"}; !slices.Equal(c.paths, want) {
		t.Errorf("paths %q, want %q", c.paths, want)
	}
	h := c.headers[0]
	if h.Get("x-tenant") != "hermes test" || h.Get("Authorization") != "Bearer=token" || h.Get("Content-Encoding") != "gzip" {
		t.Errorf("headers %v: want x-tenant and authorization URL-decoded, gzip", h)
	}
	if h := c.headers[1]; h.Get("x-other") != "1" || h.Get("x-tenant") != "" {
		t.Errorf("headers %v: want only those of OTEL_EXPORTER_OTLP_TRACES_HEADERS", h)
	}
	if len(c.reqs[0].ResourceSpans) != 1 {
		t.Errorf("the gzipped request holds %d resources, want 1", len(c.reqs[0].ResourceSpans))
	}
}

// TestEnvironmentErrors: a variable that cannot be used is an error naming it.
func TestEnvironmentErrors(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"},
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "novalue"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "k=%zz"},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "10s"},
		{"OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"},
		{"OTEL_EXPORTER_OTLP_CERTIFICATE", filepath.Join(t.TempDir(), "missing.pem")},
		{"OTEL_EXPORTER_OTLP_CLIENT_KEY", "key.pem"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			url := "http://localhost:4318/v1/traces"
			if strings.HasSuffix(tc.name, "ENDPOINT") {
				url = ""
			}
			_, err := New(Options{URL: url})
			if err == nil || !strings.Contains(err.Error(), tc.name) {
				t.Errorf("%s=%s: error %v, want one naming the variable", tc.name, tc.value, err)
			}
		})
	}
}

// fakeClock makes an exporter's retries wait on a clock of the test's: each wait moves it
// on and is recorded.
func fakeClock(e *Exporter) *[]time.Duration {
	now := time.Unix(0, 0)
	var waits []time.Duration
	e.now = func() time.Time { return now }
	e.wait = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		now = now.Add(d)
		return nil
	}
	e.randomise = func(d time.Duration) time.Duration { return d }
	return &waits
}

var retry = Retry{Initial: time.Second, Max: 5 * time.Second, MaxElapsed: 10 * time.Second}

// TestRetriesUnavailable: a 503 is tried again after the delay Retry-After asks for, and
// the spans are delivered.
func TestRetriesUnavailable(t *testing.T) {
	c := &collector{answer: []int{http.StatusServiceUnavailable}, after: "2"}
	srv := httptest.NewServer(c)
	defer srv.Close()
	e := newExporter(t, Options{URL: srv.URL + "/v1/traces", Retry: retry})
	waits := fakeClock(e)
	if err := e.ExportSpans(context.Background(), testSpans(t)); err != nil {
		t.Fatal(err)
	}
	if n := len(c.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if want := []time.Duration{2 * time.Second}; !slices.Equal(*waits, want) {
		t.Errorf("waited %v, want %v (Retry-After)", *waits, want)
	}
}

// TestRetriesGiveUp: a collector that stays unavailable is tried with growing intervals
// until the time allowed would pass, and the export fails saying what it answered.
func TestRetriesGiveUp(t *testing.T) {
	c := &collector{answer: slices.Repeat([]int{http.StatusBadGateway}, 100)}
	srv := httptest.NewServer(c)
	defer srv.Close()
	e := newExporter(t, Options{URL: srv.URL + "/v1/traces", Retry: retry})
	waits := fakeClock(e)
	err := e.ExportSpans(context.Background(), testSpans(t))
	if err == nil || !strings.Contains(err.Error(), "502 Bad Gateway: collector says Bad Gateway") {
		t.Fatalf("error %v, want the collector's answer", err)
	}
	want := []time.Duration{time.Second, 1500 * time.Millisecond, 2250 * time.Millisecond, 3375 * time.Millisecond}
	if !slices.Equal(*waits, want) {
		t.Errorf("waited %v, want %v", *waits, want)
	}
	if n := len(c.requests()); n != len(want)+1 {
		t.Errorf("%d requests, want %d", n, len(want)+1)
	}
}

// TestNoRetryOnBadRequest: a 400 means the collector will never take the spans: one
// request, and the error says why.
func TestNoRetryOnBadRequest(t *testing.T) {
	c := &collector{answer: []int{http.StatusBadRequest, http.StatusOK}}
	srv := httptest.NewServer(c)
	defer srv.Close()
	e := newExporter(t, Options{URL: srv.URL + "/v1/traces", Retry: retry})
	waits := fakeClock(e)
	err := e.ExportSpans(context.Background(), testSpans(t))
	if err == nil || !strings.Contains(err.Error(), "400 Bad Request: collector says Bad Request") {
		t.Errorf("error %v, want the collector's answer", err)
	}
	if n := len(c.requests()); n != 1 || len(*waits) != 0 {
		t.Errorf("%d requests, %d waits; want 1 and none", n, len(*waits))
	}
}

// TestRetriesUnreachable: a collector that cannot be reached is tried again.
func TestRetriesUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1/traces"
	srv.Close()
	e := newExporter(t, Options{URL: url, Retry: retry})
	waits := fakeClock(e)
	if err := e.ExportSpans(context.Background(), testSpans(t)); err == nil {
		t.Fatal("no error exporting to a closed port")
	}
	if len(*waits) == 0 {
		t.Error("an unreachable collector was not tried again")
	}
}

// TestShutdown: Shutdown interrupts an export waiting to retry, and later exports send
// nothing and succeed.
func TestShutdown(t *testing.T) {
	c := &collector{answer: []int{http.StatusServiceUnavailable}}
	srv := httptest.NewServer(c)
	defer srv.Close()
	e := newExporter(t, Options{URL: srv.URL + "/v1/traces", Retry: retry})
	e.wait = func(ctx context.Context, _ time.Duration) error {
		e.Shutdown(context.Background())
		<-ctx.Done()
		return context.Cause(ctx)
	}
	if err := e.ExportSpans(context.Background(), testSpans(t)); err == nil {
		t.Error("an export interrupted by Shutdown succeeded")
	}
	if err := e.ExportSpans(context.Background(), testSpans(t)); err != nil {
		t.Errorf("export after Shutdown: %v, want nil", err)
	}
	if n := len(c.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// writePEM writes blocks of type typ to a file in dir.
func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTLS: OTEL_EXPORTER_OTLP_CERTIFICATE is the collector's trusted certificate, and
// the client certificate and key are presented to a collector that asks for them.
func TestTLS(t *testing.T) {
	c := &collector{}
	srv := httptest.NewUnstartedServer(c)
	var mu sync.Mutex
	var clientCerts int
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert, VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
		mu.Lock()
		clientCerts += len(raw)
		mu.Unlock()
		return nil
	}}
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	url := srv.URL + "/v1/traces"

	if err := newExporter(t, Options{URL: url}).ExportSpans(context.Background(), testSpans(t)); err == nil {
		t.Fatal("a collector whose certificate is not trusted was trusted")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", writePEM(t, dir, "ca.pem", "CERTIFICATE", srv.Certificate().Raw))
	if err := newExporter(t, Options{URL: url}).ExportSpans(context.Background(), testSpans(t)); err != nil {
		t.Fatalf("with the collector's certificate: %v", err)
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", writePEM(t, dir, "client.pem", "CERTIFICATE", der))
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", writePEM(t, dir, "client-key.pem", "EC PRIVATE KEY", keyDER))
	if err := newExporter(t, Options{URL: url}).ExportSpans(context.Background(), testSpans(t)); err != nil {
		t.Fatalf("with a client certificate: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if clientCerts != 1 {
		t.Errorf("the collector was shown %d client certificates, want 1", clientCerts)
	}
	if n := len(c.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
