package command

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Shell is a command line run by /bin/sh -c (hooks written for Claude Code), as far as it
// can be analysed without running a shell: the programs and scripts each of its simple
// commands runs, expanded exactly as the shell expands them.
type Shell struct {
	// Commands are the simple commands that run a program or a script, in the order they
	// appear, each resolved like Resolve resolves a line (Argv expanded as the shell expands
	// it). Builtins that run nothing (echo, printf, exit, test, true, false, :, ...) are left
	// out. Nil when Unanalysable is set.
	Commands []Resolved
	// Unanalysable names what the line holds that cannot be analysed without running it
	// ("command substitution $(...)", "the variable $HOME", "a glob (*)", ...), so that
	// which files it runs is unknown; "" when the line was analysed.
	Unanalysable string
	// ProjectDependent reports that what the line runs depends on the directory it runs in:
	// it names a script by a relative path or under $CLAUDE_PROJECT_DIR, or it cannot be
	// analysed.
	ProjectDependent bool
}

// ResolveShell analyses line as `/bin/sh -c line` runs it in the working directory dir ("" =
// the process's), with $CLAUDE_PROJECT_DIR set to ProjectDir(dir):
//
//   - words are split and quotes removed as the shell does; an unquoted "~" alone or
//     before "/" at the start of a word is $HOME, and a quoted "~" is a literal character
//     (so '~/x.sh' is the relative path ./~/x.sh);
//   - $CLAUDE_PROJECT_DIR and ${CLAUDE_PROJECT_DIR}, quoted or not, are the project
//     directory; unquoted, its value must hold no blank or glob character;
//   - simple commands are separated by ; & && || | and newlines; "#" at the start of a word
//     begins a comment; output redirections to /dev/null and to other descriptors (>&2)
//     are allowed;
//   - every other expansion or construct makes the line unanalysable: other variables,
//     $(...), backticks, globs, braces, subshells, input redirections and redirections to
//     files, variable assignments, shell keywords, builtins that change how the rest runs
//     (cd, eval, exec, export, source, ...), a nested shell (sh -c), a bare program name
//     looked up on a $PATH that holds a relative directory.
//
// Each simple command that runs something is resolved by the rules of Resolve.
func ResolveShell(line, dir string) Shell {
	return ResolveShellFor(line, dir, "")
}

// ResolveShellFor is ResolveShell for a hook written for the agent of dialect (AgentVars):
// each variable of that agent holding the project directory is expanded like
// $CLAUDE_PROJECT_DIR.
func ResolveShellFor(line, dir, dialect string) Shell {
	lx := shLexer{s: line, home: os.Getenv("HOME"), project: ProjectDir(dir), projectVars: projectVars(dialect)}
	toks := lx.lex()
	if lx.bad != "" {
		return Shell{Unanalysable: lx.bad, ProjectDependent: true}
	}
	simple, bad := parseSimple(toks)
	if bad != "" {
		return Shell{Unanalysable: bad, ProjectDependent: true}
	}
	sh := Shell{ProjectDependent: lx.projectUsed}
	wd := workdir{dir: dir}
	for _, words := range simple {
		if len(words) == 0 { // only redirections: runs nothing
			continue
		}
		r, bad, relative := resolveSimple(words, &wd)
		if bad != "" {
			return Shell{Unanalysable: bad, ProjectDependent: true}
		}
		if r.Argv == nil {
			continue
		}
		sh.ProjectDependent = sh.ProjectDependent || relative
		sh.Commands = append(sh.Commands, r)
	}
	return sh
}

// shToken is a word or an operator of a shell line.
type shToken struct {
	op       string // "" for a word
	word     string // the word after quote removal and expansion
	raw      string // the word as written
	ioNumber bool   // an unquoted number right before a redirection (2>...)
}

