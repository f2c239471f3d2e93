//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test when it has not returned after a generous bound: an open
// of a FIFO without O_NONBLOCK would block there until a writer came. The goroutine of a
// hung call stays blocked; the test binary exits anyway.
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return: it blocks in open", what)
		return nil
	}
}

// TestRefused: a FIFO, a symbolic link (to a regular file, or dangling), a directory and a
// socket are each refused with a message naming the file, for every way of opening, without
// blocking; a link's target is neither created, truncated nor changed.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	dangling := filepath.Join(dir, "dangling")
	sub := filepath.Join(dir, "sub")
	for _, err := range []error{os.Symlink(target, link), os.Symlink(filepath.Join(dir, "created"), dangling), os.Mkdir(sub, 0o700)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ path, want string }{
		{fifo, "not a regular file but a named pipe (FIFO); replace it with a regular file"},
		{link, "not a regular file but a symbolic link, which is not followed here; replace it with the file it points to"},
		{dangling, "not a regular file but a symbolic link"},
		{sub, "not a regular file but a directory"},
	}
	opens := map[string]func(string) error{
		"Open":     func(p string) error { f, err := Open(p); closeIf(f); return err },
		"ReadFile": func(p string) error { _, err := ReadFile(p, 1<<20); return err },
		"create":   func(p string) error { f, err := OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600); closeIf(f); return err },
		"truncate": func(p string) error {
			f, err := OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
			closeIf(f)
			return err
		},
		"append": func(p string) error { f, err := OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o600); closeIf(f); return err },
	}
	for _, c := range cases {
		for name, open := range opens {
			err := within(t, name+" of "+c.path, func() error { return open(c.path) })
			var se *Error
			if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.path+": "+c.want) {
				t.Errorf("%s(%s): error %v, want %s: %s", name, filepath.Base(c.path), err, c.path, c.want)
			}
		}
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != "keep" {
		t.Errorf("the link's target now holds %q (%v), want it unchanged", got, err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target has mode %v, want it unchanged", fi.Mode().Perm())
	}
	if _, err := os.Lstat(filepath.Join(dir, "created")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dangling link's target was created (%v)", err)
	}
	if err := Check(fifo); err == nil {
		t.Error("Check of a FIFO: no error")
	}
	if err := Check(link); err == nil {
		t.Error("Check of a link: no error")
	}
}

// TestRegular: a regular file opens, reads, is created when missing, and the descriptor is in
// blocking mode; a missing file is fs.ErrNotExist; a file over the limit is refused.
func TestRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if _, err := Open(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v, want fs.ErrNotExist", err)
	}
	f, err := OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("hello"); err != nil {
		t.Fatal(err)
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	if errno != 0 || flags&syscall.O_NONBLOCK != 0 {
		t.Errorf("descriptor flags %#x (%v): O_NONBLOCK still set", flags, errno)
	}
	f.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("created with mode %v, want 0600", fi.Mode().Perm())
	}
	if got, err := ReadFile(path, 5); err != nil || string(got) != "hello" {
		t.Errorf("ReadFile = %q, %v", got, err)
	}
	if _, err := ReadFile(path, 4); err == nil || !strings.Contains(err.Error(), path+": file larger than") {
		t.Errorf("ReadFile over the limit: %v", err)
	}
	if err := Check(path); err != nil {
		t.Errorf("Check of a regular file: %v", err)
	}
	if err := Check(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("Check of a missing file: %v", err)
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}
