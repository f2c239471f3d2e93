package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/bundlefeed"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/logbatch"
	"github.com/hermes-hooks/hermes/metrics"
	"github.com/hermes-hooks/hermes/server"
)

// serveArgs are the flags of serve.
type serveArgs struct {
	addr, tlsCert, tlsKey, clientCA string
	maxBody                         int64
	maxInFlight                     int
	failOpen                        bool
	drain                           time.Duration
	otlpEndpoint, storeURL          string
	states, maxStates               int
	bundle                          string     // --bundle: the managed layer's bundle feed
	bundleKeys                      stringList // --bundle-key
	bundlePoll, bundleMaxAge        time.Duration
}

var serveCommand = &command{
	name: "serve",
	examples: []string{"hermesctl serve  # http://127.0.0.1:8787", "hermesctl serve --addr unix:/run/hermes/hooks.sock",
		"hermesctl serve token add ci-bot  # a bearer token, printed once"},
	args: "[token add|list|revoke [NAME]]",
	help: "answer the home's hooks over HTTP (POST /v1/hooks/{hook}, Claude Code's http hooks at /v1/claude, /healthz, /readyz, /metrics); `serve token add NAME` makes a bearer token",
	flags: func(fs *flag.FlagSet) runFunc {
		var a serveArgs
		fs.StringVar(&a.addr, "addr", "127.0.0.1:8787", "listen on `HOST:PORT`, or unix:PATH; off loopback TLS and tokens are required")
		fs.StringVar(&a.tlsCert, "tls-cert", "", "serve HTTPS with the certificate in `FILE` (with --tls-key)")
		fs.StringVar(&a.tlsKey, "tls-key", "", "the TLS private key in `FILE`")
		fs.StringVar(&a.clientCA, "client-ca", "", "require client certificates signed by the CAs in `FILE` (mTLS)")
		fs.Int64Var(&a.maxBody, "max-body", server.DefaultMaxBody, "refuse request bodies over `BYTES` (413)")
		fs.IntVar(&a.maxInFlight, "max-inflight", server.DefaultMaxInFlight, "answer 503 with Retry-After past `N` calls at once")
		fs.BoolVar(&a.failOpen, "fail-open", false, "let an agent's call through when a plugin that may serve it did not load")
		fs.DurationVar(&a.drain, "drain", 30*time.Second, "on SIGTERM, wait up to `DURATION` for calls in flight")
		fs.StringVar(&a.storeURL, "store-url", "", "keep the hooks' state in the store at `URL` (redis://...), over config.yaml's store: (also $HERMES_STORE_URL, which keeps a password out of the process list)")
		fs.IntVar(&a.states, "limit-states", 0, "at most `N` Lua states per plugin, whatever its plugin.yaml asks (0: no bound)")
		fs.IntVar(&a.maxStates, "limit-max-states", 0, "at most `N` Lua states per plugin while calls wait on I/O (0: no bound)")
		fs.StringVar(&a.otlpEndpoint, "otlp-endpoint", "", "export spans over OTLP/HTTP to `URL`, each call continuing its caller's traceparent (the OTEL_EXPORTER_OTLP_* variables are honoured)")
		fs.StringVar(&a.bundle, "bundle", "", "pull the managed layer's signed bundle from `URL` (https; http only to loopback), as bundles: of the managed config.yaml would")
		fs.Var(&a.bundleKeys, "bundle-key", "a public key `FILE` (PEM) the bundle must be signed with (repeat it for several)")
		fs.DurationVar(&a.bundlePoll, "bundle-poll", bundlefeed.DefaultPoll, "check --bundle every `DURATION`, plus up to a tenth at random")
		fs.DurationVar(&a.bundleMaxAge, "bundle-max-age", 0, "report --bundle stale (a warning, /v1/status, hermes_bundle_stale) once its last successful check is older than `DURATION` (0: never)")
		return func(ctx context.Context, c *cli, args []string) int {
			if len(args) > 0 {
				return runServeToken(c, args)
			}
			return runServe(ctx, c, a)
		}
	},
}

// tokenFile is where a home's server tokens are kept (their digests).
func tokenFile(home string) string { return filepath.Join(homedir.Resolve(home), "server-tokens.json") }

func runServeToken(c *cli, args []string) int {
	file := tokenFile(c.home)
	toks, err := server.LoadTokens(file)
	if err != nil {
		return c.fail(exitConfig, "%v", err)
	}
	switch {
	case args[0] != "token" || len(args) < 2:
		return c.fail(exitUsage, "serve takes no arguments but `token add NAME`, `token list` and `token revoke NAME`")
	case args[1] == "add" && len(args) == 3:
		tok, err := toks.Add(file, args[2])
		if err != nil {
			return c.fail(exitConfig, "%v", err)
		}
		fmt.Fprintf(c.stdout, "%s\n", tok)
		fmt.Fprintf(c.stderr, "token %s added to %s: give it to the caller now (Authorization: Bearer ...); only its digest is kept\n", args[2], file)
	case args[1] == "list" && len(args) == 2:
		for _, t := range toks.List() {
			fmt.Fprintf(c.stdout, "%s\tcreated %s\n", t.Name, t.Created.Format(time.RFC3339))
		}
	case args[1] == "revoke" && len(args) == 3:
		if err := toks.Revoke(file, args[2]); err != nil {
			return c.fail(exitConfig, "%v", err)
		}
		fmt.Fprintf(c.stdout, "revoked %s\n", args[2])
	default:
		return c.fail(exitUsage, "usage: serve token add NAME | token list | token revoke NAME")
	}
	return exitOK
}

