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
