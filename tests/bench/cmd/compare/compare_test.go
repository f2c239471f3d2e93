package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkInvokeNoHooks/PreToolCall-2         	171295318	         6.506 ns/op	       0 B/op	       0 allocs/op
BenchmarkInvokeNoHooks/Fire-2                	84454632	        15.11 ns/op	       0 B/op	       0 allocs/op
BenchmarkPreToolCallLua-2                    	  106298	     10000 ns/op	    6000 cpu-ns/op	    2816 B/op	      44 allocs/op
BenchmarkPreToolCallLua-2                    	  106298	     12000 ns/op	    6000 cpu-ns/op	    2816 B/op	      44 allocs/op
BenchmarkPreToolCallLua-2                    	  106298	     99000 ns/op	    6000 cpu-ns/op	    2816 B/op	      44 allocs/op
BenchmarkPreToolCallLuaRaw/ctx-2             	  211908	      8000 ns/op	    1904 B/op	      32 allocs/op
BenchmarkShape/guard-2                       	  300000	      5000 ns/op	    4000 cpu-ns/op	      38 B/op	       2 allocs/op
BenchmarkGatewayEmit/queued-2                 	  576602	      2128 ns/op	         0 drops/op	     521 B/op	      10 allocs/op
PASS
`

func TestParseAndReport(t *testing.T) {
	r := &results{bench: map[string]map[string][]float64{}, python: map[string][]float64{"dispatch": {20000}},
		lua51: map[string][]float64{"shape_guard": {1000, 2000, 3000}}, luaNote: ""}
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
		"<= 50 ns/op, 0 allocs/op",
		"12.00 µs / 8.00 µs", "1.50x", "MISS",
		"Go 12.00 µs, Python 20.00 µs", "0.60x",
		"2.13 µs, 0.00 drops/op", "SKIP",
		"44 allocs/op", "Go 5.00 µs, lua5.1 2.00 µs", "2.50x",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if missed != 4 { // the Lua ratio, the allocations, the ratio to Python (0.6 > 0.5) and the emit time
		t.Errorf("missed = %d, want 4\n%s", missed, out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "InvokeNoHooks") && !(strings.Contains(line, "15.1 ns ") && strings.HasSuffix(strings.TrimSpace(line), "PASS")) {
			t.Errorf("InvokeNoHooks: %s", line)
		}
		if strings.HasPrefix(line, "Shape guard vs C lua5.1") && !strings.HasSuffix(strings.TrimSpace(line), "PASS") {
			t.Errorf("a ratio of exactly the goal (2.5x) passes: %s", line)
		}
	}
}

func TestParseReference(t *testing.T) {
	for _, tt := range []struct {
		out string
		v   float64
		ok  bool
	}{
		{"lua51_shape_guard_ns_per_op 2882.6\n", 2882.6, true},
		{"lua51_shape_audit_ns_per_op 1\n", 0, false},
		{"lua51_shape_guard_ns_per_op\n", 0, false},
		{"lua51_shape_guard_ns_per_op x\n", 0, false},
		{"lua51_shape_guard_ns_per_op 0\n", 0, false},
		{"lua: error\n", 0, false},
	} {
		if v, ok := parseReference([]byte(tt.out), "lua51_shape_guard_ns_per_op"); v != tt.v || ok != tt.ok {
			t.Errorf("parseReference(%q) = %v %v, want %v %v", tt.out, v, ok, tt.v, tt.ok)
		}
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
