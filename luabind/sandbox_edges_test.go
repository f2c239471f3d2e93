package luabind

import (
	"bytes"
	"context"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	iomod "github.com/hermes-hooks/hermes/luabind/internal/modules/io"

	logmod "github.com/hermes-hooks/hermes/luabind/internal/modules/log"
)

// logCapture is a slog handler that keeps the messages and counts the bytes written.
type logCapture struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	msgs  []string
	inner slog.Handler
}

func newLogCapture() *logCapture {
	c := &logCapture{}
	c.inner = slog.NewTextHandler(&c.buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	return c
}

func (c *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (c *logCapture) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *logCapture) WithGroup(string) slog.Handler            { return c }
func (c *logCapture) Handle(ctx context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, r.Message)
	return c.inner.Handle(ctx, r)
}

func (c *logCapture) take() (msgs []string, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs, size = c.msgs, c.buf.Len()
	c.msgs = nil
	c.buf.Reset()
	return msgs, size
}

const floodPlugin = `
local log = require("log")
function register(ctx)
  ctx.register_hook("flood", function(kw)
    for i = 1, kw.n do
      if kw.print then print("spam", i) else log.warn("spam " .. i, {i = i, tag = "x"}) end
    end
  end)
  ctx.register_hook("big", function(kw) log.info(string.rep("é", kw.n)) end)
  ctx.register_hook("print", function(kw) local s = string.rep("x", kw.n) print(s, s, s) end)
  ctx.register_hook("fields", function(kw)
    for i = 1, 100 do log.info("f", {blob = string.rep("x", 20000)}) end
  end)
  ctx.register_hook("one", function() log.info("one") end)
end`

func TestLogFloodIsBounded(t *testing.T) {
	capture := newLogCapture()
	p := loadPlugin(t, floodPlugin, Options{Logger: slog.New(capture), Timeout: 30 * time.Second})
	n := 1_000_000
	if raceEnabled { // a hundred times the budget is still a flood
		n = 100_000
	}
	for _, printing := range []bool{false, true} {
		if _, err := p.Call(context.Background(), 0, map[string]any{"n": n, "print": printing}); err != nil {
			t.Fatal(err)
		}
		msgs, size := capture.take()
		if len(msgs) != logmod.MaxRecords+1 || size > 2*logmod.MaxBytes {
			t.Errorf("print=%v: %d records, %d bytes; want %d records and at most about %d bytes",
				printing, len(msgs), size, logmod.MaxRecords+1, logmod.MaxBytes)
		}
		if want := fmt.Sprintf("log budget exceeded: %d records dropped", n-logmod.MaxRecords); len(msgs) == 0 || msgs[len(msgs)-1] != want {
			t.Errorf("print=%v: last record %q, want %q", printing, msgs[len(msgs)-1:], want)
		}
	}
	if _, err := p.Call(context.Background(), 4, nil); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := capture.take(); len(msgs) != 1 || msgs[0] != "one" {
		t.Errorf("the next call logs %q, want the budget renewed", msgs)
	}
}

func TestLogMessagesAreCut(t *testing.T) {
	capture := newLogCapture()
	p := loadPlugin(t, floodPlugin, Options{Logger: slog.New(capture)})
	if _, err := p.Call(context.Background(), 1, map[string]any{"n": 100_000}); err != nil {
		t.Fatal(err)
	}
	msgs, _ := capture.take()
	if len(msgs) != 1 || len(msgs[0]) > logmod.MaxMessage+40 || !strings.HasSuffix(msgs[0], "… [183616 bytes cut]") {
		t.Errorf("long message: %d records, the first %d bytes ending %q", len(msgs), len(msgs[0]), msgs[0][max(0, len(msgs[0])-30):])
	}
	if _, err := p.Call(context.Background(), 2, map[string]any{"n": 8 << 20}); err != nil {
		t.Fatal(err)
	}
	msgs, _ = capture.take()
	if len(msgs) != 1 || len(msgs[0]) > logmod.MaxMessage+40 || !strings.HasSuffix(msgs[0], " bytes cut]") {
		t.Errorf("print of 24 MiB: %d records, the first %d bytes", len(msgs), len(msgs[0]))
	}
	if _, err := p.Call(context.Background(), 3, nil); err != nil {
		t.Fatal(err)
	}
	msgs, size := capture.take()
	if len(msgs) != 53 || msgs[52] != "log budget exceeded: 48 records dropped" || size > 2*logmod.MaxBytes {
		t.Errorf("large fields: %d records, %d bytes, last %q", len(msgs), size, msgs[len(msgs)-1])
	}
}

func TestFSFileAndMissingEntries(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "notes.txt")
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("write", function(kw)
    local f, err = io.open(kw.path, "a")
    if not f then return err end
    f:write("x")
    f:close()
    return "ok"
  end)
end`, Options{Home: home, Permissions: hookspec.Permissions{FS: []string{"notes.txt", "logs"}}})
	write := func(path string) any {
		got, err := p.Call(context.Background(), 0, map[string]any{"path": path})
		if err != nil {
			return err.Error()
		}
		return got
	}
	if got := write(file); got != "ok" {
		t.Errorf("file entry that did not exist at load: %v", got)
	}
	if got := write(filepath.Join(home, "other.txt")); !strings.Contains(got.(string), "outside permissions.fs") {
		t.Errorf("a sibling of a file entry: %v", got)
	}
	logs := filepath.Join(home, "logs")
	if got := write(filepath.Join(logs, "a.log")); !strings.Contains(got.(string), "no such file or directory") {
		t.Errorf("inside a directory entry missing at load: %v", got)
	}
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := write(filepath.Join(logs, "a.log")); got != "ok" {
		t.Errorf("inside a directory entry created after load: %v", got)
	}
	p.Close()
	if _, err := iomod.OpenRegular(&p.s.hook.fsRoots[0], "notes.txt", os.O_RDONLY); err != iomod.ErrHookClosed {
		t.Errorf("open after Close: %v, want %v", err, iomod.ErrHookClosed)
	}
}
