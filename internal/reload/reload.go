// Package reload holds what every reload of a home needs, for the engine and the gateway
// alike: a check that the home did not vanish or get replaced while it was read, so that a
// failed read never replaces running hooks with none, and a logger that reports a problem
// once per change rather than at every reload.
package reload

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// Dir is a directory as found when a load started.
type Dir struct {
	path string
	fi   os.FileInfo // nil: there was none (allowed for a first load)
}

// Open checks that path is a readable directory. A missing directory is fine when
// missingOK (a first load: a home that does not exist yet has no hooks); otherwise, and
// for every other problem, the error says that the hooks loaded before keep running.
func Open(path string, missingOK bool) (*Dir, error) {
	fi, err := os.Stat(path)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("not a directory")
	}
	if err == nil {
		_, err = os.ReadDir(path)
	}
	if err != nil {
		if missingOK && os.IsNotExist(err) {
			return &Dir{path: path}, nil
		}
		return nil, fmt.Errorf("hook home %s cannot be read (%s): the hooks loaded before keep running", path, Plain(err))
	}
	return &Dir{path: path, fi: fi}, nil
}

// Unchanged fails when the directory was replaced (renamed away, recreated, or removed)
// since Open: what was read may mix two homes.
func (d *Dir) Unchanged() error {
	if d.fi == nil {
		return nil
	}
	fi, err := os.Stat(d.path)
	if err == nil && os.SameFile(fi, d.fi) {
		return nil
	}
	return fmt.Errorf("hook home %s was replaced while it was read: the hooks loaded before keep running (reload again)", d.path)
}

// Plain is err's text without the path an *os.PathError repeats.
func Plain(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// Log is a logger for what loads report. Each load starts with Next; a record the
// previous load logged too (same level, message and attributes) is not logged again, so a
// home reloaded every few seconds with one unapproved shell hook warns once per change.
type Log struct {
	*slog.Logger
	seen *seen
}

// NewLog wraps logger.
func NewLog(logger *slog.Logger) *Log {
	s := &seen{}
	return &Log{Logger: slog.New(&onceHandler{inner: logger.Handler(), seen: s}), seen: s}
}

// Next starts a load.
func (l *Log) Next() { l.seen.next() }

type seen struct {
	mu         sync.Mutex
	prev, this map[string]bool
}

func (s *seen) next() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prev, s.this = s.this, map[string]bool{}
}

// fresh records key for this load and reports whether the previous load did not log it.
func (s *seen) fresh(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.this == nil {
		s.this = map[string]bool{}
	}
	s.this[key] = true
	return !s.prev[key]
}

// onceHandler passes a record on unless the previous load logged the same one.
type onceHandler struct {
	inner slog.Handler
	seen  *seen
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
