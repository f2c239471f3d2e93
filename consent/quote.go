package consent

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// quoteForShell quotes s so that a POSIX shell passes it through unchanged as one word.
func quoteForShell(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.:,/@%+=", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return singleQuote(s)
}

// displayable returns s as is when it is printable, else Go-quoted, so that control
// characters in a command cannot disguise what a prompt or a warning shows.
func displayable(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// singleQuote quotes s for a POSIX shell whatever it holds, so that a hint like
// hermesctl hooks allow pre_tool_call '~/x.sh' keeps a leading ~ unexpanded.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
