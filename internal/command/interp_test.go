package command

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestResolveInterpreters: the file that runs is the one the interpreter runs, read as it
// reads its arguments; never a decoy argument after it.
func TestResolveInterpreters(t *testing.T) {
	f := newFixture(t)
	w := f.work
	for _, name := range []string{"payload", "decoy.sh", "decoy.py", "x.data", "y.py", "h.js", "h.rb", "h.pl", "lib.rb", "conf"} {
		if err := os.WriteFile(filepath.Join(w, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(name string) string { return w + "/" + name }
	tests := []struct {
		line  string
		runs  Runs
		files []string // the files pinned; for RunsFile, the file that runs
	}{
		// sh, bash, dash
		{"bash payload decoy.sh", RunsFile, []string{p("payload")}},
		{"/bin/sh -e -x payload decoy.sh", RunsFile, []string{p("payload")}},
		{"bash -ex payload decoy.sh", RunsFile, []string{p("payload")}},
		{"bash -o pipefail payload decoy.sh", RunsFile, []string{p("payload")}},
		{"bash -eo pipefail payload decoy.sh", RunsFile, []string{p("payload")}},
		{"bash +o posix payload decoy.sh", RunsFile, []string{p("payload")}},
		{"bash --norc --noprofile payload decoy.sh", RunsFile, []string{p("payload")}},
		{"bash -- payload decoy.sh", RunsFile, []string{p("payload")}},
		{"sh - payload decoy.sh", RunsFile, []string{p("payload")}},
		{"bash -c 'source decoy.sh' payload", RunsNoFile, nil},
		{"bash -xc 'echo hi'", RunsNoFile, nil},
		{"dash -s decoy.sh", RunsNoFile, nil},
		{"bash", RunsNoFile, nil},
		{"bash --rcfile payload decoy.sh", RunsUnknown, []string{p("payload"), p("decoy.sh")}},
		{"bash -D payload decoy.sh", RunsUnknown, []string{p("payload"), p("decoy.sh")}},
		// python
		{"python3 x.data y.py", RunsFile, []string{p("x.data")}},
		{"python -u -W error x.data y.py", RunsFile, []string{p("x.data")}},
		{"python3.12 -Werror -OO -X dev x.data y.py", RunsFile, []string{p("x.data")}},
		{"python3 -- x.data y.py", RunsFile, []string{p("x.data")}},
		{"python3 -c 'import y' y.py", RunsNoFile, nil},
		{"python3 -uc 'import y' y.py", RunsNoFile, nil},
		{"python3 - y.py", RunsNoFile, nil},
		{"python3 -m pkg y.py", RunsUnknown, []string{p("y.py")}},
		{"python3 -Z x.data y.py", RunsUnknown, []string{p("x.data"), p("y.py")}},
		// node
		{"node --no-warnings payload h.js", RunsFile, []string{p("payload")}},
		{"nodejs --title=t -C dev payload h.js", RunsFile, []string{p("payload")}},
		{"node -e 'require(1)' h.js", RunsNoFile, nil},
		{"node --print 1 h.js", RunsNoFile, nil},
		{"node -r ./payload h.js", RunsUnknown, []string{p("./payload"), p("h.js")}},
		{"node --import=./payload h.js", RunsUnknown, []string{p("./payload"), p("h.js")}},
		{"node --some-new-option payload h.js", RunsUnknown, []string{p("payload"), p("h.js")}},
		// ruby
		{"ruby -w -I lib payload h.rb", RunsFile, []string{p("payload")}},
		{"ruby -W2 -Ilib payload h.rb", RunsFile, []string{p("payload")}},
		{"ruby -e 'load \"h.rb\"' h.rb", RunsNoFile, nil},
		{"ruby -r ./lib.rb h.rb", RunsUnknown, []string{p("./lib.rb"), p("h.rb")}},
		{"ruby -S h.rb", RunsUnknown, []string{p("h.rb")}},
		// perl
		{"perl -w -I lib payload h.pl", RunsFile, []string{p("payload")}},
		{"perl -0777 -i.bak payload h.pl", RunsFile, []string{p("payload")}},
		{"perl -lne 'print' h.pl", RunsNoFile, nil},
		{"perl -E 'say 1' h.pl", RunsNoFile, nil},
		{"perl -MFoo payload h.pl", RunsUnknown, []string{p("payload"), p("h.pl")}},
		// env
		{"env bash payload decoy.sh", RunsFile, []string{p("payload")}},
		{"/usr/bin/env -i -u HOME python3 x.data y.py", RunsFile, []string{p("x.data")}},
		{"env -- my-binary conf", RunsUnknown, []string{f.bin + "/my-binary", p("conf")}},
		{"env my-binary --verbose", RunsFile, []string{f.bin + "/my-binary"}},
		{"env", RunsNoFile, nil},
		{"env BASH_ENV=payload bash decoy.sh", RunsUnknown, []string{p("payload"), p("decoy.sh")}},
		{"env -S 'python3 payload' decoy.py", RunsUnknown, []string{p("decoy.py"), p("payload")}},
		{"env -C /tmp bash payload", RunsUnknown, []string{p("payload")}},
		{"env --chdir=" + w + "/.. bash work/payload", RunsUnknown, []string{w + "/../work/payload"}},
		// a program that is no known interpreter
		{"my-binary --verbose", RunsFile, []string{f.bin + "/my-binary"}},
		{"my-binary payload --x=conf", RunsUnknown, []string{f.bin + "/my-binary", p("payload"), p("conf")}},
		{"./payload decoy.sh", RunsUnknown, []string{p("./payload"), p("decoy.sh")}},
		{"lua5.4 h.rb", RunsUnknown, []string{"", p("h.rb")}},
		// a relative path is a file, not an interpreter
		{"./bash decoy.sh", RunsUnknown, []string{p("./bash"), p("decoy.sh")}},
	}
	for _, tt := range tests {
		r, err := Resolve(tt.line, w)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.line, err)
			continue
		}
		if r.Runs != tt.runs || !slices.Equal(r.Files, tt.files) {
			t.Errorf("Resolve(%q) runs %v files %q; want %v %q", tt.line, r.Runs, r.Files, tt.runs, tt.files)
		}
		if r.Runs == RunsFile && len(tt.files) == 1 && r.ScriptFile != tt.files[0] {
			t.Errorf("Resolve(%q) script file %q, want %q", tt.line, r.ScriptFile, tt.files[0])
		}
		for _, file := range r.Files {
			if strings.Contains(file, "decoy") && r.Runs == RunsFile {
				t.Errorf("Resolve(%q) pins the decoy %q alone", tt.line, file)
			}
		}
	}
}

// TestInterpretersDocumented: the table of docs/consent.md is Interpreters: one row per
// interpreter, each option in its column, and no option the code does not have.
func TestInterpretersDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/consent.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) == 6 && strings.HasPrefix(cells[0], "| ") {
			rows[strings.TrimPrefix(cells[0], "| ")] = cells[1:]
		}
	}
	token := regexp.MustCompile("`([-+][^` ]*)`")
	for _, in := range Interpreters {
		cols, ok := rows[in.Name]
		if !ok {
			t.Errorf("docs/consent.md has no row for %s", in.Name)
			continue
		}
		long := func(names []string) []string {
			out := make([]string, len(names))
			for i, n := range names {
				out[i] = "--" + n
			}
			return out
		}
		letters := func(s string) []string {
			var out []string
			for _, c := range s {
				out = append(out, "-"+string(c))
			}
			return out
		}
		want := [][]string{
			append(append(append(long(in.LongFlags), letters(in.Attached)...), letters(in.Digits)...), "-"+in.Flags),
			append(letters(in.Args), long(in.LongArgs)...),
			append(append(letters(in.Code), letters(in.NoFile)...), long(in.LongCode)...),
			append(letters(in.Loads), long(in.LongLoads)...),
		}
		var all []string
		for col, opts := range want {
			for _, o := range opts {
				if !strings.Contains(cols[col], "`"+o+"`") {
					t.Errorf("docs/consent.md, %s: column %d does not name %s", in.Name, col+2, o)
				}
			}
			all = append(all, opts...)
		}
		for col := range want {
			for _, m := range token.FindAllStringSubmatch(cols[col], -1) {
				if o := m[1]; !slices.Contains(all, o) && !strings.HasPrefix(o, "+") && o != "-eo" && o != "-Werror" {
					t.Errorf("docs/consent.md, %s: %s is not in the code's table", in.Name, o)
				}
			}
		}
		if dash := map[string]string{"end": "end of options", "stdin": "standard input"}[in.Dash]; !strings.HasPrefix(cols[4], dash) {
			t.Errorf("docs/consent.md, %s: - is %q, want %q", in.Name, cols[4], dash)
		}
	}
	if n := len(rows) - 1; n != len(Interpreters) { // the table's header row counts too
		t.Errorf("docs/consent.md's table has %d interpreters, the code %d", n, len(Interpreters))
	}
}

