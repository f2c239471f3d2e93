//go:build unix

package bench

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// testdata returns the absolute path of a file in testdata/.
func testdata(tb testing.TB, name string) string {
	tb.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(testdata(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// quoteYAML renders s as a double-quoted YAML scalar (a path may hold spaces), itself
// single-quoted for the command splitter.
func quoteYAML(s string) string { return strconv.Quote("'" + s + "'") }

// waitGone waits until pid no longer runs (gone or a zombie).
func waitGone(tb testing.TB, pid int) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				return
			}
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			tb.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
