package shell

import (
	"path"
	"slices"
	"strings"
)

// How a Bash `if` rule reads the command a call runs: the way /bin/sh reads it, without
// running it. The line is split into simple commands (at ; & && || | |& and newlines), each
// into words (blanks, '...', "...", backslashes and backslash-newline as in sh; a comment
// starts at an unquoted # that begins a word), and redirections with their targets are
// left out. A part of a word the shell would expand ($VAR, ${VAR}, $'...', globs, brace
// lists) is unknown: it may be anything. A simple command meets the rule when what runs,
// read from its command word (after variable assignments and the keywords !, if, then,
// else, elif, do, while, until, time, {), or from any word after a program that runs
// another (sudo, env, xargs, nice, timeout, exec, command, builtin, sh, eval, find, ...),
// can be the pattern: both as written and with quotes removed, and with a program named by
// its path also read by its name (/bin/rm is rm). A word that is itself a command line
// (`sh -c 'ls; rm -rf x'`) is read as one too.
//
// What cannot be decided this way selects the call, so the guard runs: command and process
// substitutions, subshells and groups in ( ), here-documents, `case` patterns, alias, a
// program run by another from a word that is not known (sudo "$X"), quotes that do not
// end, and lines over maxIfCommand bytes or nested deeper than maxIfDepth.

const (
	maxIfCommand = 16 << 10 // bytes of a command line read for an `if` rule
	maxIfDepth   = 3        // command lines nested in words, read in turn
	unknownAtom  = -1       // an atom of a template that may be any text
)

// runners are programs and builtins that run the program their later words name.
var runners = []string{"sudo", "doas", "env", "nice", "nohup", "xargs", "timeout", "exec", "command", "builtin",
	"stdbuf", "ionice", "chroot", "setsid", "time", "strace", "ltrace", "watch", "su", "runuser", "flock",
	"parallel", "unbuffer", "busybox", "eval", "trap", "find", "ssh", "sh", "bash", "dash", "zsh", "ksh", "mksh",
	"fish", "ash", "caffeinate", "chronic", "taskset", "chrt", "numactl", "firejail", "proot", "fakeroot"}

// leaders are the keywords after which a simple command's program is named.
var leaders = []string{"!", "if", "then", "else", "elif", "do", "while", "until", "time", "{"}

// shWord is one word of a simple command: as written, and as the shell expands it (atoms
// are bytes, or unknownAtom for a part that may be anything).
type shWord struct {
	raw     string
	atoms   []int
	known   bool // no unknown atom
	comment bool // a comment (#...): read by the pattern, never run
}

// shCommand is what the reader made of a line: its simple commands, or why it cannot be
// decided.
type shCommand struct {
	simple      [][]shWord
	undecidable string
}

// readShell reads line as /bin/sh would, for `if` rules.
func readShell(line string) shCommand {
	if len(line) > maxIfCommand {
		return shCommand{undecidable: "a command line over 16 KiB"}
	}
	rd := shReader{s: line}
	rd.read()
	if rd.bad != "" {
		return shCommand{undecidable: rd.bad}
	}
	return shCommand{simple: rd.simple}
}

// shReader splits a line into simple commands of words.
type shReader struct {
	s      string
	bad    string
	simple [][]shWord
	cur    []shWord

	// the word being read
	in       bool
	start    int
	atoms    []int
	digits   bool // unquoted digits only (the descriptor of a redirection: 2>...)
	whole    bool // the whole word is unknown (a brace list)
	redirect bool // the next word is a redirection's target
}

func (rd *shReader) fail(what string) {
	if rd.bad == "" {
		rd.bad = what
	}
}

func (rd *shReader) begin(i int) {
	if !rd.in {
		rd.in, rd.start, rd.atoms, rd.digits, rd.whole = true, i, nil, true, false
	}
}

func (rd *shReader) lit(i int, text string, quoted bool) {
	rd.begin(i)
	for j := 0; j < len(text); j++ {
		rd.atoms = append(rd.atoms, int(text[j]))
		if quoted || text[j] < '0' || text[j] > '9' {
			rd.digits = false
		}
	}
}

func (rd *shReader) unknown(i int) {
	rd.begin(i)
	rd.digits = false
	if n := len(rd.atoms); n == 0 || rd.atoms[n-1] != unknownAtom {
		rd.atoms = append(rd.atoms, unknownAtom)
	}
}

