package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// homeDir is the home directory as found when a load started.
type homeDir struct {
	path string
	fi   os.FileInfo // nil: there was none (a first load)
}

// openHome checks that the home is a readable directory. For the first load a home that
// does not exist yet is fine (no hooks); for a reload it is a failure that keeps the
// hooks running: a vanished home must not silently remove every guard.
func (e *Engine) openHome(reload bool) (*homeDir, error) {
	fi, err := os.Stat(e.home)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("not a directory")
	}
	if err == nil {
		_, err = os.ReadDir(e.home)
	}
	if err != nil {
		if !reload && os.IsNotExist(err) {
			return &homeDir{path: e.home}, nil
		}
		return nil, fmt.Errorf("hook home %s cannot be read (%s): the hooks loaded before keep running", e.home, plainError(err))
	}
	return &homeDir{path: e.home, fi: fi}, nil
}

// unchanged fails when the home directory was replaced (renamed away, recreated, or
// removed) while it was being read: what was read may mix two homes.
func (h *homeDir) unchanged() error {
	if h.fi == nil {
		return nil
	}
	fi, err := os.Stat(h.path)
	if err == nil && os.SameFile(fi, h.fi) {
		return nil
	}
	return fmt.Errorf("hook home %s was replaced while it was read: the hooks loaded before keep running (reload again)", h.path)
}

// plainError drops the path an *os.PathError repeats.
func plainError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

func newHookSet() *hookSet {
	return &hookSet{byHook: map[string][]callback{}, drained: make(chan struct{})}
}

// closedSet is the hook set of a closed engine: pre_tool_call blocks, nothing else runs.
func closedSet() *hookSet {
	s := newHookSet()
	s.preTool = []callback{closedGuard{}}
	s.byHook[PreToolCall] = s.preTool
	return s
}

// closedGuard is a closed engine's answer to every tool call: blocked, never allowed.
type closedGuard struct{}

func (closedGuard) stats() *hookMetrics { return nil }

func (closedGuard) fire(context.Context, string, args, bool) HookResult {
	return HookResult{Source: SourceEngine, Name: "engine", Status: StatusError, Err: ErrClosed.Error(),
		value: map[string]any{"action": "block", "message": "blocked: " + ErrClosed.Error()}}
}

// discard closes what s started that prev does not run (a load that failed).
func (s *hookSet) discard(prev *hookSet) {
	s.keep = map[any]bool{}
	if prev != nil {
		for _, p := range prev.loaded {
			s.keep[p] = true
		}
		for _, h := range prev.hooks {
			s.keep[h] = true
		}
	}
	s.close()
}

// reported remembers what the previous load logged, so that a load logs only what is new:
// a home reloaded every few seconds with an unapproved shell hook warns once per change,
// not at every reload.
type reported struct {
	mu         sync.Mutex
	prev, this map[string]bool
}

// next starts a load.
func (r *reported) next() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prev, r.this = r.this, map[string]bool{}
}

// fresh records key for this load and reports whether the previous load did not log it.
func (r *reported) fresh(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.this == nil {
		r.this = map[string]bool{}
	}
	r.this[key] = true
	return !r.prev[key]
}

// onceHandler passes a record on unless the previous load logged the same one (same
// level, message and attributes).
type onceHandler struct {
	inner slog.Handler
	seen  *reported
	attrs string // what WithAttrs and WithGroup added, rendered
}

func (h *onceHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *onceHandler) Handle(ctx context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s", r.Level, r.Message, h.attrs)
	r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, "|%s", a); return true })
	if !h.seen.fresh(b.String()) {
		return nil
	}
	return h.inner.Handle(ctx, r)
}

func (h *onceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.inner = h.inner.WithAttrs(as)
	for _, a := range as {
		c.attrs += "|" + a.String()
	}
	return &c
}

func (h *onceHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.inner, c.attrs = h.inner.WithGroup(name), h.attrs+"|group:"+name
	return &c
}
