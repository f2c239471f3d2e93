package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/shell"
)

// resolutionFixture is a home, a working directory and a $PATH directory whose programs
// record what they run: a script run directly records its own path ($0); the stand-in
// interpreters (python3, bash) record the script argument they were handed, as the file
// they would open from their working directory.
type resolutionFixture struct{ home, work, bin, ran string }

func newResolutionFixture(t *testing.T) resolutionFixture {
	t.Helper()
	root := t.TempDir()
	f := resolutionFixture{filepath.Join(root, "home"), filepath.Join(root, "work"), filepath.Join(root, "bin"), filepath.Join(root, "ran")}
	record := "#!/bin/sh\necho \"$0\" >> '" + f.ran + "'\n"
	interpreter := "#!/bin/sh\nfor a; do last=$a; done\necho \"$(cd \"$(dirname \"$last\")\" && pwd)/$(basename \"$last\")\" >> '" + f.ran + "'\n"
	for path, body := range map[string]string{
		"home/x.sh": record, "home/h.py": "print('{}')\n", "home/h.sh": "echo '{}'\n",
		"work/rel.sh": record, "work/~/x.sh": record, // the decoy a literal ~ would run
		"bin/my-binary": record, "bin/python3": interpreter, "bin/bash": interpreter,
	} {
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", f.home)
	t.Setenv("PATH", f.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Chdir(f.work)
	return f
}

// lastRun returns the file the last run recorded.
func (f resolutionFixture) lastRun(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(f.ran)
	if err != nil {
		t.Fatalf("nothing ran: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// TestConsentChecksTheFileTheRunnerRuns: for every shape of command, the file consent
// fingerprints is the file the runner executes, or the script it hands the interpreter.
func TestConsentChecksTheFileTheRunnerRuns(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	f := newResolutionFixture(t)
	store := consent.Open(filepath.Join(t.TempDir(), "allowlist.json"), nil)
	commands := []string{
		"~/x.sh", "'~/x.sh'", `"~/x.sh" --flag`, "python3 -u ~/h.py", "./rel.sh", "my-binary --verbose",
	}
	if _, err := os.Stat("/usr/bin/env"); err == nil {
		commands = append(commands, "/usr/bin/env bash ~/h.sh")
	}
	for _, command := range commands {
		os.Remove(f.ran)
		st := store.Check("on_session_start", command, consent.ModeCommand)
		h := &shell.Hook{Event: "on_session_start", Command: command, Timeout: 10 * time.Second}
		res := h.Run(context.Background(), map[string]any{"session_id": "s"}, shell.RunOptions{})
		if res.Status != hookspec.StatusOK || res.ExitCode != 0 {
			t.Errorf("%s: run %s, exit %d: %s", command, res.Status, res.ExitCode, res.Err)
			continue
		}
		ran := f.lastRun(t)
		checked, errC := os.Stat(st.Resolved)
		executed, errR := os.Stat(ran)
		if errC != nil || errR != nil || !os.SameFile(checked, executed) {
			t.Errorf("%s: consent checks %q, the runner ran %q", command, st.Resolved, ran)
		}
	}
}

// TestPinnedConsentOfQuotedTilde: a quoted '~/x.sh' approved in pinned mode names the same
// file for consent and for the runner, so editing that file revokes the approval, and the
// file a literal "~" directory would hold is never what runs.
func TestPinnedConsentOfQuotedTilde(t *testing.T) {
	f := newResolutionFixture(t)
	const event, command = "on_session_start", "'~/x.sh'"
	store := consent.Open(filepath.Join(t.TempDir(), "allowlist.json"), nil)
	if _, err := store.Approve(context.Background(), event, command); err != nil {
		t.Fatal(err)
	}
	h := &shell.Hook{Event: event, Command: command, Timeout: 10 * time.Second}
	if res := h.Run(context.Background(), nil, shell.RunOptions{}); res.Status != hookspec.StatusOK {
		t.Fatalf("run: %s %s", res.Status, res.Err)
	}
	if got, want := f.lastRun(t), filepath.Join(f.home, "x.sh"); got != want {
		t.Errorf("the runner ran %q, want %q", got, want)
	}
	decoy := filepath.Join(f.work, "~", "x.sh")
	if err := os.WriteFile(decoy, []byte("#!/bin/sh\necho evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st := store.Check(event, command, consent.ModePinned); !st.Approved {
		t.Errorf("an edit of %s, which never runs, revoked the approval: %s", decoy, st.Reason)
	}
	script := filepath.Join(f.home, "x.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st := store.Check(event, command, consent.ModePinned); st.Approved || !strings.Contains(st.Reason, "content changed") {
		t.Errorf("after the script that runs was edited: approved %v, reason %q; want not approved", st.Approved, st.Reason)
	}
}
