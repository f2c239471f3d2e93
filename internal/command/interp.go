package command

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Runs says what a command runs, as far as its words tell.
type Runs int

const (
	// RunsFile: one file runs, Resolved.ScriptFile: the program itself, or the file an
	// interpreter named by the program runs.
	RunsFile Runs = iota
	// RunsNoFile: an interpreter runs the command line's own text (bash -c '...',
	// python3 -c '...', node -e '...') or its standard input (bash, bash -s, python3 -):
	// no file of the command runs, and its line is all there is to approve.
	RunsNoFile
	// RunsUnknown: which file runs cannot be told (an option the table does not know, an
	// option that loads a file by another name such as python3 -m or node -r, env -S, a
	// program that is not a known interpreter given files as arguments): every file the
	// command names is what may run (Resolved.Files).
	RunsUnknown
)

// String names r for messages and tests.
func (r Runs) String() string {
	switch r {
	case RunsFile:
		return "file"
	case RunsNoFile:
		return "no file"
	case RunsUnknown:
		return "unknown"
	}
	return "?"
}

// Interpreter is how one interpreter reads its arguments, up to the file it runs: which
// options it takes, and what each means. Options are read as the interpreter reads them:
// one-letter options may be grouped (-xe), "--" ends them, and the first word that is not
// an option is the file it runs; a word after "--name" or a one-letter option that takes an
// argument is that argument. The table of these is Interpreters, the one place the rule is
// written down (docs/consent.md shows it, checked by a test).
type Interpreter struct {
	// Name is the interpreter as documented; Names says whether a program's base name is
	// this interpreter.
	Name  string
	Names func(base string) bool
	// Flags are the one-letter options that take no argument.
	Flags string
	// Args are the one-letter options that take an argument: the rest of the group when
	// there is one (-Werror), else the next word (-W error); with ArgsNext, always the
	// next word, one per option of the group (bash -eo pipefail).
	Args     string
	ArgsNext bool
	// Attached are the one-letter options whose argument, optional, is the rest of the
	// group only (perl -i.bak, ruby -W2).
	Attached string
	// Digits are the one-letter options whose argument, optional, is the digits that
	// follow in the group, which goes on after them (perl -0777, perl -lne).
	Digits string
	// Code are the options whose argument is the program's text (python3 -c, node -e):
	// no file runs. CodeEnds: the options end after it (the rest is the program's argv).
	Code     string
	CodeEnds bool
	// NoFile are the one-letter options that take no argument and mean that no file runs:
	// the text is the first operand (bash -c) or standard input (bash -s).
	NoFile string
	// Loads are the one-letter options that run a file the words do not name as a file
	// (python3 -m module, node -r, ruby -r, perl -M, ruby -S, ruby -C dir): which file
	// runs cannot be told.
	Loads string
	// LongFlags, LongArgs, LongCode and LongLoads are the same for "--name" options. A
	// long option with an argument takes it as --name=value or as the next word.
	LongFlags, LongArgs, LongCode, LongLoads []string
	// Dash is what a lone "-" means: "stdin" (the program is read from standard input:
	// no file runs) or "end" (the end of the options: the next word is the file).
	Dash string
}

// Interpreters is the table of the interpreters whose arguments Resolve reads. A program
// that is none of them (or env, see below) is the file that runs, unless an argument names
// an existing file: a program that is not a known interpreter may run it, so which file
// runs cannot be told.
//
// env is read too: its options (-i, -0, -v, -u NAME, --) are skipped and the program it
// runs is resolved like a command of its own; -S (a string split by env's own rules), -C
// (another directory), NAME=VALUE assignments (they may change where the program finds its
// files: PATH, PYTHONPATH, BASH_ENV, NODE_OPTIONS, ...) and any other option make which file
// runs unknown.
var Interpreters = []Interpreter{
	{
		Name: "sh, bash, dash", Names: oneOf("sh", "bash", "dash"),
		Flags: "abefhiklmnprtuvxBCEHPT", Args: "oO", ArgsNext: true, NoFile: "cs",
		LongFlags: []string{"login", "noprofile", "norc", "posix", "restricted", "verbose", "version", "help", "noediting", "debugger"},
		LongLoads: []string{"rcfile", "init-file"},
		Dash:      "end",
	},
	{
		Name: "python, python3, python3.N", Names: versioned("python"),
		Flags: "bBdEhiIOPqsSuvVx?R", Args: "WX", Code: "c", CodeEnds: true, Loads: "m",
		LongFlags: []string{"help", "version", "help-env", "help-xoptions", "help-all"},
		LongArgs:  []string{"check-hash-based-pycs"},
		Dash:      "stdin",
	},
	{
		Name: "node, nodejs", Names: oneOf("node", "nodejs"),
		Flags: "chiv", Args: "C", Code: "ep", Loads: "r",
		LongFlags: []string{"check", "interactive", "version", "help", "no-warnings", "no-deprecation",
			"trace-warnings", "trace-deprecation", "throw-deprecation", "pending-deprecation", "enable-source-maps",
			"preserve-symlinks", "preserve-symlinks-main", "abort-on-uncaught-exception", "trace-uncaught", "no-experimental-fetch"},
		LongArgs:  []string{"conditions", "title", "max-old-space-size", "stack-size", "unhandled-rejections", "input-type"},
		LongCode:  []string{"eval", "print"},
		LongLoads: []string{"require", "import", "loader", "experimental-loader", "env-file", "env-file-if-exists"},
		Dash:      "stdin",
	},
	{
		Name: "ruby, ruby3.N", Names: versioned("ruby"),
		Flags: "acdlnpsvwyh", Args: "IE", Attached: "iKWF", Digits: "0T", Code: "e", Loads: "rCSx",
		LongFlags: []string{"verbose", "version", "copyright", "help", "disable-gems", "jit", "yjit"},
		LongArgs:  []string{"disable", "enable", "encoding", "external-encoding", "internal-encoding"},
		Dash:      "stdin",
	},
	{
		Name: "perl, perl5.N", Names: versioned("perl"),
		Flags: "acnpstTuUvwWXh", Args: "I", Attached: "iCDFV", Digits: "0l", Code: "eE", Loads: "mMdxS",
		Dash: "stdin",
	},
}

