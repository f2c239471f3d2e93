package procgroup

import (
	"strings"
	"testing"
)

func TestCapped(t *testing.T) {
	w := &Capped{Max: 5}
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v: a capped writer must take everything", s, n, err)
		}
	}
	if w.String() != "abcde" || w.Dropped != 5 {
		t.Errorf("kept %q, dropped %d; want \"abcde\", 5", w.String(), w.Dropped)
	}
	big := &Capped{Max: 1 << 10}
	big.Write([]byte(strings.Repeat("x", 1<<20)))
	if len(big.Bytes()) != 1<<10 || big.Dropped != 1<<20-1<<10 {
		t.Errorf("kept %d, dropped %d", len(big.Bytes()), big.Dropped)
	}
}
