// Package server answers hooks over HTTP, for agents and programs that are not Go: the
// decision points and observers of an engine (POST /v1/hooks/{hook}, kwargs in, the
// decision out), Claude Code's http hooks (POST /v1/claude) and the calls of
// `hermesctl hook <agent> --server` (POST /v1/agents/{agent}), with bearer tokens, health,
// readiness, Prometheus metrics, W3C trace context, an access log, a body cap and a
// concurrency cap that answers 503 instead of queueing. `hermesctl serve` runs it.
//
// Nothing that spans calls lives in a Server: the nudge counts of Stop hooks and the hooks'
// own state live in the engine's store, so replicas that share a home and a Redis store
// answer alike.
package server

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/jsonvalue"
	"github.com/hermes-hooks/hermes/metrics"
	"github.com/hermes-hooks/hermes/shell"
)

// Defaults of Options.
const (
	DefaultMaxBody     = 1 << 20
	DefaultMaxInFlight = 256
)

// Options configure a Server.
type Options struct {
	Engine *engine.Engine // required; reloaded in place by its owner
	// Tokens, when it holds any, is required of every /v1 call (Authorization: Bearer).
	Tokens *Tokens
	// MaxBody caps a request's body in bytes (DefaultMaxBody when 0); a larger one is 413.
	MaxBody int64
	// MaxInFlight caps the calls answered at once (DefaultMaxInFlight when 0); past it a call
	// is answered 503 with Retry-After at once, never queued.
	MaxInFlight int
	// FailOpen lets an agent's call through when a plugin that may serve it did not load.
	FailOpen bool
	// Registry, when set, gets the server's HTTP metrics and is served at /metrics in
	// Prometheus' text format (register the engine's Metrics in it too).
	Registry *metrics.Registry
	// TracerProvider, when set, makes each call a span, continuing the caller's W3C
	// traceparent; give the engine the same provider so its hooks' spans are children.
	TracerProvider trace.TracerProvider
	// AccessLog, when set, gets one record per request.
	AccessLog *slog.Logger
	// Logger gets warnings (nil: discarded).
	Logger *slog.Logger
}

// Server is an http.Handler answering hooks. It is safe for concurrent use.
type Server struct {
	opts    Options
	eng     *engine.Engine
	mux     *http.ServeMux
	slots   chan struct{}
	tracer  trace.Tracer
	prop    propagation.TraceContext
	metrics *httpMetrics
}

// New makes a server for opts.
func New(opts Options) (*Server, error) {
	if opts.Engine == nil {
		return nil, errors.New("server: Options.Engine is nil")
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	tp := opts.TracerProvider
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	s := &Server{opts: opts, eng: opts.Engine, mux: http.NewServeMux(), slots: make(chan struct{}, opts.MaxInFlight),
		tracer: tp.Tracer("github.com/hermes-hooks/hermes/server")}
	if opts.Registry != nil {
		s.metrics = newHTTPMetrics(opts.Registry)
		opts.Registry.Register(bundleMetrics{s.eng})
		s.mux.Handle("GET /metrics", opts.Registry)
	}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]any{"status": "ok"}) })
	s.mux.HandleFunc("GET /readyz", s.ready)
	s.mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openAPI)
	})
	s.mux.Handle("POST /v1/hooks/{hook}", s.call("/v1/hooks/{hook}", s.hook))
	s.mux.Handle("POST /v1/claude", s.call("/v1/claude", s.claude))
	s.mux.Handle("POST /v1/agents/{agent}", s.call("/v1/agents/{agent}", s.agent))
	s.mux.Handle("GET /v1/status", s.call("/v1/status", s.status))
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// callFunc answers one authorised call whose body was read: its status and JSON answer.
type callFunc func(ctx context.Context, r *http.Request, body []byte) (int, any)

// call wraps a /v1 endpoint: the concurrency cap, the token, the body cap, the caller's
// trace context, the span, the access log and the metrics.
func (s *Server) call(route string, f callFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		caller := "-"
		code := s.serveCall(w, r, f, route, &caller)
		if s.metrics != nil {
			s.metrics.observe(route, code, caller, time.Since(start))
		}
		if s.opts.AccessLog != nil {
			s.opts.AccessLog.Info("request", "method", r.Method, "path", r.URL.Path, "status", code, "caller", caller,
				"duration_ms", float64(time.Since(start).Microseconds())/1000, "remote", r.RemoteAddr)
		}
	})
}

