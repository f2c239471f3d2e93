package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
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
	held  *heldLines // guarded by mu
}

// heldLines are the lines kept back while a home loads, with the message of each.
type heldLines struct {
	loading  bool        // the home is loading for a command that prints its warnings: lines are kept back
	released bool        // release was called
	lines    [][2]string // message, line
}

func newLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(&lineHandler{mu: &sync.Mutex{}, w: w, level: level, held: &heldLines{}})
}

// holdWarnings is for a command that prints the load warnings of a home itself: what c's
// logger writes while the home loads (until loaded) is kept back, and release(printed)
// writes it but the lines whose message is in a text the command printed (a warning, or a
// hook's error that quotes it), so that each warning is printed once. What hooks log when they run is written at once. Only the first release
// counts (defer release(nil) covers early returns).
func (c *cli) holdWarnings() (release func(printed []string)) {
	h, ok := c.logger.Handler().(*lineHandler)
	if !ok {
		return func([]string) {}
	}
	h.mu.Lock()
	*h.held = heldLines{loading: true}
	h.mu.Unlock()
	return func(printed []string) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.held.released {
			return
		}
		for _, l := range h.held.lines {
			if !slices.ContainsFunc(printed, func(p string) bool { return strings.Contains(p, l[0]) }) {
				io.WriteString(h.w, l[1])
			}
		}
		*h.held = heldLines{released: true}
	}
}

// loaded ends the keeping back of holdWarnings: the home is loaded.
func (c *cli) loaded() {
	if h, ok := c.logger.Handler().(*lineHandler); ok {
		h.mu.Lock()
		h.held.loading = false
		h.mu.Unlock()
	}
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
	if h.held.loading {
		h.held.lines = append(h.held.lines, [2]string{r.Message, b.String()})
		return nil
	}
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	return &c
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }
