package manifest

import (
	"strings"
	"testing"
)

func TestSize(t *testing.T) {
	const def = 256 << 20
	tests := []struct {
		yaml string
		want int64
		warn string // in the warning, "" for none
		err  bool
	}{
		{"memory: 64MiB", 64 << 20, "", false},
		{"memory: 256 MiB", 256 << 20, "", false},
		{"memory: 1GiB", 1 << 30, "", false},
		{"memory: 2048KiB", 2 << 20, "", false},
		{"memory: 4GiB", 4 << 30, "", false},
		{"memory: 67108864", 64 << 20, "", false},
		{"memory: '67108864'", 64 << 20, "", false},
		{"memory: 67108864B", 64 << 20, "", false},
		{"memory: 5GiB", 4 << 30, "above the maximum; using 4GiB", false},
		{"memory: 99999999999999999999", def, "", true}, // YAML reads it as a float
		{"memory: 99999999999GiB", 4 << 30, "above the maximum; using 4GiB", false},
		{"memory: 1KiB", 1 << 20, "below the minimum; using 1MiB", false},
		{"memory: 0", def, "must be positive; using 256MiB", false},
		{"memory: -5MiB", def, "must be positive; using 256MiB", false},
		{"memory: 64MB", def, "", true},
		{"memory: 64mib", def, "", true},
		{"memory: 1.5GiB", def, "", true},
		{"memory: MiB", def, "", true},
		{"memory: 64 MiB extra", def, "", true},
		{"memory: 0x40", def, "", true},
		{"memory: 1e9", def, "", true},
		{"memory: [64MiB]", def, "", true},
		{"memory: true", def, "", true},
		{"memory: ~", def, "", true},
	}
	for _, tt := range tests {
		root, err := Parse("p/plugin.yaml", []byte(tt.yaml))
		if err != nil {
			t.Fatal(err)
		}
		fields, _ := Fields("p/plugin.yaml", root, []string{"memory"})
		got, warns, err := Size("p/plugin.yaml", fields["memory"], "memory", def, MinMemory, MaxMemory)
		if (err != nil) != tt.err {
			t.Errorf("%s: err = %v, want error %v", tt.yaml, err, tt.err)
			continue
		}
		if err != nil && !strings.HasPrefix(err.Error(), "p/plugin.yaml:1: memory must be a size such as 64MiB") {
			t.Errorf("%s: err = %q, want it located and explained", tt.yaml, err)
		}
		if got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.yaml, got, tt.want)
		}
		switch {
		case tt.warn == "" && len(warns) > 0:
			t.Errorf("%s: warnings %v, want none", tt.yaml, warns)
		case tt.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0].String(), tt.warn) || warns[0].Line != 1):
			t.Errorf("%s: warnings %v, want one on line 1 saying %q", tt.yaml, warns, tt.warn)
		}
	}
	if got, warns, err := Size("f", nil, "memory", def, MinMemory, MaxMemory); got != def || warns != nil || err != nil {
		t.Errorf("absent: got %d, %v, %v; want the default", got, warns, err)
	}
}
