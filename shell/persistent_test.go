//go:build unix

package shell

import (
	"context"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// persistentHook builds a persistent hook running body as a /bin/sh script, closed at cleanup.
func persistentHook(t *testing.T, event, body string, mods ...func(*Hook)) *Hook {
	t.Helper()
	h := mkHook(t, event, quote(script(t, t.TempDir(), "loop.sh", body)), mods...)
	h.Persistent = true
	t.Cleanup(h.Close)
	return h
}

// loopPID answers {"context":"<pid>:<session_id>"} for every payload line.
const loopPID = `while IFS= read -r line; do
  sid=${line#*'"session_id":"'}
  sid=${sid%%'"'*}
  printf '{"context":"%s:%s"}\n' "$$" "$sid"
done
`

// fire runs h for session sid and returns the result and the pid that answered (0 if none).
func fire(t *testing.T, h *Hook, ctx context.Context, sid string, opts RunOptions) (Result, int) {
	t.Helper()
	res := h.Run(ctx, map[string]any{"session_id": sid}, opts)
	m, _ := value(res.Answer).(map[string]any)
	c, _ := m["context"].(string)
	pid, _ := strconv.Atoi(strings.SplitN(c, ":", 2)[0])
	return res, pid
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", file)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPersistentConfig(t *testing.T) {
	src := "hooks:\n  pre_tool_call:\n    - {command: a, persistent: true}\n    - {command: b, persistent: maybe}\n    - {command: c}\n"
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", root.Content[0].Content[1], testEvents)
	if len(hooks) != 3 {
		t.Fatalf("got %d hooks, want 3", len(hooks))
	}
	for i, want := range []bool{true, false, false} {
		if hooks[i].Persistent != want {
			t.Errorf("hook %d: Persistent = %v, want %v", i, hooks[i].Persistent, want)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Msg, `persistent must be true or false, got "maybe"`) || warns[0].Line != 4 {
		t.Errorf("warnings = %v, want one about persistent on line 4", warns)
	}
}

func TestPersistentOneProcessSerialised(t *testing.T) {
	h := persistentHook(t, "pre_llm_call", loopPID)
	const goroutines, firings = 8, 25
	var wg sync.WaitGroup
	var mu sync.Mutex
	pids := map[int]bool{}
	for g := range goroutines {
		wg.Go(func() {
			for i := range firings {
				sid := fmt.Sprintf("s-%d-%d", g, i)
				res, pid := fire(t, h, context.Background(), sid, RunOptions{})
				want := fmt.Sprintf("%d:%s", pid, sid)
				if m, _ := value(res.Answer).(map[string]any); res.Status != hookspec.StatusOK || res.Err != "" || m["context"] != want {
					t.Errorf("firing %s: status %q err %q value %v, want ok and context %q", sid, res.Status, res.Err, value(res.Answer), want)
				}
				mu.Lock()
				pids[pid] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(pids) != 1 || h.Starts() != 1 {
		t.Errorf("answered by pids %v after %d starts, want one process started once", pids, h.Starts())
	}
}

func TestPersistentRestartsAfterExit(t *testing.T) {
	// Exits after its second answer: the third firing finds it gone and restarts it.
	h := persistentHook(t, "pre_llm_call", `n=0
while IFS= read -r line; do
  n=$((n+1))
  printf '{"context":"%s"}\n' "$$"
  [ "$n" -ge 2 ] && exit 3
done
`)
	logs := &testutil.Buffer{}
	opts := RunOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}
	_, first := fire(t, h, context.Background(), "a", opts)
	_, second := fire(t, h, context.Background(), "b", opts)
	if first == 0 || first != second {
		t.Fatalf("pids %d then %d, want the same process twice", first, second)
	}
	waitGone(t, first)
	res, third := fire(t, h, context.Background(), "c", opts)
	if res.Status != hookspec.StatusOK || res.Err != "" || third == 0 || third == first {
		t.Errorf("after the exit: status %q err %q pid %d, want ok from a new process (old %d)", res.Status, res.Err, third, first)
	}
	if h.Starts() != 2 {
		t.Errorf("Starts = %d, want 2", h.Starts())
	}
	if l := logs.String(); !strings.Contains(l, "persistent shell hook restarted") || !strings.Contains(l, "exit status 3") {
		t.Errorf("logs = %q, want a restart warning naming exit status 3", l)
	}
}

func TestPersistentCrashWhileFiring(t *testing.T) {
	// Dies on its second payload without answering.
	body := `n=0
while IFS= read -r line; do
  n=$((n+1))
  [ "$n" -eq 2 ] && { echo boom >&2; exit 4; }
  printf '{"context":"%s"}\n' "$$"
done
`
	for _, fc := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail_closed=%v", fc), func(t *testing.T) {
			h := persistentHook(t, "pre_tool_call", body)
			h.FailClosed = fc
			logs := &testutil.Buffer{}
			opts := RunOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}
			kw := map[string]any{"tool_name": "terminal"}
			if res := h.Run(context.Background(), kw, opts); res.Status != hookspec.StatusOK {
				t.Fatalf("first firing: %q %q", res.Status, res.Err)
			}
			res := h.Run(context.Background(), kw, opts)
			if res.Status != hookspec.StatusError || res.ExitCode != 4 || !strings.Contains(res.Err, "exited without answering (exit status 4)") {
				t.Errorf("crashed firing: status %q exit %d err %q, want error, 4 and the exit status", res.Status, res.ExitCode, res.Err)
			}
			blk, _ := value(res.Answer).(map[string]any)
			if fc != (blk["action"] == "block") {
				t.Errorf("fail_closed=%v: value %v", fc, value(res.Answer))
			}
			if res := h.Run(context.Background(), kw, opts); res.Status != hookspec.StatusOK || res.Err != "" {
				t.Errorf("after the crash: status %q err %q, want ok", res.Status, res.Err)
			}
			if h.Starts() != 2 || !strings.Contains(logs.String(), "persistent shell hook restarted") {
				t.Errorf("Starts = %d, logs %q: want a restart with a warning", h.Starts(), logs.String())
			}
		})
	}
}

func TestPersistentTimeoutKillsAndRestarts(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "sleep.pid")
	h := persistentHook(t, "pre_llm_call", `while IFS= read -r line; do
  case "$line" in *hang*) sleep 60 & echo $! > '`+pidFile+`'; wait ;; esac
  printf '{"context":"%s"}\n' "$$"
done
`, withTimeout(300*time.Millisecond))
	logs := &testutil.Buffer{}
	opts := RunOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}
	_, leader := fire(t, h, context.Background(), "ok", opts)
	if leader == 0 {
		t.Fatal("no answer before the hang")
	}
	start := time.Now()
	res, _ := fire(t, h, context.Background(), "hang", opts)
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("the hung firing took %v, want about 300ms", elapsed)
	}
	if res.Status != hookspec.StatusTimeout || res.ExitCode != -1 || !strings.Contains(res.Err, "timed out after 300ms") {
		t.Errorf("hung firing: status %q exit %d err %q, want a timeout", res.Status, res.ExitCode, res.Err)
	}
	waitGone(t, leader)
	waitGone(t, readPID(t, pidFile)) // the whole process group was killed
	res, next := fire(t, h, context.Background(), "again", opts)
	if res.Status != hookspec.StatusOK || next == 0 || next == leader {
		t.Errorf("after the timeout: status %q pid %d, want ok from a new process", res.Status, next)
	}
	if l := logs.String(); !strings.Contains(l, "persistent shell hook restarted") || !strings.Contains(l, "timed out") {
		t.Errorf("logs = %q, want a restart warning after the timeout", l)
	}
}