// end ends the word before i.
func (rd *shReader) end(i int) {
	if !rd.in {
		return
	}
	rd.in = false
	if rd.redirect { // a redirection's target: not a word of the command
		rd.redirect = false
		return
	}
	w := shWord{raw: rd.s[rd.start:i], atoms: rd.atoms}
	if rd.whole {
		w.atoms = []int{unknownAtom}
	}
	w.known = !slices.Contains(w.atoms, unknownAtom)
	rd.cur = append(rd.cur, w)
}

// sep ends the simple command.
func (rd *shReader) sep(i int) {
	rd.end(i)
	if rd.redirect {
		rd.fail("a redirection without a target")
	}
	if len(rd.cur) > 0 {
		rd.simple = append(rd.simple, rd.cur)
	}
	rd.cur = nil
}

func (rd *shReader) read() {
	s := rd.s
	for i := 0; i < len(s) && rd.bad == ""; i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case c == ' ' || c == '\t':
			rd.end(i)
		case c == '\n':
			rd.sep(i)
		case c == '#' && !rd.in:
			i = rd.comment(i)
		case c == ';':
			if next == ';' || next == '&' {
				rd.fail("case patterns (" + s[i:i+2] + ")")
			}
			rd.sep(i)
		case c == '&' && next == '>':
			rd.redirection(i)
			i++
			if i+1 < len(s) && s[i+1] == '>' {
				i++
			}
		case c == '&' || c == '|':
			rd.sep(i)
			if next == c || c == '|' && next == '&' {
				i++
			}
		case c == '>' || c == '<':
			i = rd.redirectOp(i)
		case c == '(' || c == ')':
			rd.fail("a subshell or group ( )")
		case c == '`':
			rd.fail("command substitution `...`")
		case c == '$':
			i = rd.dollar(i)
		case c == '\\' || c == '\'':
			i = rd.quoted(i)
		case c == '"':
			i = rd.doubleQuoted(i)
		case c == '*' || c == '?':
			rd.unknown(i)
		case c == '[' && strings.IndexByte(s[i:wordEnd(s, i)], ']') > 0:
			rd.unknown(i)
		case c == '{' && braceList(s[i:wordEnd(s, i)]):
			rd.lit(i, "{", false)
			rd.whole = true
		default:
			rd.lit(i, s[i:i+1], false)
		}
	}
	if rd.bad == "" {
		rd.sep(len(s))
	}
}

// comment reads a comment at i, kept as a word, as a rule written for the line reads it,
// and returns the index of its last byte.
func (rd *shReader) comment(i int) int {
	s, j := rd.s, i
	for i+1 < len(s) && s[i+1] != '\n' {
		i++
	}
	rd.lit(j, s[j:i+1], true)
	rd.end(i + 1)
	if n := len(rd.cur); n > 0 && rd.cur[n-1].raw == s[j:i+1] {
		rd.cur[n-1].comment = true
	}
	return i
}

// quoted reads a backslash escape or a single-quoted string at i and returns the index of
// its last byte.
func (rd *shReader) quoted(i int) int {
	s := rd.s
	if s[i] == '\\' {
		switch {
		case i+1 == len(s):
			rd.fail("a trailing backslash")
		case s[i+1] != '\n':
			rd.lit(i, s[i+1:i+2], true)
		}
		return i + 1
	}
	end := strings.IndexByte(s[i+1:], '\'')
	if end < 0 {
		rd.fail("a quote that does not end")
		return i
	}
	rd.lit(i, s[i+1:i+1+end], true)
	return i + end + 1
}

// wordEnd is where the unquoted text from i ends: at a blank or an operator.
func wordEnd(s string, i int) int {
	if j := strings.IndexAny(s[i:], " \t\n;&|<>()'\"`$\\"); j >= 0 {
		return i + j
	}
	return len(s)
}

// braceList reports whether text (starting with "{") is a brace expansion: a "," or ".."
// before its "}".
func braceList(text string) bool {
	end := strings.IndexByte(text, '}')
	return end > 0 && (strings.Contains(text[:end], ",") || strings.Contains(text[:end], ".."))
}

// redirectOp reads the redirection operator at i and returns the index of its last byte.
func (rd *shReader) redirectOp(i int) int {
	s := rd.s
	if rd.in && rd.digits { // 2>file: the number is the descriptor, not a word
		rd.in = false
	}
	n := 1
	if i+1 < len(s) {
		switch next := s[i+1]; {
		case next == '(':
			rd.fail("process substitution " + s[i:i+2] + "...)")
		case s[i] == '<' && next == '<':
			rd.fail("a here-document (<<)")
		case next == '>' || next == '&' || next == '|' || s[i] == '<' && next == '>':
			n = 2
		}
	}
	rd.redirection(i)
	return i + n - 1
}

