package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// Built with -race, every process sleeps a second before it exits (the race detector's
	// atexit_sleep_ms), and the scripts start hermesctl hundreds of times. The commands they
	// run (scripts copy GORACE; exec.Command inherits it) exit at once: races in what a
	// command did are reported all the same. A GORACE of the caller's comes after and wins.
	os.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=0 "+os.Getenv("GORACE")))
	testscript.Main(m, map[string]func(){
		"hermesctl": main, // as installed: signals end the context
	})
}

// repoRoot is the repository root (tests start in cmd/hermesctl).
var repoRoot, _ = filepath.Abs(filepath.Join("..", ".."))

// TestScripts runs the CLI scenarios in testdata/script: one file per behaviour.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HERMES_HOME", env.WorkDir+"/home")
			env.Setenv("HERMES_MANAGED_HOME", env.WorkDir+"/managed") // not the machine's /etc/hermes
			env.Setenv("HOME", env.WorkDir+"/userhome")
			env.Setenv("REPO", repoRoot) // the repository, for scripts that run its examples
			return nil
		},
		Condition: pythonCondition,
		Cmds:      map[string]func(ts *testscript.TestScript, neg bool, args []string){"cmpjson": cmpJSON, "exitcode": exitCode, "jsonobject": jsonObject, "receiver": receiver, "agentrun": agentRun, "waitserve": waitServe, "httpsproxy": httpsProxy, "pythonwith": pythonWith},
	})
}

// pythonCondition is [python]: python3 3.9 or later is on $PATH, or CI requires it (then a
// script that needs it fails where it is missing instead of being skipped).
// [pymod:M] is the same for a python3 that can import M (pythonWithModule).
func pythonCondition(cond string) (bool, error) {
	if module, ok := strings.CutPrefix(cond, "pymod:"); ok {
		return os.Getenv("HERMES_REQUIRE_PYTHON") != "" || pythonWithModule(module) != "", nil
	}
	if cond != "python" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if os.Getenv("HERMES_REQUIRE_PYTHON") != "" {
		return true, nil
	}
	out, err := exec.Command("python3", "-c", "import sys; print(sys.version_info >= (3, 9))").Output()
	return err == nil && strings.TrimSpace(string(out)) == "True", nil
}

// exitCode runs a command as exec does (its stdout and stderr are checked by the lines
// after it) and fails unless it exits with the given code: exitcode 3 hermesctl hooks doctor.
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// cmpJSON compares two JSON documents (a file name or "stdout") after setting every
// "duration_ms" to 0, since timings differ from run to run, and leaving out a top-level
// "home" (the test's own directory).
func cmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpjson stdout|file want.json")
	}
	read := func(name string) any {
		text := ts.ReadFile(name)
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			ts.Fatalf("%s is not JSON: %v\n%s", name, err, text)
		}
		return zeroDurations(v)
	}
	got, want := read(args[0]), read(args[1])
	for _, doc := range []any{got, want} { // the home is the test's own directory
		if m, ok := doc.(map[string]any); ok {
			delete(m, "home")
		}
	}
	if diff := cmp.Diff(want, got); (diff != "") != neg {
		ts.Fatalf("%s and %s differ (-want +got):\n%s", args[0], args[1], diff)
	}
}

// jsonObject fails unless a file (or stdout) holds one JSON object and nothing else:
// jsonobject stdout.
func jsonObject(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: jsonobject stdout|file")
	}
	text := ts.ReadFile(args[0])
	dec := json.NewDecoder(strings.NewReader(text))
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("%s is not a JSON object: %v\n%s", args[0], err, text)
	}
	if rest := strings.TrimSpace(text[dec.InputOffset():]); rest != "" {
		ts.Fatalf("%s holds more than one JSON object: %s", args[0], rest)
	}
}

func zeroDurations(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if _, ok := e.(float64); ok && k == "duration_ms" {
				x[k] = 0.0
			} else {
				x[k] = zeroDurations(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = zeroDurations(e)
		}
	}
	return v
}