func TestPersistentTimeoutFailsClosed(t *testing.T) {
	h := persistentHook(t, "pre_tool_call", "while IFS= read -r line; do sleep 60; done\n", failClosed, withTimeout(200*time.Millisecond))
	res := h.Run(context.Background(), toolKwargs, RunOptions{})
	blk, _ := value(res.Answer).(map[string]any)
	if res.Status != hookspec.StatusTimeout || blk["action"] != "block" || !strings.Contains(blk["message"].(string), "failed closed: timed out") {
		t.Errorf("status %q value %v, want a timeout that blocks", res.Status, value(res.Answer))
	}
}

func TestPersistentCancel(t *testing.T) {
	h := persistentHook(t, "pre_llm_call", loopPID, withTimeout(10*time.Second))
	_, pid := fire(t, h, context.Background(), "ok", RunOptions{})
	hang := persistentHook(t, "pre_llm_call", "while IFS= read -r line; do sleep 60; done\n", withTimeout(10*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := hang.Run(ctx, map[string]any{}, RunOptions{})
	if res.Status != hookspec.StatusCancelled || !strings.Contains(res.Err, "cancelled") || time.Since(start) > 3*time.Second {
		t.Errorf("status %q err %q after %v, want a prompt cancellation", res.Status, res.Err, time.Since(start))
	}
	if res, again := fire(t, h, context.Background(), "ok", RunOptions{}); res.Status != hookspec.StatusOK || again != pid {
		t.Errorf("the other hook: status %q pid %d, want ok from %d", res.Status, again, pid)
	}
}

func TestPersistentAnswers(t *testing.T) {
	h := persistentHook(t, "pre_tool_call", `while IFS= read -r line; do
  case "$line" in
    *long*) printf '{"action":"block","message":"%0200d"}\n' 1 ;;
    *garbage*) echo 'not json' ;;
    *empty*) echo ;;
    *) echo '{"decision":"block","reason":"from a line"}' ;;
  esac
done
`)
	opts := RunOptions{MaxOutput: 100}
	run := func(sid string) Result {
		return h.Run(context.Background(), map[string]any{"tool_name": "terminal", "session_id": sid}, opts)
	}
	if res := run("block"); res.Status != hookspec.StatusOK || value(res.Answer).(map[string]any)["message"] != "from a line" || res.Stdout != `{"decision":"block","reason":"from a line"}` {
		t.Errorf("block: %+v", res)
	}
	if res := run("empty"); res.Status != hookspec.StatusOK || value(res.Answer) != nil || res.Err != "" {
		t.Errorf("empty line: %+v, want no effect", res)
	}
	if res := run("garbage"); value(res.Answer) != nil || !strings.Contains(res.Err, "stdout is not valid JSON") {
		t.Errorf("garbage: %+v, want a malformed warning", res)
	}
	if h.Starts() != 1 {
		t.Errorf("Starts = %d after ordinary answers, want 1", h.Starts())
	}
	if res := run("long"); value(res.Answer) != nil || !strings.Contains(res.Err, "longer than 100 bytes") {
		t.Errorf("long: %+v, want the cap to apply", res)
	}
	if res := run("block"); res.Status != hookspec.StatusOK || value(res.Answer) == nil || h.Starts() != 2 {
		t.Errorf("after a long line: %+v, Starts %d; want a new process", res, h.Starts())
	}
}

func TestPersistentCloseLeavesNoProcess(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	h := persistentHook(t, "pre_llm_call", "sleep 60 &\necho $! > '"+pidFile+"'\n"+loopPID)
	_, leader := fire(t, h, context.Background(), "a", RunOptions{})
	child := readPID(t, pidFile)
	if leader == 0 || processGone(child) {
		t.Fatalf("leader %d child %d: want both running", leader, child)
	}
	h.Close()
	if !processGone(leader) {
		t.Errorf("leader %d still runs after Close returned", leader)
	}
	waitGone(t, child)
	if res, _ := fire(t, h, context.Background(), "b", RunOptions{}); res.Status != hookspec.StatusError || !strings.Contains(res.Err, "closed") {
		t.Errorf("after Close: status %q err %q, want an error", res.Status, res.Err)
	}
	h.Close() // twice is fine
}

func TestPersistentCloseWhileFiring(t *testing.T) {
	h := persistentHook(t, "pre_llm_call", loopPID)
	_, leader := fire(t, h, context.Background(), "warm", RunOptions{})
	var wg sync.WaitGroup
	running := make(chan struct{}, 4)
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				res := h.Run(context.Background(), map[string]any{"session_id": fmt.Sprintf("%d-%d", g, i)}, RunOptions{})
				if res.Status == hookspec.StatusTimeout {
					t.Errorf("unexpected timeout: %q", res.Err)
				}
				if i == 0 {
					running <- struct{}{}
				}
			}
		})
	}
	for range 4 { // every goroutine has fired once: Close lands among their firings
		<-running
	}
	h.Close()
	wg.Wait()
	waitGone(t, leader)
	if res, _ := fire(t, h, context.Background(), "late", RunOptions{}); res.Status != hookspec.StatusError {
		t.Errorf("after Close: status %q, want error", res.Status)
	}
}

func TestPersistentNoMatchNoStart(t *testing.T) {
	h := persistentHook(t, "pre_tool_call", loopPID)
	h.Matcher = "file"
	if res := h.Run(context.Background(), toolKwargs, RunOptions{}); res.Status != hookspec.StatusSkipped || h.Starts() != 0 {
		t.Errorf("status %q Starts %d, want skipped and nothing started", res.Status, h.Starts())
	}
}
