package command

import (
	"os"
	"path/filepath"
	"strings"
)

// Resolved is a command line resolved against a working directory.
type Resolved struct {
	// Argv is what runs: the words, with "~" and a leading "~/" expanded. Argv[0] is the
	// program as written (expanded), the name the program sees as its argv[0].
	Argv []string
	// Program is the file executed: Argv[0] taken relative to the working directory when it
	// contains a "/", else the executable file found on $PATH; "" when none is found.
	Program string
	// Runs says what the command runs: one file (the program, or the file an interpreter
	// runs), no file (bash -c '...'), or files that cannot be told apart (see Runs).
	Runs Runs
	// Script is the script word (expanded, as written otherwise): for RunsFile, the word
	// of the file that runs, read as the interpreter reads its arguments (Interpreters):
	// bash /p/payload /p/decoy.sh -> /p/payload; otherwise the program's word (Argv[0],
	// or the program env runs).
	Script string
	// ScriptIndex is the index of Script in Argv.
	ScriptIndex int
	// ScriptIsProgram reports that Script is executed as a program (it needs an execute
	// bit), not read by an interpreter.
	ScriptIsProgram bool
	// ScriptFile is Script's file: Program when ScriptIndex is 0; a program env runs
	// looked up as Program is; else Script taken relative to the working directory.
	ScriptFile string
	// Files are the files consent pins: for RunsFile, ScriptFile alone ("" for a program
	// not found on $PATH); for RunsNoFile, none (the command line is all there is); for
	// RunsUnknown, every file the command names: the programs it executes that are not
	// known interpreters, and every word (or value after a word's "=", or word of an env
	// -S string) that names an existing regular file.
	Files []string
	// HashWords are the words that began with an unquoted '#' (there are no comments).
	HashWords []string
}

// Resolve resolves the command line line as it runs in the working directory dir ("" means
// the process's): the words that run, the program file and the script file. Words have "~"
// expanded and $CLAUDE_PROJECT_DIR (see ProjectDir), nothing else. It is the one
// resolution of a shell-hook command: the runner executes Program with Argv, and consent
// checks ScriptFile. The error wraps ErrEmpty, ErrUnterminatedQuote or ErrTrailingBackslash.
func Resolve(line, dir string) (Resolved, error) {
	return ResolveFor(line, dir, "")
}

// ResolveFor is Resolve for a hook written for the agent of dialect (AgentVars): each variable
// of that agent holding the project directory is expanded like $CLAUDE_PROJECT_DIR.
func ResolveFor(line, dir, dialect string) (Resolved, error) {
	words, hashes, err := split(line)
	if err != nil {
		return Resolved{}, err
	}
	if len(words) == 0 {
		return Resolved{}, ErrEmpty
	}
	home, _ := os.UserHomeDir()
	for i, w := range words {
		words[i] = expandProjectDir(expandHome(w, home), dir, projectVars(dialect))
	}
	r := Resolved{Argv: words, HashWords: hashes}
	wd := workdir{dir: dir}
	r.Program = programFile(words[0], &wd)
	r.resolveRun(&wd)
	return r, nil
}

// resolveRun sets what r.Argv runs (Runs, Script, ScriptIndex, ScriptIsProgram,
// ScriptFile, Files), r.Program being set, and reports whether a relative path decides it.
func (r *Resolved) resolveRun(wd *workdir) (relative bool) {
	words := r.Argv
	run := runOf(words, 0)
	r.Runs, r.ScriptIndex, r.ScriptIsProgram = run.kind, run.index, run.program
	r.Script = words[run.index]
	switch {
	case run.index == 0:
		r.ScriptFile = r.Program
	case run.program:
		r.ScriptFile = programFile(r.Script, wd)
	default:
		r.ScriptFile = wd.abs(r.Script)
	}
	isRel := func(w string) bool { return !filepath.IsAbs(w) && (strings.Contains(w, "/") || !run.program) }
	if run.kind == RunsFile && run.args { // a program that is no known interpreter: may it run a file it is given?
		if files, rel := namedFiles(words, run, wd); len(files) > 1 {
			r.Runs, r.Files = RunsUnknown, files
			return rel
		}
	}
	switch r.Runs {
	case RunsFile:
		r.Files = []string{r.ScriptFile}
		return isRel(r.Script)
	case RunsUnknown:
		r.Files, relative = namedFiles(words, run, wd)
		return relative
	}
	return false
}