// oneOf matches exactly the names given.
func oneOf(names ...string) func(string) bool {
	return func(base string) bool { return slices.Contains(names, base) }
}

// versioned matches name followed by any digits and dots: python, python3, python3.12.
func versioned(name string) func(string) bool {
	return func(base string) bool {
		rest, ok := strings.CutPrefix(base, name)
		return ok && strings.Trim(rest, "0123456789.") == ""
	}
}

// interpreterOf is the interpreter program name is, or nil. A program is recognised by its
// base name when it is a bare name (found on $PATH) or an absolute path; a relative path
// (./python3) is a file of the working directory, not an interpreter.
func interpreterOf(name string) *Interpreter {
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		return nil
	}
	base := filepath.Base(name)
	for i := range Interpreters {
		if Interpreters[i].Names(base) {
			return &Interpreters[i]
		}
	}
	return nil
}

// isEnv reports whether the program name is env, recognised as interpreters are.
func isEnv(name string) bool {
	return (!strings.Contains(name, "/") || filepath.IsAbs(name)) && filepath.Base(name) == "env"
}

// run is what a command's words run, in word indexes.
type run struct {
	kind Runs
	// index is the word of the file that runs (RunsFile), else of the program.
	index int
	// program: the word at index is executed as a program (found on $PATH when bare),
	// rather than read by an interpreter.
	program bool
	// args: the program is not a known interpreter, so it may run a file its arguments
	// name; the command is RunsUnknown when one does.
	args bool
	// programs are the words executed as programs that are not known interpreters (env's
	// program included), pinned when which file runs cannot be told.
	programs []int
	// extra are the words of env -S's string, which may name files; extraProgram is its
	// program when it is not a known interpreter.
	extra        []string
	extraProgram string
	// dir is env -C's directory, where relative paths are looked for too.
	dir string
}

// runOf reads words (at least one) from at, the program.
func runOf(words []string, at int) run {
	name := words[at]
	if isEnv(name) {
		return envRun(words, at)
	}
	in := interpreterOf(name)
	if in == nil {
		return run{kind: RunsFile, index: at, program: true, args: len(words) > at+1, programs: []int{at}}
	}
	kind, i := in.read(words, at+1)
	r := run{kind: kind, index: at, program: true}
	if kind == RunsFile {
		r.index, r.program = i, false
	}
	return r
}

// read reads the interpreter's arguments words[i:] and returns what runs, and for RunsFile
// the index of the file.
func (in *Interpreter) read(words []string, i int) (Runs, int) {
	noFile := false
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			return in.operand(words, i+1, noFile)
		case w == "-":
			if in.Dash == "stdin" {
				return RunsNoFile, 0
			}
			return in.operand(words, i+1, noFile)
		case strings.HasPrefix(w, "--"):
			name, _, hasValue := strings.Cut(w[2:], "=")
			switch {
			case slices.Contains(in.LongFlags, name) && !hasValue:
			case slices.Contains(in.LongArgs, name):
				if !hasValue {
					i++
				}
			case slices.Contains(in.LongCode, name):
				if !hasValue {
					i++
				}
				noFile = true
			default: // LongLoads, or an option the table does not know
				return RunsUnknown, 0
			}
		case len(w) > 1 && (w[0] == '-' || w[0] == '+' && in.ArgsNext):
			last, kind, stop := in.group(words, i)
			switch {
			case kind == RunsUnknown:
				return RunsUnknown, 0
			case kind == RunsNoFile && stop:
				return RunsNoFile, 0
			case kind == RunsNoFile:
				noFile = true
			}
			i = last
		default:
			return in.operand(words, i, noFile)
		}
	}
	return in.operand(words, i, noFile)
}

// operand is what runs when the options end before words[i] (beyond the end: none).
func (in *Interpreter) operand(words []string, i int, noFile bool) (Runs, int) {
	if noFile || i >= len(words) {
		return RunsNoFile, 0 // the text of an option, or standard input
	}
	return RunsFile, i
}