func (s *Server) serveCall(w http.ResponseWriter, r *http.Request, f callFunc, route string, caller *string) int {
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		w.Header().Set("Retry-After", "1")
		return writeError(w, http.StatusServiceUnavailable, "too many calls at once; retry after a second")
	}
	name, ok := s.opts.Tokens.Check(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hermes"`)
		return writeError(w, http.StatusUnauthorized, "a valid bearer token is required (hermesctl serve token add NAME)")
	}
	*caller = name
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", s.opts.MaxBody))
		}
		return writeError(w, http.StatusBadRequest, "cannot read the body: "+err.Error())
	}
	ctx := s.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	if name != "-" { // a token's name: the decision log records who asked
		ctx = engine.WithCaller(ctx, name)
	}
	ctx, span := s.tracer.Start(ctx, r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer))
	defer span.End()
	code, answer := f(ctx, r, body)
	if answer == nil {
		w.WriteHeader(code)
		return code
	}
	return writeJSON(w, code, answer)
}

// hook answers POST /v1/hooks/{hook}: kwargs in, the merged outcome out, in the wire shape
// a hook answers (`{"action": "block", "message": ...}`, `{"context": ...}`, ...; null when
// nothing changes). Wrap hooks need the call itself and gateway events are the gateway's:
// neither is served.
func (s *Server) hook(ctx context.Context, r *http.Request, body []byte) (int, any) {
	name := r.PathValue("hook")
	h, ok := hookspec.ParseHook(name)
	if !ok || h.IsWrap() {
		why := fmt.Sprintf("no hook %q here", name)
		if ok {
			why = fmt.Sprintf("%s wraps a call, which cannot cross HTTP: run it in a Go host", name)
		}
		return http.StatusNotFound, errorBody(why)
	}
	kwargs := map[string]any{}
	if len(strings.TrimSpace(string(body))) > 0 {
		v, err := jsonvalue.Decode(body)
		obj, isObj := v.(map[string]any)
		if err != nil || !isObj {
			return http.StatusBadRequest, errorBody("the body must be a JSON object of the hook's kwargs")
		}
		kwargs = obj
	}
	rep := s.eng.Fire(ctx, h, kwargs)
	return http.StatusOK, map[string]any{"hook": name, "outcome": rep.Outcome}
}

// claude answers Claude Code's http hooks: always 2xx (Claude Code reads any other status as
// a non-blocking error), the decision in the JSON body, or no body when there is nothing
// to say.
func (s *Server) claude(ctx context.Context, r *http.Request, body []byte) (int, any) {
	call, err := shell.ReadAgentCall(shell.DialectClaude, body, nil)
	if err != nil {
		return http.StatusBadRequest, errorBody(err.Error())
	}
	reply := call.AsHTTP(AnswerAgent(ctx, s.eng, call, s.opts.FailOpen, s.opts.Logger))
	if reply == "" {
		return http.StatusNoContent, nil
	}
	return http.StatusOK, json.RawMessage(reply)
}

// agent answers POST /v1/agents/{agent}: the agent's payload in, the command hook's answer
// out ({"exit", "stdout", "stderr"}), for `hermesctl hook <agent> --server`.
func (s *Server) agent(ctx context.Context, r *http.Request, body []byte) (int, any) {
	call, err := shell.ReadAgentCall(r.PathValue("agent"), body, nil)
	if err != nil {
		return http.StatusBadRequest, errorBody(err.Error())
	}
	reply := AnswerAgent(ctx, s.eng, call, s.opts.FailOpen, s.opts.Logger)
	return http.StatusOK, map[string]any{"exit": reply.Exit, "stdout": reply.Stdout, "stderr": reply.Stderr}
}

// status answers GET /v1/status: what the server runs, and the state of the managed
// home's bundle feed when it has one.
func (s *Server) status(ctx context.Context, r *http.Request, body []byte) (int, any) {
	out := map[string]any{"status": "ok", "plugins": len(s.eng.Plugins()), "shell_hooks": len(s.eng.ShellHooks()), "warnings": len(s.eng.Warnings())}
	if st, ok := s.eng.Bundle(); ok {
		out["bundle"] = st
	}
	return http.StatusOK, out
}

// ready answers /readyz: the home is loaded and the store answers.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	b, err := s.eng.Store()
	if err == nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		_, _, err = b.Get(ctx, NudgeNS, "readyz")
		cancel()
	}
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "the store does not answer: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "plugins": len(s.eng.Plugins()), "shell_hooks": len(s.eng.ShellHooks())})
}

func errorBody(msg string) map[string]any { return map[string]any{"error": msg} }

func writeError(w http.ResponseWriter, code int, msg string) int {
	return writeJSON(w, code, errorBody(msg))
}

func writeJSON(w http.ResponseWriter, code int, v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"the answer cannot be encoded"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
	return code
}

//go:embed openapi.json
var openAPI []byte
