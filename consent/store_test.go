package consent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/go-cmp/cmp"
)

const concurrency = 32

func wantCommands() []string {
	var want []string
	for i := range concurrency {
		want = append(want, fmt.Sprintf("pre_tool_call hook-%02d.sh", i))
	}
	sort.Strings(want)
	return want
}

func sortedKeys(list []Approval) []string {
	keys := keysOf(list)
	sort.Strings(keys)
	return keys
}

func TestConcurrentApproveGoroutines(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("sharedStore=%v", shared), func(t *testing.T) {
			s, _, _ := testStore(t)
			var wg sync.WaitGroup
			for i := range concurrency {
				wg.Go(func() {
					store := s
					if !shared {
						store = Open(s.Path(), nil) // separate Stores meet only at the lock file
					}
					if _, err := store.Approve(context.Background(), "pre_tool_call", fmt.Sprintf("hook-%02d.sh", i)); err != nil {
						t.Error(err)
					}
					store.Lookup("pre_tool_call", "hook-00.sh") // readers run alongside writers
				})
			}
			wg.Wait()
			if diff := cmp.Diff(wantCommands(), sortedKeys(readDoc(t, s.Path()).approvals())); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConcurrentApproveProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 32 processes")
	}
	s, _, _ := testStore(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, concurrency)
	for i := range cmds {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(),
			"CONSENT_TEST_HELPER=approve",
			"CONSENT_TEST_PATH="+s.Path(),
			"CONSENT_TEST_EVENT=pre_tool_call",
			fmt.Sprintf("CONSENT_TEST_COMMAND=hook-%02d.sh", i))
		cmds[i] = cmd
	}
	var wg sync.WaitGroup
	for _, cmd := range cmds {
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("helper %v: %v\n%s", cmd.Env[len(cmd.Env)-1], err, out)
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(wantCommands(), sortedKeys(readDoc(t, s.Path()).approvals())); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	if leftovers, _ := filepath.Glob(s.Path() + ".tmp-*"); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestWriteFailureKeepsApprovalInMemory(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, s *Store) *Store // returns the Store to use
		wantCause string
	}{
		{"rename fails", func(t *testing.T, s *Store) *Store {
			s.rename = func(string, string) error { return errors.New("injected rename failure") }
			return s
		}, "injected rename failure"},
		{"read-only directory", func(t *testing.T, s *Store) *Store {
			if os.Geteuid() == 0 {
				t.Skip("root ignores directory permissions")
			}
			if _, err := s.Approve(context.Background(), "pre_tool_call", "before.sh"); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Dir(s.Path())
			if err := os.Chmod(dir, 0o500); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o700) })
			return s
		}, "permission denied"},
		{"path is a directory", func(t *testing.T, s *Store) *Store {
			if err := os.MkdirAll(s.Path(), 0o700); err != nil {
				t.Fatal(err)
			}
			return s
		}, "not a regular file but a directory"},
		{"path under a file", func(t *testing.T, s *Store) *Store {
			file := filepath.Join(filepath.Dir(s.Path()), "file")
			writeFile(t, file, "x", 0o600)
			return Open(filepath.Join(file, FileName), nil)
		}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := testStore(t)
			s = tt.setup(t, s)
			logger, lb := newLogger()
			s.logger = logger
			a, err := s.Approve(context.Background(), "pre_tool_call", "x.sh")
			if err == nil {
				t.Fatal("Approve succeeded, want an error")
			}
			if msg := err.Error(); !strings.Contains(msg, s.Path()) || !strings.Contains(msg, tt.wantCause) {
				t.Errorf("error %q does not name the file %s and the cause %q", msg, s.Path(), tt.wantCause)
			}
			if !strings.Contains(lb.String(), "level=WARN") {
				t.Errorf("no warning logged:\n%s", lb.String())
			}
			got, ok := s.Lookup("pre_tool_call", "x.sh")
			if !ok || !reflect.DeepEqual(got, a) {
				t.Errorf("Lookup = %+v, %v; want the in-memory approval %+v", got, ok, a)
			}
			if st := s.Check("pre_tool_call", "x.sh", ModeCommand); !st.Approved {
				t.Errorf("Check = %+v, want approved", st)
			}
			if other, ok := Open(s.Path(), nil).Lookup("pre_tool_call", "x.sh"); ok {
				t.Errorf("another Store sees the unsaved approval %+v", other)
			}
			if n, _ := s.Revoke(context.Background(), "x.sh"); n != 1 {
				t.Errorf("Revoke of the unsaved approval = %d, want 1", n)
			}
			if _, ok := s.Lookup("pre_tool_call", "x.sh"); ok {
				t.Error("unsaved approval survives Revoke")
			}
		})
	}
}

func TestApproveWaitsForLockWithinContext(t *testing.T) {
	s, _, _ := testStore(t)
	lock := flock.New(s.Path() + ".lock")
	if err := lock.Lock(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := s.Approve(ctx, "pre_tool_call", "x.sh")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Approve under a held lock = %v, want a deadline error", err)
	}
	if _, ok := s.Lookup("pre_tool_call", "x.sh"); !ok {
		t.Error("approval not kept in memory")
	}

	done := make(chan error, 1)
	go func() {
		_, err := s.Approve(context.Background(), "pre_tool_call", "y.sh")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Approve returned %v while another holder had the lock", err)
	case <-time.After(30 * time.Millisecond):
	}
	lock.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, ok := Open(s.Path(), nil).Lookup("pre_tool_call", "y.sh"); !ok {
		t.Error("approval not written after the lock was released")
	}
}

func TestApproveRejectsEmptyPair(t *testing.T) {
	s, _, _ := testStore(t)
	for _, p := range [][2]string{{"", "x.sh"}, {"pre_tool_call", ""}} {
		if _, err := s.Approve(context.Background(), p[0], p[1]); !errors.Is(err, ErrEmptyPair) {
			t.Errorf("Approve(%q, %q) = %v, want ErrEmptyPair", p[0], p[1], err)
		}
	}
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Error("an empty pair was written")
	}
}

func TestApprovalsReadError(t *testing.T) {
	s, _, _ := testStore(t)
	if err := os.MkdirAll(s.Path(), 0o700); err != nil { // reading a directory fails
		t.Fatal(err)
	}
	if _, err := s.Approvals(); err == nil || !strings.Contains(err.Error(), s.Path()) {
		t.Errorf("Approvals() error = %v, want one naming %s", err, s.Path())
	}
	if st := s.Check("pre_tool_call", "x.sh", ModeCommand); st.Approved || !strings.Contains(st.Reason, "read allowlist") {
		t.Errorf("Check = %+v, want not approved with the read error", st)
	}
}
