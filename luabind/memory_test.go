package luabind

import (
	"context"
	"testing"
	"time"
)

// A loop of tail calls runs in constant memory until its timeout stops it, and the error
// that reports it stays small (its traceback once had a line per tail call).
func TestTailCallSpinner(t *testing.T) {
	p := loadPlugin(t, runawayPlugin, Options{Timeout: 300 * time.Millisecond})
	before := heapAlloc()
	stop := heapPeak()
	_, err := p.Call(context.Background(), 0, map[string]any{"src": `local function f() return f() end f()`})
	peak := stop()
	wantErr(t, "spinner", err, KindTimeout, "timed out after 300ms")
	if len(err.Error()) > 4096 {
		t.Errorf("error is %d bytes long", len(err.Error()))
	}
	if grew := int64(peak) - int64(before); grew > 64<<20 {
		t.Errorf("the heap grew by %.0f MiB during the call", float64(grew)/(1<<20))
	}
	if got, err := p.Call(context.Background(), 1, nil); got != "fine" || err != nil {
		t.Errorf("next call: got %v, %v; want the plugin to keep working", got, err)
	}
}
