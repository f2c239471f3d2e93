package logbatch

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder keeps every write made to it, each a batch.
type recorder struct {
	mu     sync.Mutex
	writes []string
	err    error
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, string(p))
	return len(p), r.err
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...)
}

// The tests of the delay run in synctest bubbles: time.Sleep there advances the bubble's
// fake clock at once, once every goroutine of the bubble is blocked; nothing waits on the
// machine's clock.
func TestRecordsWaitAtMostTheDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r recorder
		w := New(&r, 1024, 100*time.Millisecond)
		w.Write([]byte("a\n"))
		time.Sleep(60 * time.Millisecond)
		w.Write([]byte("b\n"))
		synctest.Wait()
		if got := r.got(); len(got) != 0 {
			t.Fatalf("written before the delay: %q", got)
		}
		time.Sleep(40 * time.Millisecond) // the first record's delay is up
		synctest.Wait()
		if got := r.got(); len(got) != 1 || got[0] != "a\nb\n" {
			t.Fatalf("after the first record's delay: %q, want one write of both", got)
		}
		w.Write([]byte("c\n"))
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if got := r.got(); len(got) != 2 || got[1] != "c\n" {
			t.Fatalf("a later record: %q", got)
		}
	})
}

func TestAFullBatchIsWrittenAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r recorder
		w := New(&r, 10, time.Hour)
		w.Write([]byte("1234\n"))
		w.Write([]byte("5678\n")) // 10 bytes: full
		w.Write([]byte("abcd\n"))
		w.Write([]byte("efghijklm\n")) // would pass the size: the batch before it goes first
		got := r.got()
		want := []string{"1234\n5678\n", "abcd\n", "efghijklm\n"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("writes %q, want %q (whole records, in order)", got, want)
		}
		w.Write([]byte("x\n"))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := r.got(); got[len(got)-1] != "x\n" {
			t.Fatalf("Flush did not write the rest: %q", got)
		}
		time.Sleep(2 * time.Hour) // the flushed record's timer was stopped: nothing more
		synctest.Wait()
		if n := len(r.got()); n != 4 {
			t.Fatalf("%d writes, want 4", n)
		}
	})
}

func TestAWriteErrorIsReturned(t *testing.T) {
	r := recorder{err: errors.New("disk full")}
	w := New(&r, 4, time.Hour)
	if _, err := w.Write([]byte("12345\n")); err == nil {
		t.Fatal("a failed write of a full batch was not reported")
	}
	if _, err := w.Write([]byte("x")); err != nil { // the batch was dropped with the error
		t.Fatal(err)
	}
	if err := w.Flush(); err == nil {
		t.Fatal("a failed Flush was not reported")
	}
}

func TestConcurrentWritersKeepRecordsWhole(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	w := New(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) }), 64, time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 200 {
				w.Write([]byte(strings.Repeat(string(rune('a'+g)), 9) + "\n"))
			}
		})
	}
	wg.Wait()
	w.Flush()
	mu.Lock()
	defer mu.Unlock()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1600 {
		t.Fatalf("%d records, want 1600", len(lines))
	}
	for _, l := range lines {
		if len(l) != 9 || strings.Count(l, l[:1]) != 9 {
			t.Fatalf("a record was split or mixed: %q", l)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
