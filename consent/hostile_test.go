package consent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Hostile allowlists: files nobody should have written, writers running at once, and a
// writer killed in the middle of a write.

// hostileStore opens a Store on a fresh allowlist, with HOME pointing at its directory.
func hostileStore(t *testing.T) *Store {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	return Open(DefaultPath(home), nil)
}

// validAllowlist fails unless data is one valid JSON allowlist and returns its approvals.
func validAllowlist(t *testing.T, data []byte) []Approval {
	t.Helper()
	if !json.Valid(data) {
		t.Fatalf("allowlist is not valid JSON (%d bytes): %.200q", len(data), data)
	}
	doc := parseDocument(data)
	if len(doc.problems) > 0 {
		t.Fatalf("allowlist has problems %v: %.200q", doc.problems, data)
	}
	return doc.approvals()
}

func TestHostileAllowlistContent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	entry := `{"event": "pre_tool_call", "command": "kept.sh"}`
	tests := []struct {
		name    string
		content string
		want    int // approvals that must survive
	}{
		{"random binary", string(random), 0},
		{"random binary after a brace", "{" + string(random), 0},
		{"NUL bytes", strings.Repeat("\x00", 4096), 0},
		{"deeply nested arrays", `{"approvals": ` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "}", 0},
		{"deeply nested salvage", `{"approvals": [` + entry + `, ` + strings.Repeat(`{"a":`, 200000), 1},
		{"invalid UTF-8 command", `{"approvals": [{"event": "pre_tool_call", "command": "` + "\xff\xfe" + `.sh"}]}`, 1},
		{"duplicate keys", `{"approvals": [], "approvals": [` + entry + `]}`, 1},
		{"many entries of one pair", `{"approvals": [` + strings.Repeat(entry+",", 10000) + entry + `]}`, 10001},
		{"lone surrogates", `{"approvals": [{"event": "pre_tool_call", "command": "\ud800.sh"}]}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := hostileStore(t)
			if err := os.WriteFile(s.Path(), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := s.Approvals()
			if err != nil || len(got) != tt.want {
				t.Fatalf("Approvals: %d entries, error %v; want %d and no error", len(got), err, tt.want)
			}
			if _, ok := s.Lookup("pre_tool_call", "new.sh"); ok {
				t.Fatal("a corrupt file approved a pair it does not hold")
			}
			if _, err := s.Approve(context.Background(), "pre_tool_call", "new.sh"); err != nil {
				t.Fatalf("Approve: %v", err)
			}
			data, err := os.ReadFile(s.Path())
			if err != nil {
				t.Fatal(err)
			}
			after := validAllowlist(t, data)
			if _, ok := find(after, "pre_tool_call", "new.sh", ""); !ok {
				t.Error("the new approval is not in the rewritten file")
			}
			if want := min(tt.want, 1) + 1; len(after) != want && tt.name != "many entries of one pair" {
				t.Errorf("rewritten file holds %d entries, want %d", len(after), want)
			}
			if tt.name == "many entries of one pair" && len(after) != 10002 {
				t.Errorf("rewritten file holds %d entries, want the 10001 read plus the new one", len(after))
			}
			if fi, err := os.Stat(s.Path()); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v (%v), want 0600", fi.Mode().Perm(), err)
			}
		})
	}
}

// TestHostileAllowlistConcurrentWriters runs writers through separate Stores while readers
// read the raw file: every read sees a complete, valid file, and no approval is lost.
func TestHostileAllowlistConcurrentWriters(t *testing.T) {
	s := hostileStore(t)
	const writers, each = 8, 12
	var stop atomic.Bool
	var readers sync.WaitGroup
	var reads atomic.Int64
	for range 4 {
		readers.Go(func() {
			for !stop.Load() {
				data, err := os.ReadFile(s.Path())
				if err != nil {
					continue // not created yet
				}
				reads.Add(1)
				if !json.Valid(data) || len(parseDocument(data).problems) > 0 {
					t.Errorf("a reader saw a partial or invalid file: %.200q", data)
					return
				}
			}
		})
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			store := Open(s.Path(), nil)
			for i := range each {
				if _, err := store.Approve(context.Background(), "pre_tool_call", fmt.Sprintf("w%d-%d.sh", w, i)); err != nil {
					t.Error(err)
				}
				if i%3 == 0 {
					if _, err := store.Revoke(context.Background(), fmt.Sprintf("gone-%d-%d.sh", w, i)); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	readers.Wait()
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := validAllowlist(t, data); len(got) != writers*each {
		t.Errorf("file holds %d approvals, want %d", len(got), writers*each)
	}
	t.Logf("%d concurrent reads, all of complete files", reads.Load())
}

// Environment of the helper process of TestHostileAllowlistKilledWriter.
const (
	killedWriterEnv    = "HERMES_CONSENT_KILLED_WRITER"
	killedWriterPath   = "HERMES_CONSENT_KILLED_WRITER_PATH"
	killedWriterPrefix = "HERMES_CONSENT_KILLED_WRITER_PREFIX"
)

// TestHostileAllowlistApproveLoop is the helper process of TestHostileAllowlistKilledWriter:
// it approves pairs in a loop, printing "try <command>" before and "ack <command>" after each
// successful Approve, until it is killed. It does nothing in a normal test run.
func TestHostileAllowlistApproveLoop(t *testing.T) {
	if os.Getenv(killedWriterEnv) != "1" {
		return
	}
	s := Open(os.Getenv(killedWriterPath), nil)
	for i := 0; ; i++ {
		cmd := fmt.Sprintf("%s-%d.sh", os.Getenv(killedWriterPrefix), i)
		fmt.Fprintln(os.Stdout, "try", cmd)
		if _, err := s.Approve(context.Background(), "pre_tool_call", cmd); err != nil {
			fmt.Fprintln(os.Stdout, "err", err)
			continue
		}
		fmt.Fprintln(os.Stdout, "ack", cmd)
	}
}

// TestHostileAllowlistKilledWriter SIGKILLs a process at random moments while it approves
// pairs in a loop: after each kill the file is valid JSON, holds every approval that was
// acknowledged before the kill, and none that was never attempted.
func TestHostileAllowlistKilledWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := hostileStore(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	acked, tried := map[string]bool{}, map[string]bool{}
	const rounds = 20
	for r := range rounds {
		cmd := exec.Command(exe, "-test.run=^TestHostileAllowlistApproveLoop$", "-test.count=1")
		cmd.Env = append(os.Environ(), killedWriterEnv+"=1", killedWriterPath+"="+s.Path(),
			fmt.Sprintf("%s=round%02d", killedWriterPrefix, r))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		var first string
		select { // the child is approving once it tried its first pair
		case first = <-lines:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the helper process did not start approving")
		}
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		roundAcks := 0
		for l := range mergeFirst(first, lines) {
			verb, c, _ := strings.Cut(l, " ")
			switch verb {
			case "try":
				tried[c] = true
			case "ack":
				acked[c], roundAcks = true, roundAcks+1
			case "err":
				t.Errorf("round %d: Approve failed in the helper: %s", r, c)
			}
		}
		data, err := os.ReadFile(s.Path())
		if err != nil {
			if len(acked) == 0 {
				continue // killed before the first write completed
			}
			t.Fatalf("round %d: %v", r, err)
		}
		inFile := map[string]bool{}
		for _, a := range validAllowlist(t, data) {
			inFile[a.Command] = true
			if !tried[a.Command] {
				t.Errorf("round %d: the file holds %q, which was never approved", r, a.Command)
			}
		}
		for c := range acked {
			if !inFile[c] {
				t.Errorf("round %d: acknowledged approval %q is missing from the file", r, c)
			}
		}
		t.Logf("round %d: killed after %d acknowledged approvals; the file holds %d", r, roundAcks, len(inFile))
	}
	if len(acked) == 0 {
		t.Error("no approval was acknowledged in any round: the test did not exercise the writer")
	}
	leftovers, _ := filepath.Glob(s.Path() + ".tmp-*")
	t.Logf("%d approvals acknowledged over %d kills; %d temporary files left by killed writes", len(acked), rounds, len(leftovers))
}

// mergeFirst yields first and then every line of rest.
func mergeFirst(first string, rest <-chan string) func(func(string) bool) {
	return func(yield func(string) bool) {
		if !yield(first) {
			return
		}
		for l := range rest {
			if !yield(l) {
				return
			}
		}
	}
}

func TestHugeAllowlistIsIgnoredNotRewritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	huge := append([]byte(`{"approvals": [{"event": "pre_tool_call", "command": "/x.sh"}], "pad": "`), bytes.Repeat([]byte("x"), MaxFileSize)...)
	huge = append(huge, []byte(`"}`)...)
	if err := os.WriteFile(path, huge, 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path, nil)
	if got, _ := s.Approvals(); len(got) != 0 {
		t.Errorf("approvals from an oversized file: %v", got)
	}
	if _, err := s.Approve(context.Background(), "pre_tool_call", "/y.sh"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Approve on an oversized file: err = %v", err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, huge) {
		t.Error("the oversized file was modified")
	}
}

func TestStaleTempFilesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	stale := path + ".tmp-12345"
	if err := os.WriteFile(stale, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, nil).Approve(context.Background(), "pre_tool_call", "/y.sh"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp file still there: %v", err)
	}
}
