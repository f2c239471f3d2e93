package consent

import "testing"

func TestEnvAccepts(t *testing.T) {
	tests := []struct {
		value string
		want  bool
	}{
		{"1", true}, {"true", true}, {"TRUE", true}, {" yes ", true}, {"on", true}, {"On\n", true}, {"Yes", true},
		{"0", false}, {"false", false}, {"no", false}, {"off", false}, {"", false}, {"2", false},
		{"y", false}, {"yess", false}, {"true!", false}, {"1 1", false},
	}
	for _, tt := range tests {
		if got := EnvAccepts(tt.value); got != tt.want {
			t.Errorf("EnvAccepts(%q) = %v, want %v", tt.value, got, tt.want)
		}
	}
}

func TestConfigAccepts(t *testing.T) {
	tests := []struct {
		value any
		want  bool
	}{
		{true, true}, {"yes", true}, {"true", true}, {" ON ", true}, {"1", true},
		{false, false}, {"false", false}, {"no", false}, {"", false}, {nil, false},
		{1, false}, {int64(1), false}, {uint64(1), false}, {1.0, false},
		{[]any{"true"}, false}, {map[string]any{"true": true}, false},
	}
	for _, tt := range tests {
		if got := ConfigAccepts(tt.value); got != tt.want {
			t.Errorf("ConfigAccepts(%#v) = %v, want %v", tt.value, got, tt.want)
		}
	}
}
