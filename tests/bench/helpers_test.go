//go:build unix

package bench

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/scripts/examples"
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

// copyDemo writes the demo of scripts/examples into dir the way hermesctl demo does:
// scripts executable, $DEMO_HOME in config.yaml replaced by the copy's home.
func copyDemo(dir string) error {
	return fs.WalkDir(examples.Demo, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, path)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(examples.Demo, path)
		if err != nil {
			return err
		}
		if path == "home/config.yaml" {
			data = bytes.ReplaceAll(data, []byte("$DEMO_HOME"), []byte(filepath.Join(dir, "home")))
		}
		mode := os.FileMode(0o644)
		if ext := filepath.Ext(path); ext == ".sh" || ext == ".py" {
			mode = 0o755
		}
		return os.WriteFile(target, data, mode)
	})
}

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
