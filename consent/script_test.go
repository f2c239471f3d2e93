package consent

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestScriptPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct{ command, want string }{
		{"python3 -u /p/hook.py", "/p/hook.py"},
		{"/usr/bin/env bash /p/h.sh", "/p/h.sh"},
		{"my-binary --verbose", "my-binary"},
		{"~/hook.sh", filepath.Join(home, "hook.sh")},
		{"~/.hermes/agent-hooks/block.sh --strict", filepath.Join(home, ".hermes/agent-hooks/block.sh")},
		{"~", home},
		{"~user/hook", "~user/hook"},
		{"bash -c 'x y'", "bash"},
		{"bash -c '/p/run it'", "bash"}, // runs no file: the program
		{`ruby "/p/my hook.rb" --x`, "/p/my hook.rb"},
		{`node /p/x.MJS`, "/p/x.MJS"},
		{"deno run /opt/a/b /p/check.ts", "deno"}, // not a known interpreter: the program (and the files it names are pinned)
		{"./bin/hook --flag", "./bin/hook"},
		{"tool --config=/etc/hook.conf", "tool"},
		{"lua5.4 hook.lua", "lua5.4"},
		{"bash /p/payload /p/decoy.sh", "/p/payload"}, // the file bash runs, not the decoy
		{"python3 x.data y.py", "x.data"},
		{"run # /p/x.sh", "run"},                                // "#" is not a comment
		{"'~/quoted.sh' --x", filepath.Join(home, "quoted.sh")}, // quoted or not, ~ is home
		{"python3 'oops /p/x.py", ""},                           // unterminated quote: nothing runs
		{"", ""},
		{"   ", ""},
	}
	for _, tt := range tests {
		if got := ScriptPath(tt.command); got != tt.want {
			t.Errorf("ScriptPath(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hook.sh")
	writeFile(t, file, "hello", 0o755)
	at := time.Date(2026, 4, 20, 9, 0, 0, 500000000, time.UTC)
	if err := os.Chtimes(file, at, at); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.sh")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	const helloSHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	tests := []struct {
		name, path, mtime, sha string
		wantErr                bool
	}{
		{"file", file, "2026-04-20T09:00:00.500000Z", helloSHA, false},
		{"symlink", link, "2026-04-20T09:00:00.500000Z", helloSHA, false},
		{"missing", filepath.Join(dir, "nope"), "", "", true},
		{"directory", dir, "dir", "", true},
	}
	for _, tt := range tests {
		mtime, sha, err := Fingerprint(tt.path)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, want error %v", tt.name, err, tt.wantErr)
		}
		if tt.mtime == "dir" {
			if !timeFormat.MatchString(mtime) {
				t.Errorf("%s: mtime = %q, want a time", tt.name, mtime)
			}
		} else if mtime != tt.mtime {
			t.Errorf("%s: mtime = %q, want %q", tt.name, mtime, tt.mtime)
		}
		if sha != tt.sha {
			t.Errorf("%s: sha = %q, want %q", tt.name, sha, tt.sha)
		}
	}
}