// TestInterpreterNames holds each interpreter's Names to the regular expression it
// documents ("python, python3, python3.N"): the string code matches what the expression did.
func TestInterpreterNames(t *testing.T) {
	patterns := map[string]string{
		"sh, bash, dash":             `^(sh|bash|dash)$`,
		"python, python3, python3.N": `^python[0-9.]*$`,
		"node, nodejs":               `^(node|nodejs)$`,
		"ruby, ruby3.N":              `^ruby[0-9.]*$`,
		"perl, perl5.N":              `^perl[0-9.]*$`,
	}
	names := []string{"", "sh", "bash", "dash", "zsh", "shh", "bashx", "xsh", "python", "python3", "python3.12",
		"python3.12.1", "python.", "python3a", "pythonw", "ipython", "py", "node", "nodejs", "nodejsx", "nod",
		"ruby", "ruby3.3", "ruby-3", "rubyx", "perl", "perl5.36", "perl5x", "perl6", "Python3", "sh ", " sh",
		"python\n", "node\n", "python3\u0660"}
	if len(patterns) != len(Interpreters) {
		t.Fatalf("%d patterns for %d interpreters", len(patterns), len(Interpreters))
	}
	for _, in := range Interpreters {
		re := regexp.MustCompile(patterns[in.Name])
		for _, n := range names {
			if got, want := in.Names(n), re.MatchString(n); got != want {
				t.Errorf("%s: Names(%q) = %v, want %v", in.Name, n, got, want)
			}
		}
	}
}
