//go:build unix

package serverbench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds hermesctl and opa (this module's `tool`) once per run, into a temporary
// directory, and returns their paths.
func binaries(tb testing.TB) (hermesctl, opa string) {
	tb.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "serverbench"); buildErr != nil {
			return
		}
		for bin, pkg := range map[string]string{"hermesctl": "github.com/hermes-hooks/hermes/cmd/hermesctl", "opa": "github.com/open-policy-agent/opa"} {
			// Both static, without cgo, as hermesctl is installed and OPA ships a static build.
			build := exec.Command("go", "build", "-o", filepath.Join(binDir, bin), pkg)
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
			out, err := build.CombinedOutput()
			if err != nil {
				buildErr = err
				tb.Logf("go build %s: %s", pkg, out)
				return
			}
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return filepath.Join(binDir, "hermesctl"), filepath.Join(binDir, "opa")
}

// claudeCall is the guard's blocked call as Claude Code sends it to a command hook.
const claudeCall = `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /","description":"clean"},"tool_use_id":"toolu_01"}`

// oneProcess is one decision made by a new process: its argv, its stdin, and what its
// stdout must hold.
type oneProcess struct {
	name  string
	argv  []string
	stdin string
	want  string
}

// BenchmarkProcessPerDecision measures one decision made by a new process, the payload on
// stdin and the answer on stdout: `hermesctl hook claude` with the guard's home (as Claude
// Code runs it, with Claude Code's payload) and `opa eval` of the Rego guard on the same call
// as the guard's kwargs, in turn in the same run. It reports the median wall-clock and CPU
// time of each and their ratios.
func BenchmarkProcessPerDecision(b *testing.B) {
	hermesctl, opa := binaries(b)
	env := append(os.Environ(), "HERMES_MANAGED_HOME="+b.TempDir())
	home := filepath.Join(b.TempDir(), "home") // a call keeps what it learns in its home's state/
	if err := os.CopyFS(home, os.DirFS(guardHome)); err != nil {
		b.Fatal(err)
	}
	kinds := []oneProcess{
		{"hermes", []string{hermesctl, "hook", "claude", "--home", home}, claudeCall, `"permissionDecision":"deny"`},
		{"opa", []string{opa, "eval", "--stdin-input", "--data", guardRego, "--format", "json", "data.guard.decision"},
			`{"tool_name":"terminal","args":{"command":"rm -rf /"}}`, `"action": "block"`},
	}
	for _, k := range kinds { // each answers the block
		if out, _ := runProcess(b, k, env); !strings.Contains(out, k.want) {
			b.Fatalf("%s answered %q, without %s", k.name, out, k.want)
		}
	}
	times := make([][]time.Duration, len(kinds))
	cpu := make([][]time.Duration, len(kinds))
	i := 0
	for b.Loop() {
		for j := range kinds { // the order alternates, so neither always runs first
			k := (i + j) % len(kinds)
			start := time.Now()
			_, used := runProcess(b, kinds[k], env)
			times[k] = append(times[k], time.Since(start))
			cpu[k] = append(cpu[k], used)
		}
		i++
	}
	med, medCPU := make([]float64, len(kinds)), make([]float64, len(kinds))
	for k, kind := range kinds {
		med[k], medCPU[k] = median(times[k]), median(cpu[k])
		b.ReportMetric(med[k], kind.name+"-p50-ms")
		b.ReportMetric(medCPU[k], kind.name+"-cpu-ms")
	}
	b.ReportMetric(med[0]/med[1], "hermes/opa")
	b.ReportMetric(medCPU[0]/medCPU[1], "cpu-hermes/opa")
	b.Logf("load average: %s", loadAverage())
}

// median is the median of ds, in ms.
func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2]) / float64(time.Millisecond)
}

// runProcess runs one decision's process and returns its stdout and the CPU time it used
// (user and system; unlike the wall clock, it barely moves when other processes compete
// for the cores).
func runProcess(b *testing.B, k oneProcess, env []string) (string, time.Duration) {
	cmd := exec.Command(k.argv[0], k.argv[1:]...)
	cmd.Stdin = strings.NewReader(k.stdin)
	cmd.Env = env
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v: %s", k.name, err, errs.String())
	}
	return out.String(), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func TestMain(m *testing.M) {
	if addr := os.Getenv(floorEnv); addr != "" { // a floor of BenchmarkServerProcesses
		fmt.Fprintln(os.Stderr, serveFloor(addr))
		os.Exit(1)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
