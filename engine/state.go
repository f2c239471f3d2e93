package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/luabind"
	"github.com/hermes-hooks/hermes/store"
)

// stateStore is the backend the host gives (Options.Store, used as given) or names
// (Options.StoreURL), else the one config.yaml's store: names, opened on first use (so that
// loading a home creates no file) and kept for the engine's life. A backend that cannot be
// opened (a corrupt database, a bad url) is the error of each store call, tried again at
// the next one; nothing falls back to another backend, which would split the state.
type stateStore struct {
	home   string
	cfg    store.Config
	cfgErr error         // a store: section that cannot be used
	given  store.Backend // Options.Store: the host's, never closed here
	log    *slog.Logger  // the backend's circuit opening and closing
	b      atomic.Pointer[store.Backend]
	// opening holds a token while one caller opens the backend; the others wait for it,
	// each as long as its own context lets it.
	opening chan struct{}
}

// newStateStore is the state of a store of home with settings cfg.
func newStateStore(home string, cfg store.Config, cfgErr error, given store.Backend, log *slog.Logger) *stateStore {
	return &stateStore{home: home, cfg: cfg, cfgErr: cfgErr, given: given, log: log, opening: make(chan struct{}, 1)}
}

// backend is the backend, opened (waiting no longer than ctx) when it is not open yet.
func (s *stateStore) backend(ctx context.Context) (store.Backend, error) {
	if s.given != nil {
		return s.given, nil
	}
	if b := s.b.Load(); b != nil && !store.Moved(*b) {
		return *b, nil
	}
	if s.cfgErr != nil {
		return nil, s.cfgErr
	}
	select {
	case s.opening <- struct{}{}:
		defer func() { <-s.opening }()
	case <-ctx.Done():
		return nil, fmt.Errorf("store: %w while another call opened the store", ctx.Err())
	}
	if b := s.b.Load(); b != nil {
		if !store.Moved(*b) {
			return *b, nil
		}
		// The database file was deleted or the home replaced: writes to the open file would
		// be lost. Calls still using it finish; new ones go to the home's database now.
		s.b.Store(nil)
		(*b).Close()
	}
	if _, err := os.Stat(s.home); err != nil {
		// A home that vanished is not created again by a store call.
		return nil, fmt.Errorf("store: the home %s is gone (%v); store calls fail until it is back", s.home, err)
	}
	b, err := store.OpenContext(ctx, s.home, s.cfg, store.Options{Logger: s.log})
	if err != nil {
		return nil, err
	}
	s.b.Store(&b)
	return b, nil
}

func (s *stateStore) close() {
	if b := s.b.Load(); b != nil {
		(*b).Close()
	}
}

// useStore makes the store of cfg (the host's, else config.yaml's) the one store calls use
// from now on; a store whose configuration changed is closed with the engine (a kept
// plugin may still be using it).
func (e *Engine) useStore(cfg *config) {
	c := cfg.store
	if e.opts.hostStore() {
		c = storeConfig{cfg: store.Config{URL: e.opts.StoreURL}}
	}
	e.storeMu.Lock()
	defer e.storeMu.Unlock()
	if cur := e.store.Load(); cur != nil && cur.cfg == c.cfg && fmt.Sprint(cur.cfgErr) == fmt.Sprint(c.err) {
		return
	}
	s := newStateStore(e.home, c.cfg, c.err, e.opts.Store, e.logger)
	if e.scratch != "" { // a dry run: the default store, in the scratch directory
		s.home, s.cfg, s.cfgErr, s.given = e.scratch, store.Config{}, nil, nil
	}
	e.stores = append(e.stores, s)
	e.store.Store(s)
}

// hostStore reports whether the host gives the store (Store or StoreURL).
func (o Options) hostStore() bool { return o.Store != nil || o.StoreURL != "" }

// checkStore fails on a store the host gives that cannot be used.
func (o Options) checkStore() error {
	if o.Store != nil && o.StoreURL != "" {
		return errors.New("engine: Options.Store and Options.StoreURL are both set; set one of them")
	}
	if o.StoreURL != "" {
		if _, err := store.ParseConfig(store.Config{URL: o.StoreURL}); err != nil {
			return fmt.Errorf("engine: Options.StoreURL: %w", err)
		}
	}
	return nil
}

// hostStoreWarnings, when the host gives the store and config.yaml sets one too, replaces
// the warnings about config.yaml's store: section with one saying it is ignored.
func (e *Engine) hostStoreWarnings(cfg *config, warns []hookspec.Warning) []hookspec.Warning {
	if !e.opts.hostStore() || cfg.store.line == 0 {
		return warns
	}
	warns = slices.DeleteFunc(warns, func(w hookspec.Warning) bool { return slices.Contains(cfg.store.warns, w) })
	return append(warns, hookspec.Warning{File: cfg.file, Line: cfg.store.line, Msg: "store: is ignored: " +
		"the program running the hooks gives their store, which wins over config.yaml's (remove this section, or change the program's setting)"})
}

