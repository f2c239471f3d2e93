package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/cmd/hermesctl/internal/otlphttp"
	"github.com/hermes-hooks/hermes/gateway/runner"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// traceArgs are the flags of replay and demo that record the run's spans.
type traceArgs struct {
	otlpEndpoint string // export over OTLP/HTTP to this URL
	html         string // write the HTML timeline to this file
	title        string // what the report calls the transcript; "" means its path
}

// traceFlags defines --otlp-endpoint and --html in fs.
func traceFlags(fs *flag.FlagSet, a *traceArgs) {
	fs.StringVar(&a.otlpEndpoint, "otlp-endpoint", "", "export the run's spans over OTLP/HTTP to `URL` (e.g. http://localhost:4318; the OTEL_EXPORTER_OTLP_* variables are honoured)")
	fs.StringVar(&a.html, "html", "", "write the run as a self-contained HTML timeline to `FILE`")
}

// otlpEnv are the variables that ask for an OTLP export without --otlp-endpoint.
var otlpEnv = []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"}

// tracing is the tracer provider of one run, what it exports to, and what it keeps for the
// HTML report.
type tracing struct {
	tp       *sdktrace.TracerProvider
	exporter *checkedExporter // nil: no OTLP export
	endpoint string           // where it exports, for messages
	kept     *keptSpans       // nil: no report
}

// newTracing builds the provider a's flags and the environment ask for, or returns nil
// when nothing is asked: then nothing is traced.
func (c *cli) newTracing(ctx context.Context, a traceArgs) (*tracing, error) {
	endpoint := a.otlpEndpoint
	if endpoint == "" {
		for _, k := range otlpEnv {
			if v := os.Getenv(k); v != "" {
				endpoint = k + "=" + v
				break
			}
		}
	}
	if endpoint == "" && a.html == "" {
		return nil, nil
	}
	t := &tracing{endpoint: endpoint}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "hermesctl")),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("tracing resource: %v", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if endpoint != "" {
		// A run is short: an unreachable collector is given seconds, not the SDK's minute.
		eopts := otlphttp.Options{Retry: otlphttp.Retry{Initial: time.Second, Max: 5 * time.Second, MaxElapsed: 10 * time.Second}}
		if a.otlpEndpoint != "" {
			u, err := tracesURL(a.otlpEndpoint)
			if err != nil {
				return nil, err
			}
			eopts.URL = u
		}
		exp, err := otlphttp.New(eopts) // reads OTEL_EXPORTER_OTLP_* itself
		if err != nil {
			return nil, err // it names the variable it could not use
		}
		t.exporter = &checkedExporter{SpanExporter: exp}
		opts = append(opts, sdktrace.WithBatcher(t.exporter))
	}
	if a.html != "" {
		t.kept = &keptSpans{}
		opts = append(opts, sdktrace.WithSpanProcessor(t.kept))
	}
	t.tp = sdktrace.NewTracerProvider(opts...)
	return t, nil
}

// tracesURL is the URL spans are posted to for --otlp-endpoint: like
// OTEL_EXPORTER_OTLP_ENDPOINT, a URL without a path gets the signal's path /v1/traces.
func tracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--otlp-endpoint %q: want an http:// or https:// URL, like http://localhost:4318", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// provider is the provider to give the engine; nil when nothing is traced.
func (t *tracing) provider() trace.TracerProvider {
	if t == nil {
		return nil
	}
	return t.tp
}

// start starts the span of the whole run, the root of its trace.
func (t *tracing) start(ctx context.Context, name string) (context.Context, trace.Span) {
	if t == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return t.tp.Tracer("github.com/hermes-hooks/hermes/cmd/hermesctl").Start(ctx, name)
}

// shutdown flushes the spans to the exporter, within a bound, and reports whether every
// export succeeded.
func (t *tracing) shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	err := t.tp.Shutdown(ctx)
	if t.exporter != nil {
		err = errors.Join(err, t.exporter.failed())
	}
	if err != nil {
		return fmt.Errorf("exporting spans to %s: %v", t.endpoint, err)
	}
	return nil
}

// checkedExporter remembers the first error of its exports, which the SDK would otherwise
// only hand to the global error handler.
type checkedExporter struct {
	sdktrace.SpanExporter
	mu  sync.Mutex
	err error
}

func (e *checkedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		e.mu.Lock()
		if e.err == nil {
			e.err = err
		}
		e.mu.Unlock()
	}
	return err
}

func (e *checkedExporter) failed() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// keptSpans keeps every ended span, for the HTML report.
type keptSpans struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (k *keptSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (k *keptSpans) Shutdown(context.Context) error                  { return nil }
func (k *keptSpans) ForceFlush(context.Context) error                { return nil }

func (k *keptSpans) OnEnd(s sdktrace.ReadOnlySpan) {
	k.mu.Lock()
	k.spans = append(k.spans, s)
	k.mu.Unlock()
}

// all returns the spans kept so far.
func (k *keptSpans) all() []sdktrace.ReadOnlySpan {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.spans)
}

// finishTracing flushes the run's spans to the exporter and writes the HTML report; a
// failure of either is reported (exit 1), after the timeline.
func (c *cli) finishTracing(ctx context.Context, t *tracing, a traceArgs, tl runner.Timeline, transcript, home string) int {
	if t == nil {
		return exitOK
	}
	if err := t.shutdown(ctx); err != nil {
		return c.fail(exitInternal, "replay: %v", err)
	}
	if a.html == "" {
		return exitOK
	}
	if a.title != "" {
		transcript = a.title
	}
	if err := writeReportFile(a.html, buildReport(t.kept.all(), tl, transcript, home)); err != nil {
		return c.fail(exitInternal, "replay: --html: %v", err)
	}
	return exitOK
}

// writeReportFile writes rep to path.
func writeReportFile(path string, rep report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeReport(f, rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
