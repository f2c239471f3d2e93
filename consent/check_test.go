package consent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/command"
)

func TestCheckDrift(t *testing.T) {
	const event, command = "pre_tool_call", "~/hook.sh"
	tests := []struct {
		name         string
		change       func(t *testing.T, script string, mtime time.Time)
		mtimeDrift   bool
		contentDrift bool
		pinned       bool   // approved in pinned mode
		reason       string // in command mode
	}{
		{"unchanged", func(*testing.T, string, time.Time) {}, false, false, true, ""},
		{"touched", func(t *testing.T, script string, mtime time.Time) {
			later := mtime.Add(time.Hour)
			if err := os.Chtimes(script, later, later); err != nil {
				t.Fatal(err)
			}
		}, true, false, true, "modification time changed"},
		{"edited", func(t *testing.T, script string, mtime time.Time) {
			writeFile(t, script, "#!/bin/sh\necho evil\n", 0o755)
			later := mtime.Add(time.Hour)
			os.Chtimes(script, later, later)
		}, true, true, false, "content changed"},
		{"edited, mtime restored", func(t *testing.T, script string, mtime time.Time) {
			writeFile(t, script, "#!/bin/sh\necho evil\n", 0o755)
			if err := os.Chtimes(script, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}, false, true, false, "content changed"},
		{"deleted", func(t *testing.T, script string, _ time.Time) {
			os.Remove(script)
		}, true, true, false, "missing or unreadable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, home := testStore(t)
			script := filepath.Join(home, "hook.sh")
			writeFile(t, script, "#!/bin/sh\necho ok\n", 0o755)
			mtime := time.Date(2026, 4, 20, 9, 0, 0, 0, time.UTC)
			os.Chtimes(script, mtime, mtime)
			a, err := s.Approve(context.Background(), event, command)
			if err != nil {
				t.Fatal(err)
			}
			if a.ScriptMtime != "2026-04-20T09:00:00Z" || len(a.ScriptSHA256) != 64 {
				t.Fatalf("approval fingerprint = %q %q", a.ScriptMtime, a.ScriptSHA256)
			}
			tt.change(t, script, mtime)

			st := s.Check(event, command, ModeCommand)
			if !st.Approved || st.Approval == nil || !reflect.DeepEqual(*st.Approval, a) {
				t.Errorf("command mode: Approved %v, Approval %+v; want approved with %+v", st.Approved, st.Approval, a)
			}
			if st.MtimeDrift != tt.mtimeDrift || st.ContentDrift != tt.contentDrift {
				t.Errorf("drift: mtime %v content %v, want %v %v", st.MtimeDrift, st.ContentDrift, tt.mtimeDrift, tt.contentDrift)
			}
			if tt.reason == "" && st.Reason != "" || !strings.Contains(st.Reason, tt.reason) {
				t.Errorf("command mode reason = %q, want %q", st.Reason, tt.reason)
			}
			if st.Script != script {
				t.Errorf("Script = %q, want %q", st.Script, script)
			}

			pinned := s.Check(event, command, ModePinned)
			if pinned.Approved != tt.pinned {
				t.Errorf("pinned mode: Approved = %v, want %v (reason %q)", pinned.Approved, tt.pinned, pinned.Reason)
			}
			if !tt.pinned && !strings.Contains(pinned.Reason, "hermesctl hooks allow pre_tool_call '~/hook.sh'") {
				t.Errorf("pinned reason %q does not say how to re-approve", pinned.Reason)
			}
		})
	}
}