// listen opens the address: a unix socket, loopback, or (with TLS and tokens) any other.
func listen(a serveArgs, toks *server.Tokens) (net.Listener, *tls.Config, error) {
	if path, ok := strings.CutPrefix(a.addr, "unix:"); ok {
		l, err := listenUnix(path)
		return l, nil, err
	}
	host, _, err := net.SplitHostPort(a.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--addr %s: %v (HOST:PORT or unix:PATH)", a.addr, err)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if !loopback && (a.tlsCert == "" || toks.Len() == 0) {
		return nil, nil, fmt.Errorf("--addr %s is not loopback: anyone who reaches it could call the hooks, so it needs --tls-cert and --tls-key, and a token (hermesctl serve token add NAME)", a.addr)
	}
	cfg, err := tlsConfig(a)
	if err != nil {
		return nil, nil, err
	}
	l, err := net.Listen("tcp", a.addr)
	return l, cfg, err
}

// listenUnix listens on a unix socket at path that appears only once it listens: the
// socket is made under a temporary name and renamed into place, so a client that finds the
// file can connect (net.Listen creates the file at bind, before it listens). A socket left
// by a server that did not stop cleanly is replaced; the socket is removed at Close.
func listenUnix(path string) (net.Listener, error) {
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d.tmp", filepath.Base(path), os.Getpid()))
	os.Remove(tmp)
	l, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, err
	}
	ul := l.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // the name it would unlink is the temporary one
	if err := os.Rename(tmp, path); err != nil {
		l.Close()
		os.Remove(tmp)
		return nil, err
	}
	return &unixListener{UnixListener: ul, path: path}, nil
}

// unixListener removes its socket when it closes.
type unixListener struct {
	*net.UnixListener
	path string
}

func (l *unixListener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	os.Remove(l.path)
	return err
}

