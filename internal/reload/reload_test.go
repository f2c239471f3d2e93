package reload

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogOncePerChange(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := NewLog(slog.New(slog.NewTextHandler(&buf, nil)))
	load := func(msgs ...string) {
		l.Next()
		for _, m := range msgs {
			l.With("hook", "h").Warn(m, "n", 1)
		}
	}
	load("a", "b")
	load("a", "b") // nothing new
	load("a")      // b is gone
	load("a", "b") // b is back: a change
	l.Next()       // a load that logs nothing
	load("a")      // a is back
	if a, b := strings.Count(buf.String(), "msg=a"), strings.Count(buf.String(), "msg=b"); a != 2 || b != 2 {
		t.Errorf("a logged %d times, b %d times; want 2 and 2:\n%s", a, b, buf.String())
	}
	if !strings.Contains(buf.String(), "hook=h") || !strings.Contains(buf.String(), "n=1") {
		t.Errorf("attributes lost:\n%s", buf.String())
	}
}

func TestOpenAndUnchanged(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "home")
	if _, err := Open(dir, false); err == nil || !strings.Contains(err.Error(), "keep running") {
		t.Errorf("Open of a missing home for a reload = %v", err)
	}
	if d, err := Open(dir, true); err != nil || d.Unchanged() != nil {
		t.Errorf("Open of a missing home for a first load = %v", err)
	}
	os.Mkdir(dir, 0o755)
	d, err := Open(dir, false)
	if err != nil || d.Unchanged() != nil {
		t.Fatalf("Open = %v", err)
	}
	os.Rename(dir, dir+".old")
	os.Mkdir(dir, 0o755)
	if err := d.Unchanged(); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("Unchanged after a replacement = %v", err)
	}
}
