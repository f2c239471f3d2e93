//go:build unix

package bench

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/server"
)

// The `rm -rf` guard as the three kinds of command hook Claude Code can run: hermesctl with
// the demo home (whose block-dangerous plugin is the guard), a python3 script and a bash +
// jq script doing the same check with the same answer.
const (
	agentPayload = `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /","description":"clean"},"tool_use_id":"toolu_01"}`
	pyGuard      = `import json, sys
p = json.load(sys.stdin)
if "rm -rf /" in p.get("tool_input", {}).get("command", ""):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "Blocked: rm -rf / is destructive and not permitted."}}, separators=(",", ":")))
`
	jqGuard = `#!/bin/bash
cmd=$(jq -r '.tool_input.command // ""')
if [[ "$cmd" == *"rm -rf /"* ]]; then
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Blocked: rm -rf / is destructive and not permitted."}}'
fi
`
)

var (
	hermesctlOnce sync.Once
	hermesctlBin  string
	hermesctlErr  error
)

// hermesctlBinary builds hermesctl once per run.
func hermesctlBinary(b *testing.B) string {
	hermesctlOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hermesctl-bench")
		if err != nil {
			hermesctlErr = err
			return
		}
		hermesctlBin = filepath.Join(dir, "hermesctl")
		// As the README installs it: static, without cgo.
		build := exec.Command("go", "build", "-o", hermesctlBin, "github.com/hermes-hooks/hermes/cmd/hermesctl")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			hermesctlErr = err
			b.Logf("%s", out)
		}
	})
	if hermesctlErr != nil {
		b.Fatal(hermesctlErr)
	}
	return hermesctlBin
}

// BenchmarkAgentHook measures one PreToolUse call of the rm -rf guard as Claude Code makes
// it (a new process, the payload on stdin, the JSON answer read from stdout) for
// `hermesctl hook claude` with the demo home, `hermesctl hook claude --server` asking a
// server on a unix socket, a python3 hook and a bash + jq hook, in turn in the same run.
// Each reports its median (p50-ms) and the ratios of the medians against python3 and
// bash + jq.
func BenchmarkAgentHook(b *testing.B) {
	for _, tool := range []string{"python3", "jq", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s is not installed", tool)
		}
	}
	bin := hermesctlBinary(b)
	dir := b.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.CopyFS(home, os.DirFS(filepath.Join("..", "..", "scripts", "examples", "demo", "home"))); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "guard.py"), []byte(pyGuard), 0o644)
	os.WriteFile(filepath.Join(dir, "guard.sh"), []byte(jqGuard), 0o755)
	sock := startServer(b, home, filepath.Join(dir, "s.sock"))
	kinds := []struct {
		name string
		argv []string
	}{
		{"hermesctl", []string{bin, "hook", "claude", "--home", home}},
		{"server", []string{bin, "hook", "claude", "--server", "unix:" + sock}},
		{"python3", []string{"python3", filepath.Join(dir, "guard.py")}},
		{"bash-jq", []string{filepath.Join(dir, "guard.sh")}},
	}
	times := make([][]time.Duration, len(kinds))
	for _, kind := range kinds { // each answers the same deny
		if out := runHook(b, kind.argv); !strings.Contains(out, `"permissionDecision":"deny"`) {
			b.Fatalf("%s answered %q, not the deny", kind.name, out)
		}
	}
	i := 0
	for b.Loop() {
		for j := range kinds { // the order rotates, so none always runs first
			k := (i + j) % len(kinds)
			start := time.Now()
			runHook(b, kinds[k].argv)
			times[k] = append(times[k], time.Since(start))
		}
		i++
	}
	med := make([]float64, len(kinds))
	for k, kind := range kinds {
		slices.Sort(times[k])
		med[k] = float64(times[k][len(times[k])/2]) / float64(time.Millisecond)
		b.ReportMetric(med[k], kind.name+"-p50-ms")
	}
	b.ReportMetric(med[0]/med[2], "hermesctl/python3")
	b.ReportMetric(med[0]/med[3], "hermesctl/bash-jq")
	b.ReportMetric(med[1]/med[2], "server/python3")
}

// runHook runs one command hook with the payload and returns its stdout.
func runHook(b *testing.B, argv []string) string {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(agentPayload)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("%v: %v", argv, err)
	}
	return out.String()
}

// startServer serves home's hooks on a unix socket until the benchmark ends.
func startServer(b *testing.B, home, sock string) string {
	eng, err := engine.New(context.Background(), engine.Options{Home: home, AcceptHooks: true})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Options{Engine: eng})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(l)
	b.Cleanup(func() { hs.Close(); eng.Close(context.Background()) })
	return sock
}