// tlsConfig is the server's TLS configuration (nil without --tls-cert).
func tlsConfig(a serveArgs) (*tls.Config, error) {
	if (a.tlsCert == "") != (a.tlsKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	if a.tlsCert == "" {
		if a.clientCA != "" {
			return nil, errors.New("--client-ca needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(a.tlsCert, a.tlsKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %v", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if a.clientCA != "" {
		pem, err := os.ReadFile(a.clientCA)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--client-ca %s holds no PEM certificate", a.clientCA)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

func runServe(ctx context.Context, c *cli, a serveArgs) int {
	if a.bundle == "" && len(a.bundleKeys) > 0 {
		return c.fail(exitUsage, "--bundle-key is the key of a --bundle feed: give --bundle URL too")
	}
	if a.bundle == "" && a.bundleMaxAge != 0 {
		return c.fail(exitUsage, "--bundle-max-age is the age of a --bundle feed: give --bundle URL too")
	}
	toks, err := server.LoadTokens(tokenFile(c.home))
	if err != nil {
		return c.fail(exitConfig, "%v", err)
	}
	l, tlsCfg, err := listen(a, toks)
	if err != nil {
		return c.fail(exitUsage, "%v", err)
	}
	tr, err := c.newTracing(ctx, traceArgs{otlpEndpoint: a.otlpEndpoint})
	if err != nil {
		l.Close()
		return c.fail(exitUsage, "%v", err)
	}
	defer tr.shutdown(context.WithoutCancel(ctx))
	m := engine.NewMetrics()
	reg := metrics.NewRegistry()
	reg.Register(m)
	storeURL := a.storeURL
	if storeURL == "" {
		storeURL = os.Getenv("HERMES_STORE_URL")
	}
	opts := engine.Options{Home: c.home, Logger: c.logger, Metrics: m, AcceptHooks: c.acceptHooks, TracerProvider: tr.provider(),
		StoreURL: storeURL, Limits: engine.Limits{States: a.states, MaxStates: a.maxStates}}
	if a.bundle != "" {
		opts.Bundles = &engine.BundleFeed{URL: a.bundle, Keys: a.bundleKeys, Poll: a.bundlePoll, MaxAge: a.bundleMaxAge, From: "--bundle"}
	}
	if st, activated, err := engine.PullBundle(ctx, opts); err != nil { // before the load: a newer bundle, or the cached one
		c.logger.Warn("bundle check failed; the cached bundle loads", "url", st.URL, "revision", st.Revision, "error", err)
	} else if activated {
		c.logger.Info("bundle activated", "url", st.URL, "revision", st.Revision)
	}
	eng, err := engine.New(ctx, opts)
	if err != nil {
		l.Close()
		return c.fail(exitConfig, "cannot load %s: %v", homedir.Resolve(c.home), err)
	}
	// The access log goes out in batches (a write per request was a tenth of a busy server's
	// CPU), each record at most 100 ms after its request, the rest when the server stops.
	access := logbatch.New(c.stderr, 32<<10, accessLogDelay)
	defer access.Flush()
	srv, err := server.New(server.Options{Engine: eng, Tokens: toks, MaxBody: a.maxBody, MaxInFlight: a.maxInFlight, FailOpen: a.failOpen,
		Registry: reg, AccessLog: slog.New(slog.NewJSONHandler(access, nil)), Logger: c.logger, TracerProvider: tr.provider()})
	if err != nil {
		return c.fail(exitInternal, "%v", err)
	}
	hs := &http.Server{Handler: srv, TLSConfig: tlsCfg, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(c.logger.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() {
		if tlsCfg != nil {
			served <- hs.ServeTLS(l, "", "")
		} else {
			served <- hs.Serve(l)
		}
	}()
	reloads := c.watchReloads(ctx, eng, opts)
	fmt.Fprintf(c.stderr, "hermesctl: serving %s on %s (%d plugins, %d shell hooks, %d tokens)\n", homedir.Resolve(c.home), l.Addr(), len(eng.Plugins()), len(eng.ShellHooks()), toks.Len())
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	reloads()
	return c.drain(hs, eng, access, a.drain, err)
}

// watchReloads reloads the engine when the home changes and on SIGHUP (a broken home keeps
// the running set, with a warning); the returned func stops it.
//
// With bundles: in the managed home, it also checks the feed every poll interval (plus
// jitter) and reloads once a new revision is active (pollBundles).
func (c *cli) watchReloads(ctx context.Context, eng *engine.Engine, opts engine.Options) func() {
	ctx, cancel := context.WithCancel(ctx)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	var mu sync.Mutex // one reload at a time, so a bundle's reload is logged after the one that loaded it
	reload := func(why string) {
		mu.Lock()
		defer mu.Unlock()
		if err := eng.Reload(ctx); err != nil && ctx.Err() == nil {
			c.logger.Warn("reload failed; the running hooks stay", "cause", why, "error", err)
			return
		}
		c.logger.Info("reloaded", "cause", why)
	}
	go c.pollBundles(ctx, eng, opts, reload)
	go engine.WatchHome(ctx, homedir.Resolve(c.home), 300*time.Millisecond, func([]string) { reload("the home changed") })
	if managed := homedir.ResolveManaged(""); managed != homedir.Resolve(c.home) { // its guards and policy too
		go engine.WatchHome(ctx, managed, 300*time.Millisecond, func([]string) { reload("the managed home changed") })
	}
	go func() {
		for {
			select {
			case <-hup:
				reload("SIGHUP")
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { signal.Stop(hup); cancel() }
}

// pollBundles checks the managed home's bundle feed every poll interval plus up to a tenth
// of it at random, and reloads when the active revision is not the one running (a new one
// this server or another puller activated). It returns when ctx is done, or at once when
// the managed home has no bundles:.
func (c *cli) pollBundles(ctx context.Context, eng *engine.Engine, opts engine.Options, reload func(string)) {
	var tried int64 // the revision a reload last tried: one that failed waits for the next check
	for {
		st, ok := eng.Bundle()
		if !ok {
			return
		}
		if st.Revision != 0 && st.Revision != st.Running && st.Revision != tried {
			tried = st.Revision
			reload(fmt.Sprintf("bundle revision %d activated", st.Revision))
			continue
		}
		t := time.NewTimer(jittered(st.Poll))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if st, _, err := engine.PullBundle(ctx, opts); err != nil && ctx.Err() == nil {
			c.logger.Warn("bundle check failed; the running bundle stays", "url", st.URL, "revision", st.Revision, "error", err)
		}
	}
}

// accessLogDelay is the longest an access log record waits to be written (a variable for
// the tests).
var accessLogDelay = 100 * time.Millisecond

// jittered is d plus up to a tenth of it at random: machines that started together do not
// all ask the bundle server at once.
func jittered(d time.Duration) time.Duration { return d + rand.N(d/10+1) }

// drain stops taking calls, waits up to d for those in flight, writes out their access log,
// then closes the engine.
func (c *cli) drain(hs *http.Server, eng *engine.Engine, access *logbatch.Writer, d time.Duration, serveErr error) int {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	shutErr := hs.Shutdown(ctx)
	access.Flush()
	closeErr := eng.Close(ctx)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return c.fail(exitInternal, "serve: %v", serveErr)
	}
	if err := errors.Join(shutErr, closeErr); err != nil {
		return c.fail(exitFailed, "drained with calls left after %v: %v", d, err)
	}
	fmt.Fprintln(c.stderr, "hermesctl: drained; stopped")
	return exitOK
}
