package consent

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
		{"bash -c '/p/run it'", "/p/run it"},
		{`ruby "/p/my hook.rb" --x`, "/p/my hook.rb"},
		{`node /p/x.MJS`, "/p/x.MJS"},
		{"deno run /opt/a/b /p/check.ts", "/p/check.ts"},
		{"./bin/hook --flag", "./bin/hook"},
		{"tool --config=/etc/hook.conf", "--config=/etc/hook.conf"},
		{"lua5.4 hook.lua", "hook.lua"},
		{"run # /p/x.sh", "/p/x.sh"},         // "#" is not a comment
		{"python3 'oops /p/x.py", "/p/x.py"}, // unterminated quote: split at blanks
		{"", ""},
		{"   ", ""},
	}
	for _, tt := range tests {
		if got := ScriptPath(tt.command); got != tt.want {
			t.Errorf("ScriptPath(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr error
	}{
		{"a  b\tc\n", []string{"a", "b", "c"}, nil},
		{`'a b' "c d" e\ f`, []string{"a b", "c d", "e f"}, nil},
		{`"a \"q\" \$x \n" 'it''s'`, []string{`a "q" $x \n`, "its"}, nil},
		{`ab""cd ''`, []string{"abcd", ""}, nil},
		{"a\\\nb c", []string{"ab", "c"}, nil},
		{`"line\` + "\n" + `cont"`, []string{"linecont"}, nil},
		{"x #y", []string{"x", "#y"}, nil},
		{"héllo wörld", []string{"héllo", "wörld"}, nil},
		{"", nil, nil},
		{`'open`, nil, errUnterminatedQuote},
		{`"open`, nil, errUnterminatedQuote},
		{`"open\"`, nil, errUnterminatedQuote},
		{`end\`, nil, errTrailingBackslash},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.in)
		if err != tt.wantErr {
			t.Errorf("splitWords(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitWords(%q) (-want +got):\n%s", tt.in, diff)
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
