package serverbench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/logging"
	"github.com/open-policy-agent/opa/v1/runtime"

	"github.com/hermes-hooks/hermes/engine"
	hmetrics "github.com/hermes-hooks/hermes/metrics"
	"github.com/hermes-hooks/hermes/server"
)

// The reference guard, as a Lua plugin of a home and as a Rego policy.
var (
	guardHome = filepath.Join("testdata", "home")
	guardRego = filepath.Join("testdata", "guard.rego")
)

// inputs are pre_tool_call kwargs, half of them blocked by the guard.
var inputs = []string{
	`{"tool_name":"terminal","args":{"command":"rm -rf /"}}`,
	`{"tool_name":"terminal","args":{"command":"ls -la /tmp"}}`,
	`{"tool_name":"terminal","args":{"command":"cd build && rm -rf ./out"}}`,
	`{"tool_name":"terminal","args":{"command":"git status"}}`,
	`{"tool_name":"read_file","args":{"path":"rm -rf"}}`,
	`{"tool_name":"terminal","args":{"command":"sudo rm -rf --no-preserve-root /"}}`,
	`{"tool_name":"terminal","args":{"command":"rm -r -f /"}}`,
	`{"tool_name":"terminal","args":{}}`,
}

// peer is a server under load: where to POST a decision and how.
type peer struct {
	name   string
	url    string
	header http.Header
	// body wraps the kwargs into the peer's request body.
	body func(kwargs string) []byte
	// decision reads the peer's answer: the guard's decision, nil when it lets the call through.
	decision func(answer []byte) (map[string]any, error)
}

// startOurs serves home's hooks as `hermesctl serve` does, on loopback TCP until the test
// ends: a bearer token required, the access log (JSON, discarded) and the metrics on.
func startOurs(tb testing.TB, home string) peer {
	tb.Helper()
	file := filepath.Join(tb.TempDir(), "tokens.json")
	toks, err := server.LoadTokens(file)
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := toks.Add(file, "bench")
	if err != nil {
		tb.Fatal(err)
	}
	if toks, err = server.LoadTokens(file); err != nil {
		tb.Fatal(err)
	}
	metrics := engine.NewMetrics()
	reg := hmetrics.NewRegistry()
	reg.Register(metrics)
	eng, err := engine.New(context.Background(), engine.Options{Home: home, ManagedHome: filepath.Join(tb.TempDir(), "managed"), Metrics: metrics})
	if err != nil {
		tb.Fatal(err)
	}
	if len(eng.Plugins()) == 0 {
		tb.Fatalf("%s loaded no plugin", home)
	}
	srv, err := server.New(server.Options{Engine: eng, Tokens: toks, Registry: reg,
		AccessLog: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(l)
	tb.Cleanup(func() { hs.Close(); eng.Close(context.Background()) })
	return peer{
		name:   "hermes",
		url:    "http://" + l.Addr().String() + "/v1/hooks/pre_tool_call",
		header: http.Header{"Authorization": {"Bearer " + tok}, "Content-Type": {"application/json"}},
		body:   func(kwargs string) []byte { return []byte(kwargs) },
		decision: func(answer []byte) (map[string]any, error) {
			var a struct {
				Outcome map[string]any `json:"outcome"`
			}
			err := json.Unmarshal(answer, &a)
			return a.Outcome, err
		},
	}
}

// startOPA runs Open Policy Agent's server with the Rego guard, in this process, on loopback
// TCP until the test ends: its defaults (no authentication, its Prometheus metrics on), its
// log at the error level (so no record per request) and discarded.
func startOPA(tb testing.TB) peer {
	tb.Helper()
	logger := logging.New()
	logger.SetOutput(io.Discard)
	logger.SetLevel(logging.Error)
	params := runtime.NewParams()
	params.Addrs = &[]string{"127.0.0.1:0"}
	params.Paths = []string{guardRego}
	params.Logger, params.ConsoleLogger = logger, logger
	params.Output = io.Discard
	ctx, cancel := context.WithCancel(context.Background())
	rt, err := runtime.NewRuntime(ctx, params)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- rt.Serve(ctx) }()
	tb.Cleanup(func() { cancel(); <-served })
	deadline := time.Now().Add(30 * time.Second)
	for len(rt.Addrs()) == 0 {
		select {
		case err := <-served:
			tb.Fatalf("opa: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatal("opa did not listen within 30 s")
		}
	}
	return peer{
		name:   "opa",
		url:    "http://" + rt.Addrs()[0] + "/v1/data/guard/decision",
		header: http.Header{"Content-Type": {"application/json"}},
		body:   func(kwargs string) []byte { return []byte(`{"input":` + kwargs + `}`) },
		decision: func(answer []byte) (map[string]any, error) {
			var a struct {
				Result map[string]any `json:"result"`
			}
			err := json.Unmarshal(answer, &a)
			return a.Result, err
		},
	}
}

// decide asks p for the guard's decision on kwargs.
func decide(tb testing.TB, p peer, kwargs string) map[string]any {
	tb.Helper()
	req, err := http.NewRequest("POST", p.url, bytes.NewReader(p.body(kwargs)))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header = p.header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s: %v", p.name, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		tb.Fatalf("%s answered %d %s to %s", p.name, resp.StatusCode, answer, kwargs)
	}
	d, err := p.decision(answer)
	if err != nil {
		tb.Fatalf("%s answered %s to %s: %v", p.name, answer, kwargs, err)
	}
	return d
}

// TestSameDecisions checks that both servers decide alike on every input of the load, so
// that the benchmarks compare the same work: blocked with the same message, or let through.
func TestSameDecisions(t *testing.T) {
	ours, opa := startOurs(t, guardHome), startOPA(t)
	blocked := 0
	for _, in := range inputs {
		a, b := decide(t, ours, in), decide(t, opa, in)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s: hermes decided %s, opa %s", in, ja, jb)
		}
		if a != nil {
			blocked++
			if a["action"] != "block" {
				t.Errorf("%s: hermes decided %s", in, ja)
			}
		}
	}
	if blocked != 3 {
		t.Errorf("%d of the inputs were blocked, want 3 (the `rm -rf` ones)", blocked)
	}
}