// redirection starts the redirection at i: the next word is its target.
func (rd *shReader) redirection(i int) {
	rd.end(i)
	if rd.redirect {
		rd.fail("a redirection without a target")
	}
	rd.redirect = true
}

// dollar reads the expansion at i (unquoted) and returns the index of its last byte.
func (rd *shReader) dollar(i int) int {
	s := rd.s
	j := i + 1
	switch {
	case j >= len(s):
		rd.lit(i, "$", false)
		return i
	case s[j] == '(':
		rd.fail("command substitution $(...)")
	case s[j] == '{':
		k := strings.IndexByte(s[j:], '}')
		if k < 0 || strings.ContainsAny(s[j+1:j+k], "$`'\"({\\") {
			rd.fail("the expansion " + truncateChars(s[i:], 24))
			return i
		}
		rd.unknown(i)
		return j + k
	case s[j] == '\'': // $'...': escapes the engine does not read
		k := j + 1
		for k < len(s) && s[k] != '\'' {
			if s[k] == '\\' {
				k++
			}
			k++
		}
		if k >= len(s) {
			rd.fail("a quote that does not end")
			return i
		}
		rd.unknown(i)
		return k
	case s[j] == '"': // $"...": a translated string
		rd.unknown(i)
		return rd.doubleQuoted(j)
	case isNameStart(s[j]):
		k := j
		for k < len(s) && isNameByte(s[k]) {
			k++
		}
		rd.unknown(i)
		return k - 1
	case strings.IndexByte("0123456789@*#?$!-", s[j]) >= 0:
		rd.unknown(i)
		return j
	}
	rd.lit(i, "$", false)
	return i
}

// doubleQuoted reads the double-quoted string opening at i and returns the index of its
// closing quote.
func (rd *shReader) doubleQuoted(i int) int {
	s := rd.s
	rd.lit(i, "", true)
	rd.digits = false
	for i++; i < len(s) && rd.bad == ""; i++ {
		switch c := s[i]; {
		case c == '"':
			return i
		case c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
			i++
			if s[i] != '\n' {
				rd.lit(i, s[i:i+1], true)
			}
		case c == '`':
			rd.fail("command substitution `...`")
		case c == '$':
			if i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"') {
				rd.lit(i, "$", true)
			} else {
				i = rd.dollar(i)
			}
		default:
			rd.lit(i, s[i:i+1], true)
		}
	}
	rd.fail("a quote that does not end")
	return len(s)
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }

// commandSelects reports whether the command line may run a command matching one of the
// patterns (atoms: bytes, unknownAtom for `*`), reading words that are command lines in turn
// down to depth; undecidable says why it cannot be known ("" when it was decided).
func commandSelects(line string, patterns [][]int, depth int) (selects bool, undecidable string) {
	cmd := readShell(line)
	if cmd.undecidable != "" {
		return true, cmd.undecidable
	}
	for _, words := range cmd.simple {
		if sel, why := simpleSelects(words, patterns, depth); sel {
			return true, why
		}
	}
	return false, ""
}

// simpleSelects is commandSelects for one simple command.
func simpleSelects(words []shWord, patterns [][]int, depth int) (bool, string) {
	program := 0 // the command word: after assignments and keywords
	for program < len(words) && (assignmentWord(words[program].raw) || slices.Contains(leaders, words[program].raw)) {
		program++
	}
	if program < len(words) && words[program].raw == "alias" {
		return true, "alias, which renames the commands after it"
	}
	// Where what runs may be read from: the line, the command word, and every word after a
	// program that runs another.
	starts := []int{0, program}
	for i := program; i < len(words); i++ {
		if !words[i].known || !slices.Contains(runners, path.Base(atomsText(words[i].atoms))) {
			continue
		}
		for j := i + 1; j < len(words); j++ {
			if !words[j].known {
				return true, "a program run by " + path.Base(atomsText(words[i].atoms)) + " from a word that is not known (" + truncateChars(words[j].raw, 24) + ")"
			}
			starts = append(starts, j)
		}
		break
	}
	for _, expanded := range []bool{true, false} {
		if templateSelects(words, starts, expanded, patterns) {
			return true, ""
		}
	}
	// A word that is a command line of its own (sh -c 'ls; rm -rf x', trap 'rm x' EXIT).
	for _, w := range words {
		text := atomsLine(w.atoms)
		if w.comment || !strings.ContainsAny(text, " \t\n;&|") {
			continue
		}
		if depth >= maxIfDepth {
			return true, "command lines nested too deep"
		}
		if sel, why := commandSelects(text, patterns, depth+1); sel {
			return true, why
		}
	}
	return false, ""
}