// closeStores closes every backend the engine opened.
func (e *Engine) closeStores() {
	e.storeMu.Lock()
	defer e.storeMu.Unlock()
	for _, s := range e.stores {
		s.close()
	}
	e.stores = nil
	e.store.Store(nil)
	if e.scratch != "" {
		os.RemoveAll(e.scratch)
	}
}

// DryRunRefused reports whether r, a Lua hook's result in a dry run (Options.DryRun),
// failed because the dry run refused one of its calls (http, exec, io.open for writing)
// rather than through a fault of the hook.
func DryRunRefused(r hookspec.Result) bool {
	return r.Status == hookspec.StatusError && strings.Contains(r.Err, luabind.DryRunRefusal)
}

// Store is the store the home's hooks keep their state in (Options.Store or
// Options.StoreURL when the host gives one, else config.yaml's store:, by default a database
// in the home), opened on first use and closed by Close (except Options.Store, the host's). A host keeps there, in a
// namespace of its own, what must outlive one process (`hermesctl hook` keeps the nudge
// counts of Stop hooks), so replicas that share the store share it.
func (e *Engine) Store() (store.Backend, error) { return e.currentBackend(context.Background()) }

// currentBackend is the backend of the store the hooks use now, opened within ctx when it
// is not open yet.
func (e *Engine) currentBackend(ctx context.Context) (store.Backend, error) {
	s := e.store.Load()
	if s == nil {
		return nil, fmt.Errorf("store: the engine is closed")
	}
	return s.backend(ctx)
}

// OpenStore opens the store the config.yaml of home names, without loading any hook, for a
// tool that inspects a home (`hermesctl store`). exists is false when it is the database in
// the home and there is none yet: nothing is then created, and the backend is nil. The
// caller closes the backend.
func OpenStore(home string) (b store.Backend, exists bool, err error) {
	home = homedir.Resolve(home)
	cfg, _, err := loadConfig(home)
	if err != nil {
		return nil, false, err
	}
	if cfg.store.err != nil {
		return nil, false, cfg.store.err
	}
	if cfg.store.cfg.URL == "" {
		if _, err := os.Stat(filepath.Join(store.StateDir(home), "store.db")); err != nil {
			return nil, false, nil
		}
	}
	b, err = store.Open(home, cfg.store.cfg)
	return b, err == nil, err
}

// hookStore is the store module's view of namespace ns (see store.Namespace) for a hook of
// source, counted in the metrics under its name.
func (e *Engine) hookStore(source, ns, name string) hookspec.Store {
	v := store.NewView(e.currentBackend, ns)
	m := e.opts.Metrics
	if m == nil {
		return e.traceStore(v)
	}
	return e.traceStore(&meteredStore{v: v, m: m, source: source, name: name})
}

// meteredStore counts a view's calls, errors and latency per hook and operation.
type meteredStore struct {
	v            *store.View
	m            *Metrics
	source, name string
}

func (s *meteredStore) observe(op string, start time.Time, err error) {
	s.m.storeCalls.With(s.source, s.name, op).Inc()
	s.m.storeLatency.With(s.source, s.name, op).Observe(time.Since(start).Seconds())
	if err != nil {
		s.m.storeErrors.With(s.source, s.name, op).Inc()
	}
	if errors.Is(err, store.ErrUnavailable) {
		s.m.storeRejected.With(s.source, s.name, op).Inc()
	}
}

func (s *meteredStore) Get(ctx context.Context, key string) (any, bool, error) {
	start := time.Now()
	v, ok, err := s.v.Get(ctx, key)
	s.observe("get", start, err)
	return v, ok, err
}

func (s *meteredStore) Set(ctx context.Context, key string, value any, ttl time.Duration) error {
	start := time.Now()
	err := s.v.Set(ctx, key, value, ttl)
	s.observe("set", start, err)
	return err
}

func (s *meteredStore) Incr(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error) {
	start := time.Now()
	v, err := s.v.Incr(ctx, key, n, ttl)
	s.observe("incr", start, err)
	return v, err
}

func (s *meteredStore) Delete(ctx context.Context, key string) (bool, error) {
	start := time.Now()
	ok, err := s.v.Delete(ctx, key)
	s.observe("delete", start, err)
	return ok, err
}

func (s *meteredStore) Keys(ctx context.Context, prefix string) ([]string, error) {
	start := time.Now()
	keys, err := s.v.Keys(ctx, prefix)
	s.observe("keys", start, err)
	return keys, err
}

func (s *meteredStore) Update(ctx context.Context, key string, fn func(any, bool) (any, error)) (any, error) {
	start := time.Now()
	v, err := s.v.Update(ctx, key, fn)
	s.observe("update", start, err)
	return v, err
}
