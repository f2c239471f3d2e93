package main

import "testing"

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, ünïcödé, 日本, emoji 🎉", "plain text, ünïcödé, 日本, emoji 🎉"},
		{"", ""},
		{"clear\x1b[2Jscreen", `clear\x1b[2Jscreen`},
		{"over\rwrite", `over\rwrite`},
		{"two\nlines\tand tab", `two\nlines\tand tab`},
		{"bell\a bs\b ff\f vt\v nul\x00 del\x7f", `bell\a bs\b ff\f vt\v nul\x00 del\x7f`},
		{"csi\u009b2J nel\u0085", `csi\u009b2J nel\u0085`},
		{"bidi\u202egnp.exe iso\u2066x\u2069 sep\u2028", `bidi\u202egnp.exe iso\u2066x\u2069 sep\u2028`},
		{"bad \xff\xfe utf8 \xe2\x82", `bad \xff\xfe utf8 \xe2\x82`},
		{"replacement char \uFFFD kept", "replacement char \uFFFD kept"},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPrintableLeavesNothingRaw(t *testing.T) {
	var all []byte
	for b := 0; b < 256; b++ {
		all = append(all, byte(b))
	}
	for _, s := range []string{string(all), "\u0080\u009f\u202a\u2029"} {
		out := printable(s)
		for _, r := range out {
			if mustEscape(r) || r == '\uFFFD' {
				t.Fatalf("printable(%q) = %q keeps %U", s, out, r)
			}
		}
	}
}