// group reads the group of one-letter options words[i] and returns the index of the last
// word it used, RunsNoFile when an option means no file runs (stop: the options end
// there), and RunsUnknown for an option the table does not know or one that loads a file.
func (in *Interpreter) group(words []string, i int) (last int, kind Runs, stop bool) {
	w := words[i]
	last, kind = i, RunsFile
	for j := 1; j < len(w); j++ {
		c, rest := w[j:j+1], w[j+1:]
		switch {
		case strings.Contains(in.Loads, c):
			return last, RunsUnknown, false
		case strings.Contains(in.Flags, c):
		case strings.Contains(in.NoFile, c):
			kind = RunsNoFile
		case strings.Contains(in.Args, c) && in.ArgsNext:
			last++
		case strings.Contains(in.Args, c):
			if rest == "" {
				last++
			}
			return last, kind, false
		case strings.Contains(in.Attached, c):
			return last, kind, false
		case strings.Contains(in.Digits, c):
			for j+1 < len(w) && w[j+1] >= '0' && w[j+1] <= '9' {
				j++
			}
		case strings.Contains(in.Code, c):
			if rest == "" {
				last++
			}
			return last, RunsNoFile, in.CodeEnds
		default:
			return last, RunsUnknown, false
		}
	}
	return last, kind, false
}

// envFlags are env's options that take no argument and change nothing of what runs.
var envFlags = []string{"-", "-i", "-0", "-v", "--ignore-environment", "--null", "--debug"}

// envRun reads env's words from at (env itself).
func envRun(words []string, at int) run {
	unknown := run{kind: RunsUnknown, index: at, program: true}
	moved := false
	i := at + 1
options:
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			i++
			break options
		case slices.Contains(envFlags, w):
		case w == "-u" || w == "--unset":
			i++
		case strings.HasPrefix(w, "-u") || strings.HasPrefix(w, "--unset="):
		case strings.HasPrefix(w, "-S") || strings.HasPrefix(w, "--split-string"):
			s, ok := strings.CutPrefix(w, "-S")
			if !ok {
				s = strings.TrimPrefix(strings.TrimPrefix(w, "--split-string"), "=")
			}
			if s == "" && i+1 < len(words) {
				i++
				s = words[i]
			}
			if inner, _, err := split(s); err == nil && len(inner) > 0 {
				unknown.extra = inner
				if interpreterOf(inner[0]) == nil && !isEnv(inner[0]) {
					unknown.extraProgram = inner[0]
				}
			}
			return unknown // the program is in the string
		case w == "-C" || w == "--chdir":
			i++
			moved = true
			if i < len(words) {
				unknown.dir = words[i]
			}
		case strings.HasPrefix(w, "-C") || strings.HasPrefix(w, "--chdir="):
			moved = true // relative paths are another directory's
			unknown.dir = strings.TrimPrefix(strings.TrimPrefix(w, "--chdir="), "-C")
		case strings.HasPrefix(w, "-"): // signal options, an option the table does not know
			return unknown
		default:
			break options
		}
	}
	assigned := false
	for ; i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "="); i++ {
		assigned = true
	}
	switch {
	case assigned || moved:
		return withProgram(unknown, words, i)
	case i >= len(words):
		return run{kind: RunsNoFile, index: at, program: true} // env alone prints the environment
	}
	return runOf(words, i)
}

// withProgram is r with words[i], env's program, pinned when it is not a known
// interpreter.
func withProgram(r run, words []string, i int) run {
	if i < len(words) && interpreterOf(words[i]) == nil && !isEnv(words[i]) {
		r.programs = append(r.programs, i)
	}
	return r
}

// namedFiles returns the files a command of words may run when which one cannot be told:
// the programs of r (looked up as the runner looks them up) and every other word, value
// after a word's first "=", or word of an env -S string, that names an existing regular
// file in wd, in order, without repeats; relative reports whether a relative path named
// one of them.
func namedFiles(words []string, r run, wd *workdir) (files []string, relative bool) {
	seen := map[string]bool{}
	add := func(f string, rel bool) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
			relative = relative || rel
		}
	}
	isRel := func(w string) bool { return !filepath.IsAbs(w) && strings.Contains(w, "/") }
	for _, i := range r.programs {
		add(programFile(words[i], wd), isRel(words[i]))
	}
	if r.extraProgram != "" {
		add(programFile(r.extraProgram, wd), isRel(r.extraProgram))
	}
	moved := &workdir{dir: r.dir}
	check := func(w string) {
		for _, w := range []string{w, afterEquals(w)} {
			if w == "" {
				continue
			}
			for _, p := range []string{wd.abs(w), moved.abs(w)} {
				if r.dir == "" && p != wd.abs(w) {
					continue
				}
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					add(p, !filepath.IsAbs(w))
				}
			}
		}
	}
	for i, w := range words {
		if i > 0 && !slices.Contains(r.programs, i) {
			check(w)
		}
	}
	for _, w := range r.extra {
		check(w)
	}
	return files, relative
}

// afterEquals is what follows the first "=" of w ("" when none).
func afterEquals(w string) string {
	_, v, _ := strings.Cut(w, "=")
	return v
}
