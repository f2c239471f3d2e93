package consent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lines run by /bin/sh -c (dialect: claude): what is approved is what the shell runs.

// shellFixture is a home, a $PATH directory and two projects, with CLAUDE_PROJECT_DIR unset
// (so it is the directory the hook runs in).
type shellFixture struct {
	s               *Store
	home, bin, a, b string
}

func newShellFixture(t *testing.T) shellFixture {
	t.Helper()
	s, _, home := testStore(t)
	root := t.TempDir()
	f := shellFixture{s: s, home: home, bin: filepath.Join(root, "bin"), a: filepath.Join(root, "a"), b: filepath.Join(root, "b")}
	for _, d := range []string{f.bin, f.a, f.b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", f.bin+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	return f
}

func approveTarget(t *testing.T, s *Store, tg Target) Approval {
	t.Helper()
	a, err := s.ApproveTarget(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A quoted ~ is not expanded by /bin/sh: the script that runs is ./~/... in the working
// directory, so that is the file approved, and changing it needs a new approval.
func TestShellQuotedTildeIsTheRelativeScript(t *testing.T) {
	f := newShellFixture(t)
	reviewed := filepath.Join(f.home, ".claude/hooks/guard.sh")
	runs := filepath.Join(f.a, "~/.claude/hooks/guard.sh")
	writeFile(t, reviewed, "#!/bin/sh\necho reviewed\n", 0o755)
	writeFile(t, runs, "#!/bin/sh\necho ok\n", 0o755)
	tg := Target{Event: "pre_tool_call", Command: "'~/.claude/hooks/guard.sh'", Shell: true, Dir: f.a}

	a := approveTarget(t, f.s, tg)
	if len(a.Scripts) != 1 || a.Scripts[0].Path != runs || a.Project != f.a {
		t.Fatalf("approval pins %+v in project %q; want %s in %s", a.Scripts, a.Project, runs, f.a)
	}
	if st := f.s.CheckTarget(tg, ModePinned); !st.Approved || st.Resolved != runs {
		t.Fatalf("after approval: %+v", st)
	}
	writeFile(t, runs, "#!/bin/sh\necho never reviewed\n", 0o755)
	st := f.s.CheckTarget(tg, ModePinned)
	if st.Approved || !st.ContentDrift || !strings.Contains(st.Reason, "content changed") {
		t.Errorf("pinned mode runs an unreviewed ./~ script: %+v", st)
	}
	// Without a shell (this project's dialect) the same command is the home's script.
	if st := f.s.Check("pre_tool_call", "'~/.claude/hooks/guard.sh'", ModePinned); st.Resolved != reviewed {
		t.Errorf("own dialect resolves %q, want %q", st.Resolved, reviewed)
	}
}

// An approval given in project A does not run project B's script, in either mode.
func TestShellApprovalIsPerProject(t *testing.T) {
	f := newShellFixture(t)
	const command = `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`
	writeFile(t, filepath.Join(f.a, ".claude/hooks/guard.sh"), "#!/bin/sh\necho reviewed\n", 0o755)
	writeFile(t, filepath.Join(f.b, ".claude/hooks/guard.sh"), "#!/bin/sh\necho evil\n", 0o755)
	inA := Target{Event: "pre_tool_call", Command: command, Shell: true, Dir: f.a}
	inB := inA
	inB.Dir = f.b
	approveTarget(t, f.s, inA)

	for _, mode := range []Mode{ModeCommand, ModePinned} {
		if st := f.s.CheckTarget(inA, mode); !st.Approved {
			t.Errorf("%s: not approved in the project it was approved in: %s", mode, st.Reason)
		}
		st := f.s.CheckTarget(inB, mode)
		if st.Approved || st.Project != f.b || !strings.Contains(st.Reason, "not approved in project "+f.b) ||
			!strings.Contains(st.Reason, "cd "+f.b+" && hermesctl hooks allow") {
			t.Errorf("%s: project B: %+v", mode, st)
		}
	}
	logger, lb := newLogger()
	d := Decider{Store: f.s, Getenv: func(string) string { return "" }, Logger: logger}
	if ok, _ := d.DecideTarget(context.Background(), inB); ok {
		t.Error("Decide approved project B's script")
	}
	if !strings.Contains(lb.String(), "only in another project") {
		t.Errorf("refusal does not say why:\n%s", lb.String())
	}

	// Approving in B keeps A's approval.
	approveTarget(t, f.s, inB)
	if !f.s.CheckTarget(inA, ModePinned).Approved || !f.s.CheckTarget(inB, ModePinned).Approved {
		t.Error("approvals of two projects do not coexist")
	}
	if list, _ := f.s.Approvals(); len(list) != 2 {
		t.Errorf("allowlist holds %d entries, want one per project", len(list))
	}
}

// Every script of a compound line is pinned, not only the last one.
func TestShellCompoundLinePinsEveryScript(t *testing.T) {
	f := newShellFixture(t)
	onPath := filepath.Join(f.bin, "a.sh")
	for _, tt := range []struct{ line, first string }{
		{"a.sh; python3 b.py", onPath},
		{"./a.sh && python3 b.py | cat", f.a + "/./a.sh"},
	} {
		t.Run(tt.line, func(t *testing.T) {
			writeFile(t, onPath, "#!/bin/sh\necho a\n", 0o755)
			writeFile(t, filepath.Join(f.a, "a.sh"), "#!/bin/sh\necho a\n", 0o755)
			writeFile(t, filepath.Join(f.a, "b.py"), "print('b')\n", 0o644)
			tg := Target{Event: "pre_tool_call", Command: tt.line, Shell: true, Dir: f.a}
			a := approveTarget(t, f.s, tg)
			if len(a.Scripts) < 2 || a.Scripts[0].Path != tt.first || a.Scripts[1].Path != filepath.Join(f.a, "b.py") {
				t.Fatalf("pins %+v", a.Scripts)
			}
			writeFile(t, tt.first, "#!/bin/sh\necho changed\n", 0o755)
			st := f.s.CheckTarget(tg, ModePinned)
			if st.Approved || !strings.Contains(st.Reason, "script "+tt.first+" content changed") {
				t.Errorf("pinned: a changed first script still runs: %+v", st)
			}
			if st := f.s.CheckTarget(tg, ModeCommand); !st.Approved || !st.ContentDrift {
				t.Errorf("command mode: %+v, want approved with the drift reported", st)
			}
		})
	}
}

// A line we cannot analyse is approved only as a whole, and every message says so.
func TestShellUnanalysableLineNeedsWholeLineApproval(t *testing.T) {
	f := newShellFixture(t)
	for line, what := range map[string]string{
		"python3 $(cat which).py": "$(...)",
		"python3 /p/*.py":         "glob (*)",
		"$OTHER/guard.sh":         "$OTHER",
	} {
		t.Run(line, func(t *testing.T) {
			tg := Target{Event: "pre_tool_call", Command: line, Shell: true, Dir: f.a}
			// An entry written before whole-line approvals existed does not count.
			writeFile(t, f.s.Path(), `{"approvals": [{"event": "pre_tool_call", "command": `+string(mustString(line))+`}]}`, 0o600)
			for _, mode := range []Mode{ModeCommand, ModePinned} {
				st := f.s.CheckTarget(tg, mode)
				if st.Approved || st.Unanalysable == "" || !strings.Contains(st.Reason, what) ||
					!strings.Contains(st.Reason, "cannot be analysed") || !strings.Contains(st.Reason, "hooks allow") {
					t.Errorf("%s: %+v", mode, st)
				}
			}
			logger, lb := newLogger()
			d := Decider{Store: f.s, Mode: ModePinned, Getenv: func(string) string { return "" }, Logger: logger}
			if ok, _ := d.DecideTarget(context.Background(), tg); ok {
				t.Error("Decide approved an unanalysable line")
			}
			if out := lb.String(); !strings.Contains(out, "cannot be analysed") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Errorf("refusal is not one line saying what cannot be analysed:\n%s", out)
			}
			a := approveTarget(t, f.s, tg)
			if !strings.Contains(a.WholeLine, what) || a.Scripts != nil {
				t.Errorf("approval %+v, want a whole-line approval", a)
			}
			if st := f.s.CheckTarget(tg, ModePinned); !st.Approved {
				t.Errorf("whole-line approval does not count: %+v", st)
			}
			if list, _ := f.s.Approvals(); len(list) != 2 {
				t.Errorf("the old entry was dropped: %d entries", len(list))
			}
		})
	}
}

// An entry written before approvals named their project is kept, but does not approve a
// line that runs project files; a line of absolute paths keeps it.
func TestShellOldEntryMigration(t *testing.T) {
	f := newShellFixture(t)
	script := filepath.Join(f.a, "guard.sh")
	writeFile(t, script, "#!/bin/sh\n", 0o755)
	old := `{"approvals": [
  {"event": "pre_tool_call", "command": "\"$CLAUDE_PROJECT_DIR\"/guard.sh"},
  {"event": "pre_tool_call", "command": "` + script + `"}]}`
	writeFile(t, f.s.Path(), old, 0o600)
	rel := Target{Event: "pre_tool_call", Command: `"$CLAUDE_PROJECT_DIR"/guard.sh`, Shell: true, Dir: f.a}
	st := f.s.CheckTarget(rel, ModeCommand)
	if st.Approved || !strings.Contains(st.Reason, "names no project") {
		t.Errorf("old entry approves a project line: %+v", st)
	}
	t.Setenv("CLAUDE_PROJECT_DIR", "") // set and empty: the project is still the working directory
	if st := f.s.CheckTarget(rel, ModeCommand); st.Approved || st.Project != f.a {
		t.Errorf("with an empty $CLAUDE_PROJECT_DIR the old entry approves a project line: %+v", st)
	}
	os.Unsetenv("CLAUDE_PROJECT_DIR")
	abs := Target{Event: "pre_tool_call", Command: script, Shell: true, Dir: f.a}
	if st := f.s.CheckTarget(abs, ModeCommand); !st.Approved {
		t.Errorf("old entry of an absolute script no longer approves it: %+v", st)
	}
	approveTarget(t, f.s, rel)
	if list, _ := f.s.Approvals(); len(list) != 3 {
		t.Errorf("re-approval rewrote the old entries away: %+v", list)
	}
	if st := f.s.CheckTarget(rel, ModePinned); !st.Approved {
		t.Errorf("after re-approval: %+v", st)
	}
}

// The new fields survive a write and a read.
func TestShellApprovalFieldsRoundTrip(t *testing.T) {
	f := newShellFixture(t)
	writeFile(t, filepath.Join(f.a, "a.sh"), "#!/bin/sh\n", 0o755)
	a := approveTarget(t, f.s, Target{Event: "pre_tool_call", Command: "./a.sh; missing-program", Shell: true, Dir: f.a})
	got, ok := Open(f.s.Path(), nil).find("pre_tool_call", "./a.sh; missing-program", f.a)
	if !ok || got.Project != f.a || len(got.Scripts) != 2 || got.Scripts[0] != a.Scripts[0] || got.Scripts[1] != (Pin{}) ||
		got.ScriptSHA256 != a.Scripts[0].SHA256 {
		t.Errorf("read back %+v, wrote %+v", got, a)
	}
}

func (s *Store) find(event, command, project string) (Approval, bool) {
	list, _ := s.Approvals()
	return find(list, event, command, project)
}
