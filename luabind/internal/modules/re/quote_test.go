package re

import (
	"regexp"
	"strings"
	"testing"
)

// TestQuotedSize: the size re.quote checks before building its result is the size of the
// result, for every byte.
func TestQuotedSize(t *testing.T) {
	var all strings.Builder
	for c := range 256 {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{"", "abc", all.String(), strings.Repeat(`a.b\c$`, 100)} {
		if got, want := quotedSize(s), len(regexp.QuoteMeta(s)); got != want {
			t.Errorf("quotedSize(%q) = %d, want %d", s, got, want)
		}
	}
}
