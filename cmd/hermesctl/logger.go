package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// lineHandler writes one readable line per record: "hermesctl: warning: msg (k=v ...)".
// Messages, keys and values often hold text from hooks (errors, stderr, commands), so each
// is made printable: a record is one line, and nothing in it reaches the terminal as a
// control sequence.
type lineHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Level
	attrs []slog.Attr
}

func newLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(&lineHandler{mu: &sync.Mutex{}, w: w, level: level})
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	level := strings.ToLower(r.Level.String())
	if r.Level == slog.LevelWarn {
		level = "warning"
	}
	fmt.Fprintf(&b, "hermesctl: %s: %s", level, printable(r.Message))
	var kv []string
	add := func(a slog.Attr) bool {
		kv = append(kv, printable(a.Key)+"="+printable(fmt.Sprint(a.Value.Resolve().Any())))
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	if len(kv) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(kv, " "))
	}
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	return &c
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }
