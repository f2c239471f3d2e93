package examples

import (
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/hookspec"
)

// The tools home: plugins on the tool hooks, and two shell hooks.

func terminal(id, command string) hookspec.ToolCall {
	return hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": command}, SessionID: "s1", TaskID: "t1", ToolCallID: id}
}

func TestToolAudit(t *testing.T) {
	home := install(t, "tools")
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	call := terminal("call-1", "ls -la /srv")
	if b := eng.DecideTool(ctx, call).Block; b != nil {
		t.Fatalf("ls was blocked: %+v", b)
	}
	call.Result, call.DurationMS = `{"output": "a\nb\n", "exit_code": 0}`, 12
	eng.PostToolCall(ctx, call)
	lines := readJSONLines(t, filepath.Join(home, "logs", "tool-audit.jsonl"))
	if len(lines) != 2 {
		t.Fatalf("%d audit lines, want 2 (pre and post): %v", len(lines), lines)
	}
	for _, l := range lines {
		if l["ts"] == nil {
			t.Errorf("no ts: %v", l)
		}
		delete(l, "ts")
	}
	args := `{"command":"ls -la /srv"}`
	want := []map[string]any{
		{"phase": "pre", "tool": "terminal", "session_id": "s1", "task_id": "t1", "tool_call_id": "call-1", "args": args},
		{"phase": "post", "tool": "terminal", "session_id": "s1", "task_id": "t1", "tool_call_id": "call-1", "args": args,
			"duration_ms": 12.0, "result_chars": float64(len(call.Result))},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("tool-audit.jsonl (-want +got):\n%s", diff)
	}
}

func TestDangerousTools(t *testing.T) {
	home := install(t, "tools")
	eng, logs := newEngine(t, home)
	ctx := context.Background()
	blocked := map[string]string{
		"mkfs.ext4 /dev/sda1":                        "formats a disk",
		"sudo dd if=/dev/zero of=/dev/nvme0n1 bs=1M": "overwrites a disk",
		":(){ :|:& };:":                              "is a fork bomb",
		"chmod -R 777 /":                             "makes every file writable by everyone",
	}
	for command, why := range blocked {
		b := eng.DecideTool(ctx, terminal("c", command)).Block
		if b == nil || b.Hook != "dangerous-tools" || !strings.Contains(b.Message, why) || !strings.Contains(b.Message, command) {
			t.Errorf("%q: block = %+v, want dangerous-tools saying it %s", command, b, why)
		}
	}
	for _, command := range []string{"ls -la", "dd if=a.img of=b.img", "chmod 644 notes.txt", "echo mkfs is a command"} {
		if b := eng.DecideTool(ctx, terminal("c", command)).Block; b != nil {
			t.Errorf("%q was blocked: %+v", command, b)
		}
	}
	if got := len(logLines(logs, "blocked a dangerous command")); got != len(blocked) {
		t.Errorf("%d 'blocked' log lines, want %d", got, len(blocked))
	}

	// Dangerous tools get a warning and go ahead; others pass silently.
	before := len(logLines(logs, "executing potentially dangerous tool: write_file"))
	if b := eng.DecideTool(ctx, hookspec.ToolCall{Name: "write_file", Args: map[string]any{"path": "x.go"}, SessionID: "s1"}).Block; b != nil {
		t.Errorf("write_file blocked: %+v", b)
	}
	if got := logLines(logs, "executing potentially dangerous tool: write_file"); len(got) != before+1 ||
		!strings.Contains(got[len(got)-1], "level=WARN") || !strings.Contains(got[len(got)-1], "plugin=dangerous-tools") {
		t.Errorf("no warning for write_file:\n%s", logs)
	}
	eng.DecideTool(ctx, hookspec.ToolCall{Name: "web_search", Args: map[string]any{"query": "weather"}})
	if strings.Contains(logs.String(), "dangerous tool: web_search") {
		t.Error("web_search was reported as dangerous")
	}
}

