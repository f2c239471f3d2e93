package shell

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/google/shlex"
)

// Errors of SplitCommand.
var (
	ErrEmptyCommand       = errors.New("shell: empty command")
	ErrUnterminatedQuote  = errors.New("shell: unterminated quote")
	ErrTrailingBackslash  = errors.New("shell: command ends with a backslash")
	errUnexpectedSplitter = errors.New("shell: cannot split command")
)

// SplitCommand splits cmd into words the way a POSIX shell splits them, without running one:
// blanks separate words, '...' and "..." quote, a backslash escapes the next character (inside
// double quotes only before $ ` " \ and newline, as in sh), and backslash-newline joins lines.
// A word that is `~` or starts with `~/` (unquoted) has the `~` replaced by the home directory.
// Nothing else is expanded: no variables, globs, pipes or redirections.
//
// There are no comments: an unquoted `#` at the start of a word is kept literally (a shell would
// drop the rest of the line; silently running a different command would be worse). ParseHooks
// warns about such words.
func SplitCommand(cmd string) ([]string, error) {
	argv, _, err := splitCommand(cmd)
	return argv, err
}

// splitCommand is SplitCommand that also returns the words that began with an unquoted '#'.
func splitCommand(cmd string) (argv, hashWords []string, err error) {
	home, _ := os.UserHomeDir()
	prepared, hashIdx, err := prepareForShlex(cmd, home)
	if err != nil {
		return nil, nil, err
	}
	argv, err = shlex.Split(prepared)
	if err != nil {
		// prepareForShlex rejects everything shlex would; keep shlex's error type out anyway.
		return nil, nil, fmt.Errorf("%w: %s", errUnexpectedSplitter, err.Error())
	}
	if len(argv) == 0 {
		return nil, nil, ErrEmptyCommand
	}
	for _, i := range hashIdx {
		if i < len(argv) {
			hashWords = append(hashWords, argv[i])
		}
	}
	return argv, hashWords, nil
}

// Lexer states of prepareForShlex, mirroring shlex's.
const (
	stBlank  = iota // between words
	stWord          // in an unquoted part of a word
	stSingle        // inside '...'
	stDouble        // inside "..."
)

// isBlank reports whether c separates words for shlex.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// prepareForShlex rewrites cmd so that shlex.Split yields POSIX words: it escapes an unquoted
// '#' that starts a word (shlex would drop it as a comment), doubles backslashes inside double
// quotes that POSIX keeps literally, removes backslash-newline, and replaces an unquoted leading
// `~` by the quoted home directory. It returns the indexes of the words that started with '#'.
func prepareForShlex(cmd, home string) (string, []int, error) {
	var b strings.Builder
	var hashIdx []int
	state, word, quoteAt := stBlank, -1, 0
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch state {
		case stBlank, stWord:
			if state == stBlank && !isBlank(c) && !(c == '\\' && i+1 < len(cmd) && cmd[i+1] == '\n') {
				state, word = stWord, word+1
				if c == '#' {
					hashIdx = append(hashIdx, word)
					b.WriteString(`\#`)
					continue
				}
				if c == '~' && home != "" && (i+1 == len(cmd) || cmd[i+1] == '/' || isBlank(cmd[i+1])) {
					b.WriteString(`'` + strings.ReplaceAll(home, `'`, `'\''`) + `'`)
					continue
				}
			}
			switch {
			case isBlank(c):
				state = stBlank
				b.WriteByte(c)
			case c == '\\':
				if i+1 == len(cmd) {
					return "", nil, ErrTrailingBackslash
				}
				i++
				if cmd[i] != '\n' { // backslash-newline is a line continuation
					b.WriteByte('\\')
					b.WriteByte(cmd[i])
				}
			case c == '\'' || c == '"':
				state, quoteAt = stSingle, i
				if c == '"' {
					state = stDouble
				}
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		case stSingle:
			if c == '\'' {
				state = stWord
			}
			b.WriteByte(c)
		case stDouble:
			switch {
			case c == '"':
				state = stWord
				b.WriteByte(c)
			case c == '\\' && i+1 < len(cmd) && strings.IndexByte("$`\"\\", cmd[i+1]) >= 0:
				i++
				b.WriteByte('\\')
				b.WriteByte(cmd[i])
			case c == '\\' && i+1 < len(cmd) && cmd[i+1] == '\n':
				i++
			case c == '\\':
				b.WriteString(`\\`) // POSIX keeps this backslash; shlex would eat it
			default:
				b.WriteByte(c)
			}
		}
	}
	if state == stSingle || state == stDouble {
		return "", nil, fmt.Errorf("%w: %c opened at offset %d is never closed", ErrUnterminatedQuote, cmd[quoteAt], quoteAt)
	}
	return b.String(), hashIdx, nil
}