// ProjectDir is the value of $CLAUDE_PROJECT_DIR for a hook run in dir: the environment's,
// else dir, else the process's working directory.
func ProjectDir(dir string) string {
	if p, ok := os.LookupEnv("CLAUDE_PROJECT_DIR"); ok {
		return p
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return dir
}

// expandProjectDir replaces $NAME and ${NAME} in w, for each NAME of names, by ProjectDir(dir):
// commands written for other agents name their scripts that way.
func expandProjectDir(w, dir string, names []string) string {
	if !strings.Contains(w, "$") {
		return w
	}
	vars := make(map[string]string, len(names))
	for _, n := range names {
		vars[n] = ProjectDir(dir)
	}
	return ExpandVars(w, vars)
}

// ExpandVars replaces $NAME and ${NAME} in s by the value of each NAME of vars (NAME not
// followed by another letter, digit or _, as a shell reads it); the rest of s is kept as is.
func ExpandVars(s string, vars map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			if name, n := varAt(s[i+1:]); n > 0 {
				if v, ok := vars[name]; ok {
					b.WriteString(v)
					i += n
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// varAt reads the variable name at the start of s (after a "$"): NAME or {NAME}, and the bytes
// it takes; 0 when there is none.
func varAt(s string) (string, int) {
	if strings.HasPrefix(s, "{") {
		if k := strings.IndexByte(s, '}'); k > 1 {
			return s[1:k], k + 1
		}
		return "", 0
	}
	k := 0
	for k < len(s) && (isNameByte(s[k]) && (k > 0 || isNameStart(s[k]))) {
		k++
	}
	return s[:k], k
}

// expandHome replaces the "~" of a word that is "~" or starts with "~/" by home. Other
// words, and every word when home is unknown, are returned unchanged.
func expandHome(w, home string) string {
	switch {
	case home == "":
		return w
	case w == "~":
		return home
	case strings.HasPrefix(w, "~/"):
		return strings.TrimSuffix(home, "/") + w[1:]
	}
	return w
}

// programFile returns the file that runs for the program word name: a path with a "/"
// relative to the working directory, else the executable found on $PATH ("" when none).
func programFile(name string, wd *workdir) string {
	if strings.Contains(name, "/") {
		return wd.abs(name)
	}
	return lookPath(name)
}

// lookPath finds an executable regular file named name in $PATH's absolute directories,
// the way exec.LookPath does (relative entries are never used).
func lookPath(name string) string {
	if name == "" || name == "." || name == ".." {
		return ""
	}
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

// workdir is the working directory of one resolution, looked up once and only when a
// relative path needs it.
type workdir struct {
	dir    string
	looked bool
}

// abs returns p relative to the working directory, joined without cleaning: "a/../b"
// stays as the kernel walks it, through a symbolic link a. When the working directory
// cannot be found, p is returned as is (relative to that same directory for the runner).
func (wd *workdir) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if !wd.looked {
		wd.looked = true
		if wd.dir == "" {
			wd.dir, _ = os.Getwd()
		} else if !filepath.IsAbs(wd.dir) {
			wd.dir, _ = filepath.Abs(wd.dir)
		}
	}
	if wd.dir == "" {
		return p
	}
	return strings.TrimSuffix(wd.dir, string(filepath.Separator)) + string(filepath.Separator) + p
}

// Missing says why r cannot run as resolved: its program is not found on $PATH, or a file it
// runs (the program, or the script an interpreter reads) does not exist, is not a regular
// file, or is a program without an execute bit. "" when it can run, as far as files tell.
func (r Resolved) Missing() string {
	if len(r.Argv) == 0 {
		return ""
	}
	if r.Program == "" {
		return "the program " + r.Argv[0] + " is not found on $PATH"
	}
	if why := fileMissing(r.Program, true); why != "" {
		return why
	}
	if r.Runs == RunsFile && r.ScriptIndex > 0 && r.ScriptFile != "" {
		return fileMissing(r.ScriptFile, r.ScriptIsProgram)
	}
	return ""
}

// fileMissing says why file cannot run (program: as a program, which needs an execute bit;
// else read by an interpreter); "" when it can.
func fileMissing(file string, program bool) string {
	fi, err := os.Stat(file)
	switch {
	case err != nil:
		return file + " does not exist"
	case !fi.Mode().IsRegular():
		return file + " is not a regular file"
	case program && fi.Mode().Perm()&0o111 == 0:
		return file + " is not executable (chmod +x " + file + ")"
	}
	return ""
}
