package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkInvokeNoHooks/PreToolCall-2         	171295318	         6.506 ns/op	       0 B/op	       0 allocs/op
BenchmarkInvokeNoHooks/Invoke-2              	84454632	        15.11 ns/op	       0 B/op	       0 allocs/op
BenchmarkPreToolCallLua-2                    	  106298	     10000 ns/op	    6000 cpu-ns/op	    2816 B/op	      44 allocs/op
BenchmarkPreToolCallLua-2                    	  106298	     12000 ns/op	    6000 cpu-ns/op	    2816 B/op	      44 allocs/op
BenchmarkPreToolCallLua-2                    	  106298	     99000 ns/op	    6000 cpu-ns/op	    2816 B/op	      44 allocs/op
BenchmarkPreToolCallLuaRaw/ctx-2             	  211908	      8000 ns/op	    1904 B/op	      32 allocs/op
BenchmarkGatewayEmit/queued-2                 	  576602	      2128 ns/op	         0 drops/op	     521 B/op	      10 allocs/op
PASS
`

func TestParseAndReport(t *testing.T) {
	r := &results{bench: map[string]map[string][]float64{}, python: map[string][]float64{"dispatch": {20000}}}
	parseBench(strings.NewReader(sample), r.bench)
	if v, _ := r.value("BenchmarkPreToolCallLua", "ns/op"); v != 12000 {
		t.Errorf("median ns/op = %v, want 12000", v)
	}
	if v, ok := r.value("BenchmarkGatewayEmit/queued", "drops/op"); !ok || v != 0 {
		t.Errorf("drops/op = %v %v, want 0 true", v, ok)
	}
	var out bytes.Buffer
	missed := report(&out, r, targets)
	for _, want := range []string{
		"<= 50 ns/op, 0 allocs/op", "15.1 ns  PASS",
		"12.00 µs / 8.00 µs", "1.50x", "MISS",
		"Go 12.00 µs, Python 20.00 µs", "0.60x",
		"2.13 µs, 0.00 drops/op", "SKIP",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if missed != 2 { // the Lua ratio and the emit time
		t.Errorf("missed = %d, want 2\n%s", missed, out.String())
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got, _ := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if _, ok := median(nil); ok {
		t.Error("median(nil) reported a value")
	}
}