// templateSelects reports whether the words read from one of starts (and a program named by
// its path, read from its name) can be one of the patterns: expanded, or as written.
func templateSelects(words []shWord, starts []int, expanded bool, patterns [][]int) bool {
	var tmpl []int
	var at []int // offsets in tmpl of the starts
	for i, w := range words {
		if i > 0 {
			tmpl = append(tmpl, ' ')
		}
		atoms := w.atoms
		if !expanded {
			atoms = textAtoms(w.raw)
		}
		if slices.Contains(starts, i) {
			at = append(at, len(tmpl))
			if k := lastIndex(atoms, '/'); k >= 0 && !slices.Contains(atoms[:k], unknownAtom) {
				at = append(at, len(tmpl)+k+1)
			}
		}
		tmpl = append(tmpl, atoms...)
	}
	isStart := make([]bool, len(tmpl)+1)
	for _, i := range at {
		isStart[i] = true
	}
	for _, p := range patterns {
		if intersects(tmpl, isStart, p) {
			return true
		}
	}
	return false
}

func lastIndex(atoms []int, b int) int {
	for i := len(atoms) - 1; i >= 0; i-- {
		if atoms[i] == b {
			return i
		}
	}
	return -1
}

// intersects reports whether some text matches both t from an offset marked in starts and
// the pattern p, where unknownAtom in either matches any text. D(i, j), whether t[i:] and
// p[j:] have a text in common, is computed from the ends, one row of t at a time.
func intersects(t []int, starts []bool, p []int) bool {
	next := make([]bool, len(p)+1) // row i+1
	row := make([]bool, len(p)+1)
	for i := len(t); i >= 0; i-- {
		for j := len(p); j >= 0; j-- {
			switch {
			case i == len(t) && j == len(p):
				row[j] = true
			case i < len(t) && t[i] == unknownAtom:
				row[j] = next[j] || j < len(p) && row[j+1]
			case j < len(p) && p[j] == unknownAtom:
				row[j] = row[j+1] || i < len(t) && next[j]
			case i < len(t) && j < len(p):
				row[j] = t[i] == p[j] && next[j+1]
			default:
				row[j] = false
			}
		}
		if row[0] && starts[i] {
			return true
		}
		row, next = next, row
	}
	return false
}

// textAtoms is text as atoms.
func textAtoms(text string) []int {
	atoms := make([]int, len(text))
	for i := 0; i < len(text); i++ {
		atoms[i] = int(text[i])
	}
	return atoms
}

// atomsText is the text of known atoms.
func atomsText(atoms []int) string {
	b := make([]byte, 0, len(atoms))
	for _, a := range atoms {
		if a != unknownAtom {
			b = append(b, byte(a))
		}
	}
	return string(b)
}

// atomsLine is a word as a command line of its own: its unknown parts are a variable.
func atomsLine(atoms []int) string {
	var b strings.Builder
	for _, a := range atoms {
		if a == unknownAtom {
			b.WriteString("$_")
		} else {
			b.WriteByte(byte(a))
		}
	}
	return b.String()
}

// assignmentWord reports whether a word as written is a variable assignment (NAME=...).
func assignmentWord(raw string) bool {
	eq := strings.IndexByte(raw, '=')
	if eq <= 0 || !isNameStart(raw[0]) {
		return false
	}
	for i := 1; i < eq; i++ {
		if !isNameByte(raw[i]) {
			return false
		}
	}
	return true
}

// globAtoms is a Bash rule's pattern as atoms: `*` is anything.
func globAtoms(pattern string) []int {
	atoms := make([]int, 0, len(pattern))
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '*' {
			if n := len(atoms); n == 0 || atoms[n-1] != unknownAtom {
				atoms = append(atoms, unknownAtom)
			}
			continue
		}
		atoms = append(atoms, int(pattern[i]))
	}
	return atoms
}
