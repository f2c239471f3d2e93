package main

import (
	"errors"
	"strings"
	"testing"
)

func TestLoggerEscapesControlCharacters(t *testing.T) {
	var out strings.Builder
	log := newLogger(&out, true).With("hook", "x.sh\x1b[2J")
	log.Warn("shell hook failed\r\x1b[1A", "stderr", "oops\x1b]0;title\a\u009b2J", "err", errors.New("bad\nline"))
	want := `hermesctl: warning: shell hook failed\r\x1b[1A (hook=x.sh\x1b[2J stderr=oops\x1b]0;title\a\u009b2J err=bad\nline)` + "\n"
	if got := out.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for _, r := range strings.TrimSuffix(out.String(), "\n") {
		if mustEscape(r) {
			t.Fatalf("raw %U in %q", r, out.String())
		}
	}
}

// TestHeldWarnings holds that a command printing the load warnings itself gets them on
// stderr only when it did not print them, and what runs after the load at once.
func TestHeldWarnings(t *testing.T) {
	var out strings.Builder
	c := &cli{logger: newLogger(&out, false)}
	release := c.holdWarnings()
	c.logger.Warn("printed by the command")
	c.logger.Warn("not printed")
	c.loaded()
	c.logger.Warn("hook failed", "hook", "x")
	if got, want := out.String(), "hermesctl: warning: hook failed (hook=x)\n"; got != want {
		t.Fatalf("before release: got %q, want %q", got, want)
	}
	release([]string{"printed by the command"})
	release(nil)
	c.logger.Warn("after")
	want := "hermesctl: warning: hook failed (hook=x)\nhermesctl: warning: not printed\nhermesctl: warning: after\n"
	if got := out.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
