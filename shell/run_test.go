//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// script writes an executable /bin/sh script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// quote single-quotes a path for a hook command.
func quote(path string) string { return "'" + path + "'" }

// mkHook builds a Hook as ParseHooks would, with a 10s timeout unless changed by mods.
func mkHook(t *testing.T, event, command string, mods ...func(*Hook)) *Hook {
	t.Helper()
	argv, err := SplitCommand(command)
	if err != nil {
		t.Fatalf("SplitCommand(%q): %v", command, err)
	}
	h := &Hook{Event: event, Command: command, Argv: argv, Timeout: 10 * time.Second}
	for _, m := range mods {
		m(h)
	}
	return h
}

func failClosed(h *Hook) { h.FailClosed = true }

func withTimeout(d time.Duration) func(*Hook) { return func(h *Hook) { h.Timeout = d } }

var toolKwargs = map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}, "session_id": "s"}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	spaced := filepath.Join(dir, "dir with spaces")
	if err := os.Mkdir(spaced, 0o755); err != nil {
		t.Fatal(err)
	}
	noExec := filepath.Join(dir, "noexec.sh")
	if err := os.WriteFile(noExec, []byte("#!/bin/sh\necho {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noShebang := filepath.Join(dir, "noshebang.sh")
	if err := os.WriteFile(noShebang, []byte("echo {}\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	badInterp := script(t, dir, "badinterp.sh", "")
	if err := os.WriteFile(badInterp, []byte("#!/no/such/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	block := func(msg string) any { return map[string]any{"action": "block", "message": msg} }
	long := strings.Repeat("e", 1000)
	tests := []struct {
		name       string
		event      string
		command    string
		failClosed bool
		status     hookspec.Status
		exit       int
		value      any
		err        string // substring of Err; "" means Err must be empty
	}{
		{"block", "pre_tool_call", quote(script(t, dir, "block.sh", `echo '{"action":"block","message":"no"}'`)),
			false, hookspec.StatusOK, 0, block("no"), ""},
		{"block and exit 1 still blocks", "pre_tool_call", quote(script(t, dir, "block1.sh", `echo '{"decision":"block","reason":"r"}'; exit 1`)),
			false, hookspec.StatusOK, 1, block("r"), "exited with status 1"},
		{"exit 2 blocks with stderr", "pre_tool_call", quote(script(t, dir, "exit2.sh", "echo '  dangerous command  ' >&2; exit 2")),
			false, hookspec.StatusOK, 2, block("dangerous command"), ""},
		{"exit 2 prefers the stdout block", "pre_tool_call", quote(script(t, dir, "exit2json.sh", `echo '{"action":"block","message":"json"}'; echo err >&2; exit 2`)),
			false, hookspec.StatusOK, 2, block("json"), ""},
		{"exit 2 without output", "pre_tool_call", quote(script(t, dir, "exit2empty.sh", "exit 2")),
			false, hookspec.StatusOK, 2, block(DefaultBlockMessage), ""},
		{"exit 2 caps the stderr message", "pre_tool_call", quote(script(t, dir, "exit2long.sh", "printf '"+long+"' >&2; exit 2")),
			false, hookspec.StatusOK, 2, block(long[:400]), ""},
		{"exit 2 elsewhere does not block", "post_tool_call", quote(script(t, dir, "exit2post.sh", "echo x >&2; exit 2")),
			false, hookspec.StatusOK, 2, nil, "exited with status 2"},
		{"malformed stdout is an error", "pre_tool_call", quote(script(t, dir, "garbage.sh", "echo not json")),
			false, hookspec.StatusError, 0, nil, `stdout is not valid JSON (invalid character 'o' in literal null (expecting 'u')): "not json"; print logs to stderr (>&2)`},
		{"a log line before the answer loses it", "pre_tool_call", quote(script(t, dir, "debug.sh", `echo checking; echo '{"action":"block","message":"no"}'`)),
			false, hookspec.StatusError, 0, nil, `stdout is not valid JSON`},
		{"transform", "transform_tool_result", quote(script(t, dir, "transform.sh", `echo '{"result":"redacted"}'`)),
			false, hookspec.StatusOK, 0, "redacted", ""},
		{"directory with spaces", "pre_tool_call", quote(script(t, spaced, "hook.sh", `echo '{"action":"block","message":"spaced '"$1"'"}'`)) + " arg",
			false, hookspec.StatusOK, 0, block("spaced arg"), ""},
		{"missing binary", "pre_tool_call", "no-such-binary-for-hermes-test --x",
			false, hookspec.StatusError, -1, nil, `shell hook "no-such-binary-for-hermes-test --x": cannot run no-such-binary-for-hermes-test: executable file not found in $PATH`},
		{"missing script", "pre_tool_call", filepath.Join(dir, "missing.sh"),
			false, hookspec.StatusError, -1, nil, "missing.sh: no such file or directory"},
		{"not executable", "pre_tool_call", noExec,
			false, hookspec.StatusError, -1, nil, fmt.Sprintf("cannot run %s: permission denied (make it executable: chmod +x %s)", noExec, noExec)},
		{"no shebang", "pre_tool_call", noShebang,
			false, hookspec.StatusError, -1, nil, "exec format error"},
		{"missing interpreter", "pre_tool_call", badInterp,
			false, hookspec.StatusError, -1, nil, "interpreter was not found"},
		{"a directory", "pre_tool_call", dir,
			false, hookspec.StatusError, -1, nil, "is a directory"},
		// fail_closed
		{"fail_closed missing binary", "pre_tool_call", "no-such-binary-for-hermes-test",
			true, hookspec.StatusError, -1, block(`shell hook "no-such-binary-for-hermes-test" failed closed (error)`), "not found"},
		{"fail_closed garbage", "pre_tool_call", quote(script(t, dir, "fcgarbage.sh", "echo Traceback")),
			true, hookspec.StatusError, 0, block(`shell hook "` + quote(filepath.Join(dir, "fcgarbage.sh")) + `" failed closed (error)`), "not valid JSON"},
		{"fail_closed array", "pre_tool_call", quote(script(t, dir, "fcarray.sh", "echo '[1, 2]'")),
			true, hookspec.StatusOK, 0, block(`shell hook "` + quote(filepath.Join(dir, "fcarray.sh")) + `" failed closed (error)`), "unparseable stdout (expected a JSON object)"},
		{"fail_closed empty lets through", "pre_tool_call", quote(script(t, dir, "fcempty.sh", "exit 0")),
			true, hookspec.StatusOK, 0, nil, ""},
		{"fail_closed {} lets through", "pre_tool_call", quote(script(t, dir, "fcobj.sh", "echo '{}'")),
			true, hookspec.StatusOK, 0, nil, ""},
		{"fail_closed exit 1 with no output lets through", "pre_tool_call", quote(script(t, dir, "fcexit1.sh", "exit 1")),
			true, hookspec.StatusOK, 1, nil, "exited with status 1"},
		{"fail_closed keeps a real block", "pre_tool_call", quote(script(t, dir, "fcblock.sh", `echo '{"action":"block","message":"mine"}'`)),
			true, hookspec.StatusOK, 0, block("mine"), ""},
		{"fail_closed ignored elsewhere", "post_tool_call", "no-such-binary-for-hermes-test",
			true, hookspec.StatusError, -1, nil, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mkHook(t, tt.event, tt.command)
			h.FailClosed = tt.failClosed
			res := h.Run(context.Background(), toolKwargs, RunOptions{})
			if res.Status != tt.status || res.ExitCode != tt.exit {
				t.Errorf("status %q exit %d, want %q exit %d (err %q)", res.Status, res.ExitCode, tt.status, tt.exit, res.Err)
			}
			if diff := cmp.Diff(tt.value, value(res.Answer)); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			if tt.err == "" && res.Err != "" || !strings.Contains(res.Err, tt.err) {
				t.Errorf("err = %q, want it to contain %q", res.Err, tt.err)
			}
		})
	}
}

func TestRunFailClosedTimeout(t *testing.T) {
	cmd := quote(script(t, t.TempDir(), "slow.sh", "sleep 30"))
	h := mkHook(t, "pre_tool_call", cmd, failClosed, withTimeout(time.Second))
	res := h.Run(context.Background(), toolKwargs, RunOptions{})
	want := map[string]any{"action": "block", "message": fmt.Sprintf("shell hook %q failed closed (timeout)", cmd)}
	if res.Status != hookspec.StatusTimeout {
		t.Errorf("status = %q, want timeout", res.Status)
	}
	if diff := cmp.Diff(any(want), value(res.Answer)); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Err, "timed out after 1s") {
		t.Errorf("err = %q, want it to say how long the hook ran", res.Err)
	}
}

// processGone reports whether pid no longer runs (gone, or a zombie nobody reaped yet).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func TestRunTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	cmd := quote(script(t, dir, "hang.sh", "sleep 60 &\necho $! > '"+pidFile+"'\nsleep 60\n"))
	h := mkHook(t, "post_tool_call", cmd, withTimeout(time.Second))

	start := time.Now()
	res := h.Run(context.Background(), toolKwargs, RunOptions{})
	elapsed := time.Since(start)

	if res.Status != hookspec.StatusTimeout || res.ExitCode != -1 {
		t.Errorf("status %q exit %d, want timeout -1", res.Status, res.ExitCode)
	}
	if !strings.Contains(res.Err, "timed out after 1s") {
		t.Errorf("err = %q, want a timeout message", res.Err)
	}
	// At least the timeout; the upper bound is loose, to tell a Run that timed out from one
	// that waited for the script's 60s sleep.
	if elapsed < time.Second || elapsed > 30*time.Second {
		t.Errorf("Run took %v, want about 1s", elapsed)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("child pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d still runs after the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunBackgroundChildHoldingStdout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	cmd := quote(script(t, dir, "bg.sh", "sleep 30 &\necho $! > '"+pidFile+"'\necho '{}'\n"))
	h := mkHook(t, "post_tool_call", cmd)
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	start := time.Now()
	res := h.Run(context.Background(), nil, RunOptions{})
	if elapsed := time.Since(start); elapsed > 20*time.Second { // a loose bound: the child sleeps 30s
		t.Errorf("Run took %v, want it not to wait for the background child", elapsed)
	}
	if res.Status != hookspec.StatusOK || res.ExitCode != 0 || res.Err != "" {
		t.Errorf("got status %q exit %d err %q, want ok 0 and no error", res.Status, res.ExitCode, res.Err)
	}
}

func TestRunContextCancel(t *testing.T) {
	h := mkHook(t, "post_tool_call", quote(script(t, t.TempDir(), "slow.sh", "sleep 30")))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res := h.Run(ctx, nil, RunOptions{})
	if res.Status != hookspec.StatusCancelled || !strings.Contains(res.Err, "cancelled") {
		t.Errorf("got status %q err %q, want cancelled and a cancel message", res.Status, res.Err)
	}
	res = h.Run(ctx, nil, RunOptions{}) // already done: not started
	if res.Status != hookspec.StatusCancelled || !strings.Contains(res.Err, "not started") {
		t.Errorf("got status %q err %q, want cancelled and not started", res.Status, res.Err)
	}
}

func TestRunPayloadOnStdin(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stdin.json")
	cmd := quote(script(t, dir, "dump.sh", "cat > '"+out+"'\npwd >> '"+out+".pwd'\n"))
	h := mkHook(t, "pre_tool_call", cmd)
	kwargs := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"},
		"session_id": "sess_abc123", "task_id": "t", "tool_call_id": "c"}
	res := h.Run(context.Background(), kwargs, RunOptions{Cwd: dir})
	if res.Status != hookspec.StatusOK || res.Err != "" {
		t.Fatalf("status %q err %q", res.Status, res.Err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("stdin was not JSON: %v\n%s", err, b)
	}
	want := map[string]any{
		"hook_event_name": "pre_tool_call",
		"tool_name":       "terminal",
		"tool_input":      map[string]any{"command": "rm -rf /"},
		"session_id":      "sess_abc123",
		"cwd":             dir,
		"extra":           map[string]any{"task_id": "t", "tool_call_id": "c"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
	pwd, _ := os.ReadFile(out + ".pwd")
	if strings.TrimSpace(string(pwd)) != dir {
		t.Errorf("hook ran in %q, want %q", strings.TrimSpace(string(pwd)), dir)
	}
}

func TestRunSkipsWhenMatcherDoesNotMatch(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	cmd := quote(script(t, dir, "touch.sh", "touch '"+marker+"'"))
	hooks, warns := ParseHooks("c.yaml", hooksNode(t, "hooks:\n  pre_tool_call:\n    - matcher: 'terminal|file'\n      command: \""+strings.ReplaceAll(cmd, `"`, `\"`)+"\"\n"), testEvents)
	if len(hooks) != 1 || len(warns) != 0 {
		t.Fatalf("got %d hooks and warnings %v", len(hooks), warns)
	}
	res := hooks[0].Run(context.Background(), map[string]any{"tool_name": "terminal2"}, RunOptions{})
	if res.Status != hookspec.StatusSkipped {
		t.Errorf("status = %q, want skipped", res.Status)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the hook was spawned although its matcher does not match")
	}
	if res = hooks[0].Run(context.Background(), map[string]any{"tool_name": "file"}, RunOptions{}); res.Status != hookspec.StatusOK {
		t.Errorf("status = %q for a matching tool, want ok", res.Status)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("the hook did not run for a matching tool")
	}
}

func TestRunOutputCap(t *testing.T) {
	const fiveMiB = 5 << 20
	cmd := quote(script(t, t.TempDir(), "flood.sh", fmt.Sprintf(
		"head -c %d /dev/zero | tr '\\0' a\nhead -c %d /dev/zero | tr '\\0' b >&2\n", fiveMiB, fiveMiB)))
	h := mkHook(t, "pre_tool_call", cmd, withTimeout(30*time.Second))
	res := h.Run(context.Background(), toolKwargs, RunOptions{MaxOutput: 64 << 10})
	if res.Status != hookspec.StatusOK {
		t.Fatalf("status = %q (%s), want ok", res.Status, res.Err)
	}
	if len(res.Stdout) != 64<<10 || len(res.Stderr) != 64<<10 {
		t.Errorf("captured %d/%d bytes, want %d each", len(res.Stdout), len(res.Stderr), 64<<10)
	}
	if !strings.Contains(res.Err, "stdout exceeded 65536 bytes") || res.Parsed != nil || value(res.Answer) != nil {
		t.Errorf("err %q parsed %v value %v, want truncated output treated as malformed", res.Err, res.Parsed, value(res.Answer))
	}
	h.FailClosed = true
	res = h.Run(context.Background(), toolKwargs, RunOptions{MaxOutput: 64 << 10})
	if m, _ := value(res.Answer).(map[string]any); m == nil || !strings.Contains(m["message"].(string), "failed closed (error)") || !strings.Contains(res.Err, "stdout exceeded") {
		t.Errorf("fail_closed value = %v, want a block about the truncated stdout", value(res.Answer))
	}
}

func TestRunConcurrent(t *testing.T) {
	h := mkHook(t, "post_llm_call", quote(script(t, t.TempDir(), "echo.sh", "cat")))
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Go(func() {
			id := fmt.Sprintf("session-%d", i)
			res := h.Run(context.Background(), map[string]any{"session_id": id}, RunOptions{Logger: nil})
			got, _ := res.Parsed.(map[string]any)
			if res.Status != hookspec.StatusOK || got["session_id"] != id {
				errs <- fmt.Sprintf("goroutine %d: status %q parsed session %v, want ok and %s", i, res.Status, got["session_id"], id)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A fail_closed hook's block, which the model sees as the tool's error, names the hook and
// how it failed, never where (a file it could not run, its output); the error, for the
// operator, says where.
func TestFailClosedBlockSaysWhatNotWhere(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "hidden-dir", "not-there.sh")
	for _, c := range []struct{ command, class, detail string }{
		{quote(script(t, dir, "chatty.sh", "echo reading "+dir+"/secret-notes")), "error", dir + "/secret-notes"},
		{quote(missing), "error", missing},
	} {
		h := mkHook(t, "pre_tool_call", c.command, failClosed)
		res := h.Run(context.Background(), toolKwargs, RunOptions{})
		want := fmt.Sprintf("shell hook %q failed closed (%s)", c.command, c.class)
		if res.Answer.Kind != hookspec.Block || res.Answer.Message != want {
			t.Errorf("%s: answer %+v, want the block %q", c.command, res.Answer, want)
		}
		if msg := strings.ReplaceAll(res.Answer.Message, c.command, ""); strings.Contains(msg, dir) {
			t.Errorf("%s: the block names a path of the host: %q", c.command, res.Answer.Message)
		}
		if !strings.Contains(res.Err, c.detail) {
			t.Errorf("%s: err %q, want the details (%q)", c.command, res.Err, c.detail)
		}
	}
}