// shLexer splits a shell line into tokens, expanding what may be expanded and stopping at
// the first thing it cannot analyse (bad).
type shLexer struct {
	s             string
	home, project string
	projectVars   []string // the variables holding project
	projectUsed   bool
	bad           string

	toks      []shToken
	cur       strings.Builder
	start     int  // where the current word starts in s
	inWord    bool // a word has started (an empty quoted string is a word)
	allDigits bool // the current word is unquoted digits only
}

func (lx *shLexer) fail(what string) {
	if lx.bad == "" {
		lx.bad = what
	}
}

func (lx *shLexer) begin(i int) {
	if !lx.inWord {
		lx.inWord, lx.start, lx.allDigits = true, i, true
	}
}

// add appends literal text to the current word; quoted text is never digits of an IO number.
func (lx *shLexer) add(i int, text string, quoted bool) {
	lx.begin(i)
	lx.cur.WriteString(text)
	if quoted || strings.Trim(text, "0123456789") != "" {
		lx.allDigits = false
	}
}

func (lx *shLexer) end(i int) {
	if !lx.inWord {
		return
	}
	lx.toks = append(lx.toks, shToken{word: lx.cur.String(), raw: lx.s[lx.start:i]})
	lx.cur.Reset()
	lx.inWord = false
}

func (lx *shLexer) op(op string) { lx.toks = append(lx.toks, shToken{op: op}) }

func (lx *shLexer) lex() []shToken {
	s := lx.s
	for i := 0; i < len(s) && lx.bad == ""; i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			lx.end(i)
		case c == '\n':
			lx.end(i)
			lx.op("\n")
		case c == '#' && !lx.inWord:
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case strings.IndexByte(";&|><", c) >= 0:
			i = lx.operator(i)
		case strings.IndexByte("(){}*?[`", c) >= 0:
			lx.refuse(c)
		case c == '$':
			i = lx.dollar(i, false)
		case c == '\\' || c == '\'' || c == '"':
			i = lx.quoted(i)
		case c == '~' && !lx.inWord:
			i = lx.tilde(i)
		default:
			lx.add(i, s[i:i+1], false)
		}
	}
	lx.end(len(s))
	return lx.toks
}

// operator reads the control or redirection operator at i (one of ;&|><) and returns the
// index of its last byte.
func (lx *shLexer) operator(i int) int {
	s, c := lx.s, lx.s[i]
	next := byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	switch c {
	case ';':
		lx.end(i)
		if next == ';' || next == '&' {
			lx.fail("the operator " + s[i:i+2])
		}
		lx.op(";")
	case '&', '|':
		lx.end(i)
		switch {
		case next == c:
			lx.op(string([]byte{c, c}))
			return i + 1
		case c == '&' && next == '>':
			lx.fail("the redirection &>")
		case c == '|' && next == '&':
			lx.fail("the operator |&")
		default:
			lx.op(string(c))
		}
	case '>':
		if lx.inWord && lx.allDigits { // 2>: the word was the redirection's IO number
			lx.inWord = false
			lx.cur.Reset()
			lx.toks = append(lx.toks, shToken{ioNumber: true})
		}
		lx.end(i)
		if next == '>' || next == '|' || next == '&' {
			lx.op(">" + string(next))
			return i + 1
		}
		lx.op(">")
	case '<':
		lx.fail("an input redirection (<)")
	}
	return i
}

// refuse fails on a character that starts what is not read here.
func (lx *shLexer) refuse(c byte) {
	switch c {
	case '(', ')':
		lx.fail("a subshell or group ( )")
	case '{', '}':
		lx.fail("braces { }")
	case '`':
		lx.fail("command substitution `...`")
	default:
		lx.fail("a glob (" + string(c) + ")")
	}
}

// quoted reads a backslash escape or a quoted string at i and returns the index of its last
// byte.
func (lx *shLexer) quoted(i int) int {
	s := lx.s
	switch s[i] {
	case '\\':
		switch {
		case i+1 == len(s):
			lx.fail("a trailing backslash")
		case s[i+1] == '\n':
			return i + 1
		default:
			lx.add(i, s[i+1:i+2], true)
			return i + 1
		}
	case '\'':
		end := strings.IndexByte(s[i+1:], '\'')
		if end < 0 {
			lx.fail("an unterminated quote")
			return i
		}
		lx.add(i, s[i+1:i+1+end], true)
		return i + end + 1
	case '"':
		return lx.doubleQuoted(i)
	}
	return i
}