func TestCheckUnapprovedAndLegacy(t *testing.T) {
	s, _, home := testStore(t)
	script := filepath.Join(home, "hook.py")
	writeFile(t, script, "print('{}')\n", 0o644)
	const command = "python3 ~/hook.py"

	st := s.Check("pre_llm_call", command, ModeCommand)
	if st.Approved || st.Approval != nil || !strings.Contains(st.Reason, `hermesctl hooks allow pre_llm_call 'python3 ~/hook.py'`) {
		t.Errorf("never approved: %+v", st)
	}
	if !st.Exists || !st.Executable { // an interpreter's argument need only be readable
		t.Errorf("Exists %v Executable %v, want both", st.Exists, st.Executable)
	}

	// An entry written by the original has no hash.
	writeFile(t, s.Path(), `{"approvals":[{"event":"pre_llm_call","command":"python3 ~/hook.py","approved_at":"2026-04-21T10:15:30Z","script_mtime_at_approval":null}]}`, 0o600)
	if st := s.Check("pre_llm_call", command, ModeCommand); !st.Approved || st.MtimeDrift || st.ContentDrift || st.Reason != "" {
		t.Errorf("legacy entry, command mode: %+v, want approved without drift", st)
	}
	if st := s.Check("pre_llm_call", command, ""); !st.Approved {
		t.Errorf("legacy entry, zero mode: %+v, want approved", st)
	}
	if st := s.Check("pre_llm_call", command, ModePinned); st.Approved || !strings.Contains(st.Reason, "no script hash") {
		t.Errorf("legacy entry, pinned mode: %+v, want not approved", st)
	}

	// An entry with an mtime but no hash cannot tell a touch from an edit: it never claims
	// the content is unchanged.
	writeFile(t, s.Path(), `{"approvals":[{"event":"pre_llm_call","command":"python3 ~/hook.py","approved_at":"2026-04-21T10:15:30Z","script_mtime_at_approval":"2020-01-01T00:00:00Z"}]}`, 0o600)
	st = s.Check("pre_llm_call", command, ModeCommand)
	if !st.MtimeDrift || strings.Contains(st.Reason, "content unchanged") || !strings.Contains(st.Reason, "recorded no content hash") {
		t.Errorf("mtime-only entry after an edit: %+v, want a reason that does not vouch for the content", st)
	}
}

