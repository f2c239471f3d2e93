package testutil

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// havePython asks python3 once per test process (a launcher such as pyenv's shim takes most
// of a second each time).
var havePython = sync.OnceValue(func() bool {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.version_info >= (3, 9))").Output()
	return err == nil && strings.TrimSpace(string(out)) == "True"
})

// NeedPython skips the test when no python3 of version 3.9 or later is on $PATH, saying how
// to install one; where HERMES_REQUIRE_PYTHON is set (CI) it fails instead, so that the
// tests of Python hooks never vanish silently.
func NeedPython(tb testing.TB) {
	tb.Helper()
	if havePython() {
		return
	}
	msg := "python3 3.9 or later not found on $PATH: install it (apt-get install python3) to run the tests of Python hooks"
	if os.Getenv("HERMES_REQUIRE_PYTHON") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}
