package command

import (
	"errors"
	"fmt"
	"strings"
)

// Errors of Resolve; the errors it returns wrap one of them.
var (
	ErrEmpty             = errors.New("empty command")
	ErrUnterminatedQuote = errors.New("unterminated quote")
	ErrTrailingBackslash = errors.New("command ends with a backslash")
)

// isBlank reports whether c separates words.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// splitter holds the state of one split.
type splitter struct {
	words  []string
	hashes []string // words that began with an unquoted '#'
	cur    strings.Builder
	inWord bool
	hash   bool // the current word began with an unquoted '#'
}

// split splits s into words the way a POSIX shell does before expansion: blanks separate
// words; single quotes keep everything literally; double quotes keep everything but a
// backslash before $ ` " \ or newline; a backslash outside quotes keeps the next byte, and
// a backslash-newline joins lines. It works on bytes: text that is not UTF-8 is kept as is.
func split(s string) (words, hashWords []string, err error) {
	var sp splitter
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isBlank(c):
			sp.end()
		case c == '\\':
			if i+1 == len(s) {
				return nil, nil, ErrTrailingBackslash
			}
			i++
			if s[i] != '\n' {
				sp.add(s[i : i+1])
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, nil, unterminated(c, i)
			}
			sp.add(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			n, ok := sp.doubleQuoted(s[i+1:])
			if !ok {
				return nil, nil, unterminated(c, i)
			}
			i += n + 1
		default:
			if !sp.inWord && c == '#' {
				sp.hash = true
			}
			sp.add(s[i : i+1])
		}
	}
	sp.end()
	return sp.words, sp.hashes, nil
}

func unterminated(quote byte, at int) error {
	return fmt.Errorf("%w: %c opened at offset %d is never closed", ErrUnterminatedQuote, quote, at)
}

// add appends text to the current word, starting one if needed (an empty quoted string is
// a word too).
func (sp *splitter) add(text string) {
	sp.cur.WriteString(text)
	sp.inWord = true
}

// end finishes the current word, if any.
func (sp *splitter) end() {
	if !sp.inWord {
		return
	}
	w := sp.cur.String()
	sp.words = append(sp.words, w)
	if sp.hash {
		sp.hashes = append(sp.hashes, w)
	}
	sp.cur.Reset()
	sp.inWord, sp.hash = false, false
}

// doubleQuoted adds the body of a double-quoted string (s starts after the opening quote)
// to the current word and returns the index of the closing quote in s; false when there
// is none.
func (sp *splitter) doubleQuoted(s string) (int, bool) {
	sp.inWord = true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i, true
		case c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
			i++
			if s[i] != '\n' {
				sp.cur.WriteByte(s[i])
			}
		default:
			sp.cur.WriteByte(c)
		}
	}
	return 0, false
}
