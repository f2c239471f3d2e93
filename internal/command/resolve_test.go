package command

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixture is a home, a working directory and a $PATH directory holding an executable.
type fixture struct{ home, work, bin string }

func newFixture(t *testing.T) fixture {
	t.Helper()
	root := t.TempDir()
	f := fixture{home: filepath.Join(root, "home"), work: filepath.Join(root, "work"), bin: filepath.Join(root, "bin")}
	for _, d := range []string{f.home, f.work, f.bin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.bin, "my-binary"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.bin, "not-executable"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", f.home)
	t.Setenv("PATH", f.bin+string(os.PathListSeparator)+"relative-dir")
	return f
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	h, w := f.home, f.work
	// prog is a command that runs its program, file f.
	prog := func(argv []string, program string) Resolved {
		return Resolved{Argv: argv, Program: program, Script: argv[0], ScriptIsProgram: true, ScriptFile: program, Files: []string{program}}
	}
	// interp is a command whose interpreter runs the file of argv[i].
	interp := func(argv []string, program string, i int, file string) Resolved {
		return Resolved{Argv: argv, Program: program, Script: argv[i], ScriptIndex: i, ScriptFile: file, Files: []string{file}}
	}
	tests := []struct {
		line string
		want Resolved
	}{
		{"~/x.sh", prog([]string{h + "/x.sh"}, h+"/x.sh")},
		// Quoting does not stop the expansion: the user wrote ~ meaning home.
		{"'~/x.sh'", prog([]string{h + "/x.sh"}, h+"/x.sh")},
		{`"~/x.sh" --flag`, prog([]string{h + "/x.sh", "--flag"}, h+"/x.sh")},
		{"python3 -u ~/h.py", interp([]string{"python3", "-u", h + "/h.py"}, "", 2, h+"/h.py")},
		{"/usr/bin/env bash ~/h.sh", interp([]string{"/usr/bin/env", "bash", h + "/h.sh"}, "/usr/bin/env", 2, h+"/h.sh")},
		{"./rel.sh", prog([]string{"./rel.sh"}, w+"/./rel.sh")},
		{"my-binary --verbose", prog([]string{"my-binary", "--verbose"}, f.bin+"/my-binary")},
		// A program that is no known interpreter, given files that do not exist: itself.
		{"lua5.4 hook.lua", prog([]string{"lua5.4", "hook.lua"}, "")},
		{"not-executable", prog([]string{"not-executable"}, "")},
		{"~ ~user a~/b ~/", prog([]string{h, "~user", "a~/b", h + "/"}, h)},
		{"cat ~user a~/b", prog([]string{"cat", "~user", "a~/b"}, "")},
		{"./~/x.sh", prog([]string{"./~/x.sh"}, w+"/./~/x.sh")},
		{"bash -c 'exit 2'", Resolved{Argv: []string{"bash", "-c", "exit 2"}, Runs: RunsNoFile, Script: "bash", ScriptIsProgram: true}},
		{"run #tag", Resolved{Argv: []string{"run", "#tag"}, Script: "run", ScriptIsProgram: true, Files: []string{""}, HashWords: []string{"#tag"}}},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.line, w)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Resolve(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	for line, want := range map[string]error{"": ErrEmpty, " \t": ErrEmpty, "x 'y": ErrUnterminatedQuote, `x \`: ErrTrailingBackslash} {
		if r, err := Resolve(line, ""); !errors.Is(err, want) || r.Argv != nil {
			t.Errorf("Resolve(%q) = %v, %v; want error %v", line, r, err, want)
		}
	}
}

// TestResolveDirectory: relative paths are taken against the given directory, made
// absolute, or against the process's working directory when none is given.
func TestResolveDirectory(t *testing.T) {
	f := newFixture(t)
	t.Chdir(f.work)
	for dir, want := range map[string]string{"": f.work + "/bin/x", f.home: f.home + "/bin/x", "sub": f.work + "/sub/bin/x"} {
		r, err := Resolve("bin/x", dir)
		if err != nil || r.Program != want || r.ScriptFile != want {
			t.Errorf("Resolve in %q: program %q script %q err %v, want %q", dir, r.Program, r.ScriptFile, err, want)
		}
	}
}

func TestResolveWithoutHome(t *testing.T) {
	newFixture(t)
	t.Setenv("HOME", "")
	r, err := Resolve("~/x.sh", "/w")
	if err != nil || r.Argv[0] != "~/x.sh" || r.Program != "/w/~/x.sh" || r.ScriptFile != r.Program {
		t.Errorf("got %+v, %v; want ~ kept and resolved in /w by runner and consent alike", r, err)
	}
}

// Commands written for Claude Code name their scripts under $CLAUDE_PROJECT_DIR: it is the
// working directory, unless the environment sets it.
func TestResolveClaudeProjectDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	r, err := Resolve(`python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py ${CLAUDE_PROJECT_DIR}`, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"python3", dir + "/.claude/hooks/x.py", dir}; !slices.Equal(r.Argv, want) || r.ScriptFile != want[1] {
		t.Errorf("argv %q script %q", r.Argv, r.ScriptFile)
	}
	t.Setenv("CLAUDE_PROJECT_DIR", "/srv/app")
	if r, _ := Resolve(`$CLAUDE_PROJECT_DIR/h.sh`, dir); r.Argv[0] != "/srv/app/h.sh" {
		t.Errorf("argv %q", r.Argv)
	}
}