func TestToolMetrics(t *testing.T) {
	home := install(t, "tools")
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	calls := []hookspec.ToolCall{
		{Name: "terminal", Args: map[string]any{"command": "ls"}, Result: `{"output": "a"}`, DurationMS: 10},
		{Name: "terminal", Args: map[string]any{"command": "false"}, Result: `{"error": "exit status 1"}`, DurationMS: 30},
		{Name: "read_file", Args: map[string]any{"path": "a"}, Result: `not json at all`, DurationMS: 5},
	}
	for _, c := range calls {
		eng.PostToolCall(ctx, c)
	}
	data, err := os.ReadFile(filepath.Join(home, "logs", "tool-metrics.json"))
	if err != nil {
		t.Fatalf("no metrics file: %v", err)
	}
	var got struct {
		Updated string                    `json:"updated"`
		Tools   map[string]map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("tool-metrics.json: %v\n%s", err, data)
	}
	want := map[string]map[string]any{
		"terminal":  {"calls": 2.0, "errors": 1.0, "total_ms": 40.0, "max_ms": 30.0, "avg_ms": 20.0},
		"read_file": {"calls": 1.0, "errors": 0.0, "total_ms": 5.0, "max_ms": 5.0, "avg_ms": 5.0},
	}
	if diff := cmp.Diff(want, got.Tools); diff != "" || got.Updated == "" {
		t.Errorf("metrics (-want +got):\n%s(updated %q)", diff, got.Updated)
	}
}

func TestRedactSecrets(t *testing.T) {
	home := install(t, "tools")
	eng, logs := newEngine(t, home)
	ctx := context.Background()
	secrets := map[string]string{
		"sk-abcdefghijklmnopqrstuvwxyz0123456789":                                  "openai",
		"sk-proj-abcdefghijklmnopqrstuvwxyz_0123456789-ABCD":                       "openai",
		"sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789":                        "anthropic",
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789":                                 "github",
		"AKIAIOSFODNN7EXAMPLE":                                                     "aws",
		"xoxb-1234567890-abcdefghij":                                               "slack",
		"AIzaSyA-abcdefghijklmnopqrstuvwxyz01234":                                  "google",
		`-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIB\n-----END RSA PRIVATE KEY-----`: "private-key",
	}
	for secret, kind := range secrets {
		result := fmt.Sprintf(`{"content": "before %s after"}`, secret)
		got := eng.TransformToolResult(ctx, hookspec.ToolCall{Name: "read_file", Result: result})
		want := fmt.Sprintf(`{"content": "before [REDACTED:%s] after"}`, kind)
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", kind, got, want)
		}
	}
	// Nothing secret, or too short to be a key: unchanged.
	for _, result := range []string{`{"output": "hello"}`, `{"output": "sk-tooShort0123456789abcdefghijkl"}`} {
		if got := eng.TransformToolResult(ctx, hookspec.ToolCall{Name: "terminal", Result: result}); got != result {
			t.Errorf("%s changed to %s", result, got)
		}
	}
	if len(logLines(logs, "redacted secrets")) != len(secrets) {
		t.Errorf("want one 'redacted secrets' log line per redaction:\n%s", logs)
	}
}

func TestFindSummary(t *testing.T) {
	home := install(t, "tools")
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "/var/log/app/%05d.log\n", i)
	}
	huge := b.String() // 66 kB
	got := eng.TransformTerminalOutput(ctx, hookspec.TerminalOutput{Command: "find /var/log -name '*.log'", Output: huge})
	lines := strings.Split(huge, "\n")
	want := strings.Join(lines[:40], "\n") + "\n\n[summary: 3000 paths total, showing first 40]"
	if got != want {
		t.Errorf("summary =\n%.300s...\n%s\nwant the first 40 paths and the count", got, got[max(0, len(got)-80):])
	}
	small := "/etc/hosts\n/etc/passwd\n"
	if got := eng.TransformTerminalOutput(ctx, hookspec.TerminalOutput{Command: "find /etc -maxdepth 1", Output: small}); got != small {
		t.Errorf("small find output changed: %q", got)
	}
	if got := eng.TransformTerminalOutput(ctx, hookspec.TerminalOutput{Command: "cat big.log", Output: huge}); got != huge {
		t.Error("output of a command that is not find was changed")
	}
}

func TestBlockRmShellHook(t *testing.T) {
	needTools(t, "jq")
	home := install(t, "tools")
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	for _, command := range []string{"rm -rf /", "rm -rf / --no-preserve-root", "sudo rm -rf /*", "cd /tmp && rm -r -f /"} {
		b := eng.DecideTool(ctx, terminal("c", command)).Block
		if b == nil || b.Source != hookspec.SourceShell || b.Hook != "~/.hermes/agent-hooks/block-rm.sh" ||
			b.Message != "blocked: `"+command+"` would delete the whole filesystem" {
			t.Errorf("%q: block = %+v, want the shell hook's block", command, b)
		}
	}
	for _, command := range []string{"rm -rf /tmp/cache", "rm -rf ./build", "echo rm -rf /tmp"} {
		if b := eng.DecideTool(ctx, terminal("c", command)).Block; b != nil {
			t.Errorf("%q blocked: %+v", command, b)
		}
	}
	// The matcher limits the hook to the terminal tool.
	rep := eng.Fire(ctx, hookspec.PreToolCall, map[string]any{"tool_name": "execute_code", "args": map[string]any{"command": "rm -rf /"}})
	for _, h := range rep.Hooks {
		if h.Source == hookspec.SourceShell && h.Status != hookspec.StatusSkipped {
			t.Errorf("shell hook ran for execute_code: %+v", h)
		}
	}
	if rep.Block() != nil {
		t.Errorf("execute_code blocked: %+v", rep.Block())
	}
}

func TestAutoFormatShellHook(t *testing.T) {
	needTools(t, "jq", "gofmt")
	home := install(t, "tools")
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	dir := t.TempDir()
	ugly := "package main\nimport \"fmt\"\nfunc main(){fmt.Println( \"hi\" )}\n"
	pretty, err := format.Source([]byte(ugly))
	if err != nil {
		t.Fatal(err)
	}
	goFile, txtFile := filepath.Join(dir, "main.go"), filepath.Join(dir, "notes.txt")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write(goFile, ugly)
	write(txtFile, "  messy   text  \n")
	post := func(tool, path string) {
		eng.PostToolCall(ctx, hookspec.ToolCall{Name: tool, Args: map[string]any{"path": path, "content": "..."}, Result: `{"ok": true}`})
	}

	post("read_file", goFile) // matcher write_file|patch: not formatted
	if read(goFile) != ugly {
		t.Fatal("read_file triggered the formatter")
	}
	post("write_file", goFile)
	if got := read(goFile); got != string(pretty) {
		t.Errorf("after write_file, main.go =\n%s\nwant gofmt's output\n%s", got, pretty)
	}
	write(goFile, ugly)
	post("patch", goFile)
	if got := read(goFile); got != string(pretty) {
		t.Errorf("after patch, main.go is not formatted:\n%s", got)
	}
	post("write_file", txtFile)
	if read(txtFile) != "  messy   text  \n" {
		t.Error("a .txt file was changed")
	}

	// HERMES_FORMAT_CMD replaces the formatter, for every file.
	marker := filepath.Join(dir, "formatted")
	fake := filepath.Join(dir, "fake-fmt")
	write(fake, "#!/bin/sh\necho \"$1 $2\" >> "+marker+"\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HERMES_FORMAT_CMD", fake+" --in-place")
	post("write_file", txtFile)
	if got := strings.TrimSpace(read(marker)); got != "--in-place "+txtFile {
		t.Errorf("HERMES_FORMAT_CMD ran with %q, want %q", got, "--in-place "+txtFile)
	}
}

// TestShellHooksApproved checks the tools home's shell hooks load as a user's would: in the
// ~ form, approved by --accept-hooks, recorded in the home's allowlist.
func TestShellHooksApproved(t *testing.T) {
	home := install(t, "tools")
	eng, _ := newEngine(t, home)
	var got []string
	for _, s := range eng.ShellHooks() {
		got = append(got, s.Event+" "+s.Matcher+" "+s.Command+fmt.Sprint(" approved=", s.Consent.Approved))
		if _, err := exec.LookPath(filepath.Join(home, "agent-hooks", filepath.Base(s.Command))); err != nil {
			t.Errorf("%s is not executable: %v", s.Command, err)
		}
	}
	want := []string{
		"pre_tool_call terminal ~/.hermes/agent-hooks/block-rm.sh approved=true",
		"post_tool_call write_file|patch ~/.hermes/agent-hooks/auto-format.sh approved=true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shell hooks (-want +got):\n%s", diff)
	}
}

// The counters live in the store: a second engine on the home (another process, or this one
// restarted) adds to them rather than starting again, and the file shows the total.
func TestToolMetricsSharedByProcesses(t *testing.T) {
	home := install(t, "tools")
	ctx := context.Background()
	call := hookspec.ToolCall{Name: "web_search", Args: map[string]any{"query": "x"}, Result: `{}`, DurationMS: 4}
	a, _ := newEngine(t, home)
	b, _ := newEngine(t, home)
	for range 3 {
		a.PostToolCall(ctx, call)
		b.PostToolCall(ctx, call)
	}
	data, err := os.ReadFile(filepath.Join(home, "logs", "tool-metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools map[string]map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if m := got.Tools["web_search"]; m["calls"] != 6.0 || m["total_ms"] != 24.0 {
		t.Errorf("web_search = %v, want 6 calls and 24 ms from both engines", m)
	}
}