// tilde expands an unquoted "~" at the start of a word (at i) and returns the index of its
// last byte.
func (lx *shLexer) tilde(i int) int {
	next := byte(0)
	if i+1 < len(lx.s) {
		next = lx.s[i+1]
	}
	switch {
	case next != 0 && next != '/' && !strings.ContainsRune(" \t\n;&|<>()", rune(next)):
		lx.fail("a ~ followed by a name or a quote (" + lx.s[i:min(len(lx.s), i+8)] + ")")
	case lx.home == "":
		lx.fail("~ while $HOME is not set")
	default:
		h := lx.home
		if next == '/' {
			h = strings.TrimSuffix(h, "/")
		}
		lx.add(i, h, true)
	}
	return i
}

// doubleQuoted adds the body of the double-quoted string opening at i and returns the index
// of its closing quote.
func (lx *shLexer) doubleQuoted(i int) int {
	s := lx.s
	lx.add(i, "", true)
	for i++; i < len(s) && lx.bad == ""; i++ {
		switch c := s[i]; {
		case c == '"':
			return i
		case c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
			i++
			if s[i] != '\n' {
				lx.add(i, s[i:i+1], true)
			}
		case c == '`':
			lx.fail("command substitution `...`")
		case c == '$':
			i = lx.dollar(i, true)
		default:
			lx.add(i, s[i:i+1], true)
		}
	}
	lx.fail("an unterminated quote")
	return len(s)
}

const projectVar = "CLAUDE_PROJECT_DIR"

// dollar expands the "$" at i, quoted (inside "...") or not, and returns the index of the
// expansion's last byte. Only the variables holding the project directory expand
// ($CLAUDE_PROJECT_DIR and ${CLAUDE_PROJECT_DIR}, and those of the hook's agent).
func (lx *shLexer) dollar(i int, quoted bool) int {
	s := lx.s
	j := i + 1
	switch {
	case j < len(s) && s[j] == '{':
		k := strings.IndexByte(s[j:], '}')
		if k < 0 {
			lx.fail("an unterminated ${")
			return i
		}
		if !slices.Contains(lx.projectVars, s[j+1:j+k]) {
			lx.fail("the expansion " + truncate(s[i:], k+2))
			return i
		}
		lx.project1(i, quoted, s[j+1:j+k])
		return j + k
	case j < len(s) && isNameStart(s[j]):
		k := j
		for k < len(s) && isNameByte(s[k]) {
			k++
		}
		if !slices.Contains(lx.projectVars, s[j:k]) {
			lx.fail("the variable $" + s[j:k])
			return i
		}
		lx.project1(i, quoted, s[j:k])
		return k - 1
	case j < len(s) && s[j] == '(':
		lx.fail("command substitution $(...)")
	default:
		lx.fail("the expansion " + truncate(s[i:], 2))
	}
	return i
}

// project1 adds the project directory for one $name at i.
func (lx *shLexer) project1(i int, quoted bool, name string) {
	if !quoted && (lx.project == "" || strings.ContainsAny(lx.project, " \t\n*?[")) {
		lx.fail("an unquoted $" + name + " whose value " + lx.project + " is empty or holds blanks or glob characters (quote it)")
		return
	}
	lx.projectUsed = true
	lx.add(i, lx.project, true)
}

// truncate returns the first n bytes of s (at most 24).
func truncate(s string, n int) string {
	return s[:min(n, len(s), 24)]
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }

// parseSimple groups tokens into simple commands (their words), checking the redirections
// and the operators between them; bad says what cannot be analysed.
func parseSimple(toks []shToken) (cmds [][]shToken, bad string) {
	var cur []shToken
	content := false // the current command has words or redirections
	needCmd := false // after && || |, a command must follow
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.ioNumber:
			// the redirection operator follows
		case t.op == "":
			cur = append(cur, t)
			content, needCmd = true, false
		case strings.HasPrefix(t.op, ">"):
			if i+1 >= len(toks) || toks[i+1].op != "" || toks[i+1].ioNumber {
				return nil, "a redirection without a target"
			}
			i++
			target := toks[i].word
			ok := target == "/dev/null"
			if t.op == ">&" {
				ok = target == "-" || target != "" && strings.Trim(target, "0123456789") == ""
			}
			if !ok {
				return nil, "an output redirection to a file (" + t.op + " " + toks[i].raw + ")"
			}
			content, needCmd = true, false
		case t.op == "\n" && !content:
			// an empty line, or a line break after && || |
		default: // ; & && || | or a newline ending a command
			if !content {
				return nil, "an empty command before " + printableOp(t.op)
			}
			cmds = append(cmds, cur)
			cur, content = nil, false
			needCmd = t.op == "&&" || t.op == "||" || t.op == "|"
		}
	}
	if needCmd {
		return nil, "a line that ends in an operator"
	}
	if content {
		cmds = append(cmds, cur)
	}
	return cmds, ""
}

func printableOp(op string) string {
	if op == "\n" {
		return "a line break"
	}
	return op
}

var (
	// assignment is compiled at first use: most commands have no assignment in front.
	assignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })
	// keywords are the shell's reserved words (and bash's), recognised unquoted.
	keywords = []string{"!", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until",
		"for", "in", "function", "select", "time", "[[", "]]", "coproc"}
	// stateful builtins change how the rest of the line runs, or run something we cannot see.
	stateful = []string{"cd", "pushd", "popd", "eval", "exec", "export", "set", "unset", "alias", "unalias",
		"trap", "readonly", "local", "declare", "typeset", "hash", "command", "builtin", "enable", "shopt",
		"source", ".", "ulimit", "umask", "let", "getopts", "fc", "jobs", "fg", "bg", "disown"}
	// inert builtins run nothing but the shell itself.
	inert = []string{":", "true", "false", "echo", "printf", "exit", "return", "test", "wait", "shift",
		"break", "continue", "read", "kill"}
	// shells are programs whose -c option runs a line of their own.
	shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox"}
)

// resolveSimple resolves one simple command's words in wd. It returns the zero Resolved for
// an inert builtin, bad when the command cannot be analysed, and whether a relative path
// decides what runs.
func resolveSimple(toks []shToken, wd *workdir) (r Resolved, bad string, relative bool) {
	first := toks[0]
	switch {
	case slices.Contains(keywords, first.raw):
		return Resolved{}, "the shell keyword " + first.raw, false
	case assignment().MatchString(first.raw):
		return Resolved{}, "the variable assignment " + first.raw, false
	case slices.Contains(stateful, first.word):
		return Resolved{}, "the builtin " + first.word + ", which changes how the rest runs", false
	case slices.Contains(inert, first.word):
		return Resolved{}, "", false
	}
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = t.word
	}
	for i, w := range words {
		if !slices.Contains(shells, filepath.Base(w)) {
			continue
		}
		for _, opt := range words[i+1:] {
			if len(opt) > 1 && opt[0] == '-' && opt[1] != '-' && strings.ContainsRune(opt, 'c') {
				return Resolved{}, "a nested shell (" + w + " " + opt + ")", false
			}
		}
	}
	if !strings.Contains(words[0], "/") && relativePath() {
		return Resolved{}, "the program " + words[0] + " looked up on a $PATH that holds a relative directory", false
	}
	r = Resolved{Argv: words}
	r.Program = programFile(words[0], wd)
	relative = strings.Contains(words[0], "/") && !filepath.IsAbs(words[0])
	relative = r.resolveRun(wd) || relative
	return r, "", relative
}

// relativePath reports whether $PATH holds an empty or relative entry, which the shell
// searches in its working directory.
func relativePath() bool {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			return true
		}
	}
	return false
}
