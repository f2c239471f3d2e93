package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// printable returns s with everything a terminal would act on instead of showing escaped,
// so that text from hooks (errors, results, names, log lines) cannot clear the screen, move
// the cursor, rewrite a line or hide text. Every line hermesctl prints is one field or one
// record, so newlines and tabs are escaped too. Escapes are Go's: \n, \t, \r, \x1b for C0
// controls and DEL, \u009b for C1 controls, \u202e for the bidirectional formatting
// characters and line separators, \xff for each byte that is not UTF-8. Other text,
// including non-ASCII letters, is unchanged.
func printable(s string) string {
	i := firstUnprintable(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case mustEscape(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnprintable returns the index of the first byte printable would change, or -1.
func firstUnprintable(s string) int {
	for i, r := range s {
		if mustEscape(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return i
		}
	}
	return -1
}

// mustEscape reports whether r is a control character (C0, DEL, C1), a bidirectional
// formatting character or a line or paragraph separator.
func mustEscape(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// escapeRune writes r the way a Go string literal would.
func escapeRune(r rune) string {
	q := strconv.QuoteRuneToASCII(r)
	return q[1 : len(q)-1]
}
