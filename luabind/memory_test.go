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

// Valid programs that look like attacks run, and cheaply.
func TestCheapValidPrograms(t *testing.T) {
	tests := []struct {
		name, src string
		want      any
	}{
		{"sparse key", `local t = {} t[67108863] = 1 return t[67108863] + #t`, int64(1)},
		{"sparse keys then the array", `local t = {} t[2^25] = 1 for i = 1, 100 do t[i] = i end return #t`, int64(100)},
		{"keys that come and go", `local t = {} for i = 1, 200000 do local k = "k" .. i t[k] = true t[k] = nil end return next(t) == nil`, true},
	}
	p := loadPlugin(t, runawayPlugin, Options{Timeout: time.Minute})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := heapAlloc()
			stop := heapPeak()
			got, err := p.Call(context.Background(), 0, map[string]any{"src": tt.src})
			peak := stop()
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
			if grew := int64(peak) - int64(before); grew > 16<<20 {
				t.Errorf("the heap grew by %.0f MiB during the call", float64(grew)/(1<<20))
			}
		})
	}
}
