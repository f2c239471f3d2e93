// Package otlphttp exports spans to an OpenTelemetry collector over OTLP/HTTP, in binary
// protobuf (application/x-protobuf), configured by the standard OTEL_EXPORTER_OTLP_*
// variables. It does what the OpenTelemetry project's OTLP/HTTP exporter does for the
// CLI, without linking gRPC, whose packages the exporter's configuration imports and
// whose initialisation every start of the CLI would pay for.
package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Retry is how a failed export is tried again: after Initial, then after intervals that
// grow by half up to Max, each randomised by ±50%, until MaxElapsed has passed. The zero
// Retry tries once.
type Retry struct {
	Initial, Max, MaxElapsed time.Duration
}

// Options configure an Exporter.
type Options struct {
	// URL is where spans are posted, used as is. When empty, it is
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as is) or OTEL_EXPORTER_OTLP_ENDPOINT with
	// /v1/traces added to its path.
	URL   string
	Retry Retry
}

// Exporter is an sdktrace.SpanExporter that posts spans to a collector over OTLP/HTTP.
type Exporter struct {
	url       string
	headers   map[string]string
	gzip      bool
	client    *http.Client
	retry     Retry
	stopped   context.Context // done once Shutdown is called
	stop      context.CancelFunc
	now       func() time.Time
	wait      func(context.Context, time.Duration) error
	randomise func(time.Duration) time.Duration
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// env is the value of OTEL_EXPORTER_OTLP_TRACES_<key>, else of OTEL_EXPORTER_OTLP_<key>,
// and the name of the variable it came from.
func env(key string) (value, name string) {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_" + key, "OTEL_EXPORTER_OTLP_" + key} {
		if v := strings.TrimSpace(os.Getenv(name)); v != "" {
			return v, name
		}
	}
	return "", ""
}

// New returns an exporter configured by o and the OTEL_EXPORTER_OTLP_* variables; a
// variable it cannot use is an error naming it.
func New(o Options) (*Exporter, error) {
	e := &Exporter{url: o.URL, retry: o.Retry, now: time.Now, wait: wait, randomise: randomise}
	if e.url == "" {
		var err error
		if e.url, err = envURL(); err != nil {
			return nil, err
		}
	}
	if v, name := env("HEADERS"); v != "" {
		h, err := parseHeaders(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		e.headers = h
	}
	timeout := 10 * time.Second
	if v, name := env("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("%s=%q: want a number of milliseconds", name, v)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	if v, name := env("COMPRESSION"); v != "" {
		switch strings.ToLower(v) {
		case "gzip":
			e.gzip = true
		case "none":
		default:
			return nil, fmt.Errorf("%s=%q: want gzip or none", name, v)
		}
	}
	tc, err := tlsConfig()
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if tc != nil {
		transport.TLSClientConfig = tc
	}
	e.client = &http.Client{Transport: transport, Timeout: timeout}
	e.stopped, e.stop = context.WithCancel(context.Background())
	return e, nil
}

// envURL is the URL the variables name: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is (a URL
// without a path posts to /), else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces.
func envURL() (string, error) {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		v := strings.TrimSpace(os.Getenv(name))
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("%s=%q: want an http:// or https:// URL, like http://localhost:4318", name, v)
		}
		if name == "OTEL_EXPORTER_OTLP_ENDPOINT" {
			u.Path = path.Join(u.Path, "/v1/traces")
		} else if u.Path == "" {
			u.Path = "/"
		}
		return u.String(), nil
	}
	return "", errors.New("no OTLP endpoint: OTEL_EXPORTER_OTLP_ENDPOINT is not set")
}

// parseHeaders reads key=value pairs separated by commas, the values URL-encoded.
func parseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsFunc(k, func(r rune) bool { return !isTokenChar(r) }) {
			return nil, fmt.Errorf("%q: want key=value pairs separated by commas", pair)
		}
		dv, err := url.PathUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("%q: the value is not URL-encoded: %v", pair, err)
		}
		h[k] = strings.TrimSpace(dv)
	}
	return h, nil
}

// isTokenChar reports whether r may be in an HTTP header name.
func isTokenChar(r rune) bool {
	return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		strings.ContainsRune("!#$%&'*+-.^_`|~", r))
}

// tlsConfig is the TLS configuration the certificate variables ask for, nil for none.
func tlsConfig() (*tls.Config, error) {
	var tc *tls.Config
	if file, name := env("CERTIFICATE"); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", name, file)
		}
		tc = &tls.Config{RootCAs: pool}
	}
	certFile, certName := env("CLIENT_CERTIFICATE")
	keyFile, keyName := env("CLIENT_KEY")
	if certFile != "" || keyFile != "" {
		if certFile == "" || keyFile == "" {
			return nil, errors.New("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY (or their _TRACES_ forms) go together: set both")
		}
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("%s and %s: %v", certName, keyName, err)
		}
		if tc == nil {
			tc = &tls.Config{}
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// ExportSpans posts spans to the collector, retrying as Options.Retry says when the
// collector is unreachable or asks for it (429, 502, 503, 504). After Shutdown it does
// nothing.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.stopped.Err() != nil || len(spans) == 0 {
		return nil
	}
	body, err := encodeRequest(spans)
	if err != nil {
		return fmt.Errorf("encoding spans: %v", err)
	}
	if e.gzip {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write(body) // writes to a bytes.Buffer do not fail
		z.Close()
		body = b.Bytes()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(e.stopped, cancel)() // Shutdown interrupts an export in flight

	start := e.now()
	interval := e.retry.Initial
	for {
		retryAfter, err := e.post(ctx, body)
		if err == nil {
			return nil
		}
		if retryAfter < 0 || e.retry.Initial <= 0 || ctx.Err() != nil {
			return err
		}
		delay := max(e.randomise(interval), retryAfter)
		interval = min(interval+interval/2, max(e.retry.Max, e.retry.Initial))
		if e.now().Sub(start)+delay > e.retry.MaxElapsed {
			return fmt.Errorf("%v (gave up retrying after %s)", err, e.now().Sub(start).Round(time.Millisecond))
		}
		if werr := e.wait(ctx, delay); werr != nil {
			return fmt.Errorf("%v (%v)", err, werr)
		}
	}
}

// post sends body once. A failure that may be retried returns the delay the collector
// asked for (0 if none); one that may not returns -1.
func (e *Exporter) post(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "hermesctl")
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, err // the collector cannot be reached: try again
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return 0, nil // a partial success is a success: nothing would be gained by sending again
	}
	text := strings.Join(strings.Fields(string(msg)), " ")
	if text == "" {
		text = "(empty)"
	}
	err = fmt.Errorf("POST %s: %s: %s", e.url, resp.Status, text)
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return retryAfter(resp.Header.Get("Retry-After"), e.now()), err
	}
	return -1, err
}

// retryAfter is the delay a Retry-After header asks for, in seconds or as a date; 0 if none.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, int64(time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// randomise spreads d by ±50%, so that clients that failed together do not retry together.
func randomise(d time.Duration) time.Duration {
	return d/2 + rand.N(d+1)
}

// wait returns after d, or when ctx is done.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Shutdown interrupts an export in flight; later exports do nothing.
func (e *Exporter) Shutdown(ctx context.Context) error {
	e.stop()
	return ctx.Err()
}