func TestCheckScriptState(t *testing.T) {
	s, _, home := testStore(t)
	bin := filepath.Join(home, "bin")
	writeFile(t, filepath.Join(bin, "my-binary"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(home, "plain.sh"), "#!/bin/sh\n", 0o644)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"relative/dir")
	tests := []struct {
		command, resolved  string
		exists, executable bool
	}{
		{"my-binary --verbose", filepath.Join(bin, "my-binary"), true, true},
		{"not-on-path --verbose", "", false, false},
		{"~/plain.sh", filepath.Join(home, "plain.sh"), true, false},
		{"sh ~/plain.sh", filepath.Join(home, "plain.sh"), true, true},
		{"~/missing.sh", filepath.Join(home, "missing.sh"), false, false},
		{"~/bin", filepath.Join(home, "bin"), true, false},
	}
	for _, tt := range tests {
		st := s.Check("pre_tool_call", tt.command, ModeCommand)
		if st.Resolved != tt.resolved || st.Exists != tt.exists || st.Executable != tt.executable {
			t.Errorf("Check(%q): Resolved %q Exists %v Executable %v; want %q %v %v",
				tt.command, st.Resolved, st.Exists, st.Executable, tt.resolved, tt.exists, tt.executable)
		}
	}
	// The approval of a bare program name records the file found on $PATH.
	a, err := s.Approve(context.Background(), "pre_tool_call", "my-binary --verbose")
	if err != nil {
		t.Fatal(err)
	}
	if _, sha, _ := Fingerprint(filepath.Join(bin, "my-binary")); a.ScriptSHA256 != sha {
		t.Errorf("recorded hash %q, want that of the file on $PATH %q", a.ScriptSHA256, sha)
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      any
		want    Mode
		wantErr bool
	}{
		{nil, ModeCommand, false},
		{"", ModeCommand, false},
		{"command", ModeCommand, false},
		{" Pinned ", ModePinned, false},
		{"pined", ModePinned, true},
		{true, ModePinned, true},
		{1, ModePinned, true},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr || err != nil && !errors.Is(err, ErrInvalidMode) {
			t.Errorf("ParseMode(%#v) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestAllowHint(t *testing.T) {
	t.Setenv("HOME", "") // split as a POSIX shell splits, with nothing to expand "~" to
	tests := []struct{ event, command, want string }{
		{"pre_tool_call", "~/x.sh", "hermesctl hooks allow pre_tool_call '~/x.sh'"},
		{"pre_tool_call", "/p/h.sh", "hermesctl hooks allow pre_tool_call '/p/h.sh'"},
		{"pre_tool_call", "echo 'a b'", `hermesctl hooks allow pre_tool_call 'echo '\''a b'\'''`},
		{"odd event", "x", `hermesctl hooks allow 'odd event' 'x'`},
	}
	for _, tt := range tests {
		if got := AllowHint(tt.event, tt.command); got != tt.want {
			t.Errorf("AllowHint(%q, %q) = %s, want %s", tt.event, tt.command, got, tt.want)
		}
		// The hint survives the shell: splitting it gives back the command.
		r, err := command.Resolve(AllowHint(tt.event, tt.command), "")
		words := r.Argv
		if err != nil || len(words) != 5 || words[3] != tt.event || words[4] != tt.command {
			t.Errorf("AllowHint(%q, %q) splits to %q, %v", tt.event, tt.command, words, err)
		}
	}
}

// TestPinnedPinsTheFileThatRuns: an approval pins the file the interpreter runs, not an
// argument after it that looks like a script, so that in pinned mode an edited payload is
// not approved; a command whose file cannot be told pins every file it names; a command
// that runs no file pins its line alone.
func TestPinnedPinsTheFileThatRuns(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		command string // %s is the directory holding payload, decoy.sh, x.data, y.py
		edit    string // the file edited after approval
		pinned  bool   // still approved in pinned mode after the edit
		scripts int    // files listed in the entry's "scripts" (0: none, the single fingerprint)
	}{
		{"bash %s/payload %s/decoy.sh", "payload", false, 0},
		{"bash %s/payload %s/decoy.sh", "decoy.sh", true, 0},
		{"python3 %s/x.data %s/y.py", "x.data", false, 0},
		{"/usr/bin/env python3 -u %s/x.data %s/y.py", "x.data", false, 0},
		{"python3 -m pkg %s/x.data %s/y.py", "x.data", false, 2},
		{"python3 -m pkg %s/x.data %s/y.py", "y.py", false, 2},
		{"bash -c 'exit 0' %s/payload %s/decoy.sh", "payload", true, 0},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.command, "%s/", "")+" edit "+tt.edit, func(t *testing.T) {
			s, _, home := testStore(t)
			for _, name := range []string{"payload", "decoy.sh", "x.data", "y.py"} {
				writeFile(t, filepath.Join(home, name), "echo ok\n", 0o644)
			}
			cmd := strings.ReplaceAll(tt.command, "%s", home)
			a, err := s.Approve(ctx, "pre_tool_call", cmd)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Scripts) != tt.scripts {
				t.Errorf("approval scripts %+v, want %d", a.Scripts, tt.scripts)
			}
			writeFile(t, filepath.Join(home, tt.edit), "echo evil\n", 0o644)
			st := s.Check("pre_tool_call", cmd, ModePinned)
			if st.Approved != tt.pinned || st.Drifted == tt.pinned {
				t.Fatalf("pinned after editing %s: approved %v drifted %v (%s); want approved %v", tt.edit, st.Approved, st.Drifted, st.Reason, tt.pinned)
			}
			if !tt.pinned && !strings.Contains(st.Reason, "`"+AllowHint("pre_tool_call", cmd)+"`") {
				t.Errorf("reason %q does not give the command that re-approves it", st.Reason)
			}
			if cm := s.Check("pre_tool_call", cmd, ModeCommand); !cm.Approved || cm.ContentDrift == tt.pinned {
				t.Errorf("command mode: approved %v content drift %v", cm.Approved, cm.ContentDrift)
			}
		})
	}
}

// TestLegacyDecoyApprovalDrifts: an entry recorded (by the earlier rule) with the hash of a
// decoy argument does not approve the file that runs in pinned mode.
func TestLegacyDecoyApprovalDrifts(t *testing.T) {
	s, _, home := testStore(t)
	payload, decoy := filepath.Join(home, "payload"), filepath.Join(home, "decoy.sh")
	writeFile(t, payload, "echo evil\n", 0o644)
	writeFile(t, decoy, "echo ok\n", 0o644)
	mtime, sha, _ := Fingerprint(decoy)
	cmd := "bash " + payload + " " + decoy
	doc := `{"approvals": [{"event": "pre_tool_call", "command": "` + cmd + `", "approved_at": "2026-04-21T10:15:30Z",
		"script_mtime_at_approval": "` + mtime + `", "script_sha256": "` + sha + `"}]}`
	writeFile(t, s.Path(), doc, 0o600)
	st := s.Check("pre_tool_call", cmd, ModePinned)
	if st.Approved || !st.Drifted || !strings.Contains(st.Reason, "content changed") {
		t.Errorf("legacy decoy approval: approved %v drifted %v reason %q", st.Approved, st.Drifted, st.Reason)
	}
}
