package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The content is replaced with the mode asked for; a failed rename leaves the old content
// and no temporary file; a symbolic link is refused, kept, and its target left alone.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	fail := func(string, string) error { return errors.New("disk gone") }
	if err := Write(path, []byte("new"), 0o600, fail); err == nil {
		t.Fatal("no error from a failed rename")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after a failed write: %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if err := Write(path, []byte("new"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Skip("no symbolic links here")
	}
	want := link + ": not a regular file but a symbolic link"
	if err := Write(link, []byte("via link"), 0o644, nil); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Write through a link: error %v, want %s", err, want)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("the link's target now holds %q, want it untouched", got)
	}
}
