package consent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// scriptExtensions are the suffixes that mark a word as the script of a command,
// compared case-insensitively.
var scriptExtensions = []string{
	".sh", ".bash", ".zsh", ".fish", ".py", ".pyw", ".rb", ".pl", ".lua", ".js", ".mjs", ".cjs", ".ts",
}

// ScriptPath returns the script a command runs, for mtime, hash and executable checks: the
// first word that ends in a script extension (.sh .bash .zsh .fish .py .pyw .rb .pl .lua .js
// .mjs .cjs .ts), else the first word containing "/" or starting with "~", else the first
// word. Words are split like a POSIX shell splits them (quotes and backslashes; no
// expansion, no comments); a command that cannot be split (an unterminated quote) is split
// at white space instead. A leading "~" or "~/" is expanded to the user's home directory.
// An empty command has no script: ScriptPath returns "".
//
//	python3 -u /p/hook.py     -> /p/hook.py
//	/usr/bin/env bash /p/h.sh -> /p/h.sh
//	my-binary --verbose       -> my-binary
func ScriptPath(command string) string {
	script, _ := scriptWord(command)
	return expandHome(script)
}

// scriptWord applies the script-path rule to the words of command; first reports whether the
// chosen word is the command's first word (the program itself rather than an argument).
func scriptWord(command string) (word string, first bool) {
	words, err := splitWords(command)
	if err != nil {
		words = strings.Fields(command)
	}
	if len(words) == 0 {
		return "", false
	}
	for i, w := range words {
		lw := strings.ToLower(w)
		for _, ext := range scriptExtensions {
			if strings.HasSuffix(lw, ext) {
				return w, i == 0
			}
		}
	}
	for i, w := range words {
		if strings.Contains(w, "/") || strings.HasPrefix(w, "~") {
			return w, i == 0
		}
	}
	return words[0], true
}

// expandHome expands a leading "~" or "~/" to the user's home directory. "~user" forms and a
// missing home are left alone.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	return filepath.Join(home, p[1:])
}

// resolveScript returns the file a command's script check examines: the expanded script
// path, or for a bare program name (no "/", first word) the file found on $PATH the way the
// hook runner finds it. resolved is "" when a bare name is not on $PATH.
func resolveScript(command string) (script, resolved string, first bool) {
	word, first := scriptWord(command)
	script = expandHome(word)
	if script == "" || !first || strings.Contains(script, "/") {
		return script, script, first
	}
	return script, lookPath(script), first
}

// lookPath finds an executable regular file named name in $PATH's absolute directories.
func lookPath(name string) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Fingerprint returns a file's modification time (RFC 3339, UTC, microseconds as the
// original writes them) and the hex SHA-256 of its content. It follows symbolic links. When
// the file cannot be stat'ed both are ""; when it is not a regular file or cannot be read,
// sha256hex is "" and mtime is still set. err says what failed.
func Fingerprint(path string) (mtime string, sha256hex string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", fmt.Errorf("consent: fingerprint: %w", err)
	}
	mtime = formatTime(fi.ModTime())
	if !fi.Mode().IsRegular() {
		return mtime, "", fmt.Errorf("consent: fingerprint %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return mtime, "", fmt.Errorf("consent: fingerprint: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return mtime, "", fmt.Errorf("consent: fingerprint %s: %w", path, err)
	}
	return mtime, hex.EncodeToString(h.Sum(nil)), nil
}

var (
	errUnterminatedQuote = errors.New("unterminated quote")
	errTrailingBackslash = errors.New("backslash at end of command")
)

// splitWords splits s into words the way a POSIX shell does before expansion: blanks
// separate words; single quotes keep everything literally; double quotes keep everything
// but a backslash before $ ` " \ or newline; a backslash outside quotes keeps the next
// character, and a backslash-newline joins lines. "#" is an ordinary character: unlike
// shlex this never drops the rest of a command as a comment.
func splitWords(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\\':
			if i+1 >= len(s) {
				return nil, errTrailingBackslash
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				inWord = true
			}
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errUnterminatedQuote
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case '"':
			n, err := readDoubleQuoted(s[i+1:], &cur)
			if err != nil {
				return nil, err
			}
			i += n + 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// readDoubleQuoted copies the body of a double-quoted string (s starts after the opening
// quote) to cur and returns the index of the closing quote in s.
func readDoubleQuoted(s string, cur *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return i, nil
		case '\\':
			if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
				continue
			}
			cur.WriteByte(c)
		default:
			cur.WriteByte(c)
		}
	}
	return 0, errUnterminatedQuote
}
