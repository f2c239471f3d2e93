//go:build unix

package shell

import (
	"context"
	"encoding/json"
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
	deadline := time.Now().Add(10 * time.Second)
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
	deadline := time.Now().Add(10 * time.Second)
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
	body := ridSh + `n=0
while IFS= read -r line; do
  n=$((n+1))
  [ "$n" -eq 2 ] && { echo boom >&2; exit 4; }
  rid "$line"
  printf '{"request_id":"%s"}\n' "$r"
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

// A firing that outlives its timeout is answered with a timeout at once, the hook's whole
// process group is killed (a child started by an earlier firing included) and the next
// firing starts a new process. Only the hung firing has the short timeout: the others,
// which start a process or answer, have time for it on a busy machine.
func TestPersistentTimeoutKillsAndRestarts(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "sleep.pid")
	h := persistentHook(t, "pre_llm_call", `while IFS= read -r line; do
  case "$line" in
    *'"session_id":"sleeper"'*) sleep 60 & echo $! > '`+pidFile+`' ;;
    *'"session_id":"hang"'*) wait ;;
  esac
  printf '{"context":"%s"}\n' "$$"
done
`, withTimeout(30*time.Second))
	logs := &testutil.Buffer{}
	opts := RunOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}
	_, leader := fire(t, h, context.Background(), "sleeper", opts)
	if leader == 0 {
		t.Fatal("no answer before the hang")
	}
	sleeper := readPID(t, pidFile) // written before the answer
	h.Timeout = 300 * time.Millisecond
	start := time.Now()
	res, _ := fire(t, h, context.Background(), "hang", opts)
	// A loose bound, to tell a firing that waited for the child's 60s from one that timed out.
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("the hung firing took %v, want about 300ms", elapsed)
	}
	if res.Status != hookspec.StatusTimeout || res.ExitCode != -1 || !strings.Contains(res.Err, "timed out after 300ms") {
		t.Errorf("hung firing: status %q exit %d err %q, want a timeout", res.Status, res.ExitCode, res.Err)
	}
	waitGone(t, leader)
	waitGone(t, sleeper) // the whole process group was killed
	h.Timeout = 30 * time.Second
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
	if res.Status != hookspec.StatusTimeout || blk["action"] != "block" || !strings.Contains(blk["message"].(string), "failed closed (timeout)") || !strings.Contains(res.Err, "timed out") {
		t.Errorf("status %q value %v, want a timeout that blocks", res.Status, value(res.Answer))
	}
}

func TestPersistentCancel(t *testing.T) {
	h := persistentHook(t, "pre_llm_call", loopPID, withTimeout(10*time.Second))
	_, pid := fire(t, h, context.Background(), "ok", RunOptions{})
	hang := persistentHook(t, "pre_llm_call", "while IFS= read -r line; do sleep 60; done\n", withTimeout(60*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := hang.Run(ctx, map[string]any{}, RunOptions{})
	// A loose bound, to tell a prompt cancellation from a wait for the hook's 60s timeout.
	if res.Status != hookspec.StatusCancelled || !strings.Contains(res.Err, "cancelled") || time.Since(start) > 30*time.Second {
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
	if h.Starts() != 1 {
		t.Errorf("Starts = %d after ordinary answers, want 1", h.Starts())
	}
	// A line that is not JSON may be a log line printed before the answer: the process is
	// out of step and started again.
	if res := run("garbage"); value(res.Answer) != nil || res.Status != hookspec.StatusError ||
		!strings.Contains(res.Err, `out of step: the answer to request 3-`) || !strings.Contains(res.Err, `is not JSON`) || !strings.Contains(res.Err, `"not json"`) {
		t.Errorf("garbage: %+v, want out of step naming the line", res)
	}
	if res := run("long"); value(res.Answer) != nil || !strings.Contains(res.Err, "longer than 100 bytes") || h.Starts() != 2 {
		t.Errorf("long: %+v, Starts %d; want the cap to apply in a new process", res, h.Starts())
	}
	if res := run("block"); res.Status != hookspec.StatusOK || value(res.Answer) == nil || h.Starts() != 3 {
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

// ridSh is a shell function for persistent test scripts: rid "$line" sets r to the payload's
// request_id ("" when it has none).
const ridSh = `rid() { case $1 in *'"request_id":"'*) r=${1#*'"request_id":"'}; r=${r%%'"'*} ;; *) r= ;; esac; }
`

// guardSh is a guard that echoes the request id: it blocks `rm -rf` and lets everything else
// through. Once (the first time, as long as the file $MARK does not exist) it misbehaves as
// $ONCE says, with $EXTRA: "before" prints it before the answer, "with" prints it with the
// answer (one write), "after" prints it after the answer, "wrongid" answers with it as the
// request id, "die" exits without answering.
const guardSh = ridSh + `while IFS= read -r line; do
  rid "$line"
  once=
  if [ -n "$ONCE" ] && [ ! -e "$MARK" ]; then
    : > "$MARK"
    once=$ONCE
  fi
  case $once in
    before) printf '%s\n' "$EXTRA" ;;
    wrongid) r=$EXTRA ;;
    die) exit 5 ;;
  esac
  case $line in
    *'rm -rf'*) ans=$(printf '{"request_id":"%s","action":"block","message":"no rm -rf"}' "$r") ;;
    *) ans=$(printf '{"request_id":"%s"}' "$r") ;;
  esac
  case $once in
    with) printf '%s\n%s\n' "$ans" "$EXTRA" ;;
    after) printf '%s\n' "$ans"; printf '%s\n' "$EXTRA" ;;
    *) printf '%s\n' "$ans" ;;
  esac
done
`

// stepGuard is a fail_closed pre_tool_call guard (guardSh) that misbehaves once as once says.
func stepGuard(t *testing.T, once, extra string, mods ...func(*Hook)) *Hook {
	t.Helper()
	t.Setenv("ONCE", once)
	t.Setenv("EXTRA", extra)
	t.Setenv("MARK", filepath.Join(t.TempDir(), "misbehaved"))
	return persistentHook(t, "pre_tool_call", guardSh, append([]func(*Hook){failClosed}, mods...)...)
}

// terminal runs h for a terminal command.
func terminal(h *Hook, opts RunOptions, command string) Result {
	kw := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": command}, "session_id": "s"}
	return h.Run(context.Background(), kw, opts)
}

func blocks(res Result) bool { return res.Answer.Kind == hookspec.Block }

// checkInStep checks that h, after misbehaving once, answers every later call in step: pwd is
// let through without a problem, rm -rf is blocked by the guard's own message.
func checkInStep(t *testing.T, h *Hook, opts RunOptions, starts int) {
	t.Helper()
	for i := range 3 {
		if res := terminal(h, opts, "pwd"); blocks(res) || res.Err != "" || res.Status != hookspec.StatusOK {
			t.Errorf("later pwd %d: status %q answer %v err %q, want let through", i, res.Status, value(res.Answer), res.Err)
		}
		if res := terminal(h, opts, "rm -rf /"); res.Answer.Message != "no rm -rf" || res.Err != "" {
			t.Errorf("later rm -rf / %d: answer %v err %q, want the guard's own block", i, value(res.Answer), res.Err)
		}
	}
	if h.Starts() != starts {
		t.Errorf("Starts = %d, want %d (one restart)", h.Starts(), starts)
	}
}

func TestPersistentExtraLineBeforeAnswer(t *testing.T) {
	// The guard prints "{}" before its first answer. Read one line per call, every answer
	// after it would come one call late: the rm -rf / call would get pwd's "{}" and pass.
	h := stepGuard(t, "before", "{}")
	logs := &testutil.Buffer{}
	opts := RunOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}
	first := terminal(h, opts, "pwd")
	if !blocks(first) || first.Status != hookspec.StatusError || !strings.Contains(first.Err, "out of step") || !strings.Contains(first.Err, `"{}"`) {
		t.Errorf("pwd with an extra line: status %q answer %v err %q, want out of step naming the line, failed closed", first.Status, value(first.Answer), first.Err)
	}
	if res := terminal(h, opts, "rm -rf /"); !blocks(res) {
		t.Fatalf("rm -rf / after the extra line: status %q answer %v err %q: let through", res.Status, value(res.Answer), res.Err)
	}
	checkInStep(t, h, opts, 2)
	if l := logs.String(); !strings.Contains(l, "persistent shell hook restarted") || !strings.Contains(l, "out of step") {
		t.Errorf("logs = %q, want a restart warning naming the cause", l)
	}
}

func TestPersistentExtraLineAfterAnswer(t *testing.T) {
	// The guard prints "{}" after its first answer. The extra line is seen right after the
	// answer, before the next payload is written, or as the answer of the next call: in every
	// case the rm -rf / call is blocked and the process restarted.
	h := stepGuard(t, "after", "{}")
	opts := RunOptions{}
	first := terminal(h, opts, "pwd")
	if res := terminal(h, opts, "rm -rf /"); !blocks(res) {
		t.Fatalf("rm -rf / after the extra line: status %q answer %v err %q: let through", res.Status, value(res.Answer), res.Err)
	} else if !strings.Contains(first.Err+res.Err, `"{}"`) || !strings.Contains(first.Err+res.Err, "out of step") {
		t.Errorf("errors %q and %q, want one naming the extra line", first.Err, res.Err)
	}
	checkInStep(t, h, opts, 2)
}

func TestPersistentOutOfStepFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		name, once, extra string
		want              []string // in the error of the first call, which fails closed
	}{
		{"log line before the answer", "before", "starting up", []string{"out of step: the answer to request 1-", "is not JSON", `"starting up"`, "print logs to stderr"}},
		{"answer line before the answer", "before", `{"request_id":"1-0","action":"allow"}`, []string{`carries request_id "1-0"`}},
		{"answer with another request's id", "wrongid", "0-STALE", []string{"out of step: the answer to request 1-", `carries request_id "0-STALE"`}},
		{"dies without answering", "die", "", []string{"exited without answering (exit status 5)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stepGuard(t, tc.once, tc.extra)
			logs := &testutil.Buffer{}
			opts := RunOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}
			first := terminal(h, opts, "pwd")
			if !blocks(first) || !strings.Contains(first.Answer.Message, "failed closed") || first.Status != hookspec.StatusError {
				t.Errorf("first call: status %q answer %v, want an error that fails closed", first.Status, value(first.Answer))
			}
			for _, w := range tc.want {
				if !strings.Contains(first.Err, w) {
					t.Errorf("first call: err %q, want %q in it", first.Err, w)
				}
			}
			if res := terminal(h, opts, "rm -rf /"); !blocks(res) {
				t.Fatalf("rm -rf / after it: status %q err %q: let through", res.Status, res.Err)
			}
			checkInStep(t, h, opts, 2)
			if !strings.Contains(logs.String(), "persistent shell hook restarted") {
				t.Errorf("logs = %q, want a restart warning", logs.String())
			}
		})
	}
}

func TestPersistentExtraLineWithVerifiedAnswer(t *testing.T) {
	// A line printed together with an answer that carries the right id: the answer stands,
	// the line is reported and the process restarted.
	h := stepGuard(t, "with", "debug: checked")
	first := terminal(h, RunOptions{}, "rm -rf /")
	if first.Answer.Message != "no rm -rf" || first.Status != hookspec.StatusOK ||
		!strings.Contains(first.Err, `out of step: printed the line "debug: checked" after its answer to request 1-`) {
		t.Errorf("first call: status %q answer %v err %q, want the guard's block and the extra line reported", first.Status, value(first.Answer), first.Err)
	}
	checkInStep(t, h, RunOptions{}, 2)
}

func TestPersistentOutOfStepFailsOpen(t *testing.T) {
	// Without fail_closed, a process out of step is a hook error, as any other failure.
	h := stepGuard(t, "before", "starting up", func(h *Hook) { h.FailClosed = false })
	first := terminal(h, RunOptions{}, "rm -rf /")
	if blocks(first) || first.Status != hookspec.StatusError || !strings.Contains(first.Err, `"starting up"`) {
		t.Errorf("first call: status %q answer %v err %q, want an error that does not block", first.Status, value(first.Answer), first.Err)
	}
	checkInStep(t, h, RunOptions{}, 2)
}

func TestPersistentWithoutRequestID(t *testing.T) {
	// Scripts written before request ids answer one line per payload line and still work,
	// unless they print more than one line for a payload.
	mark := filepath.Join(t.TempDir(), "misbehaved")
	h := persistentHook(t, "pre_llm_call", `n=0
while IFS= read -r line; do
  n=$((n+1))
  if [ "$n" -eq 2 ] && [ ! -e '`+mark+`' ]; then
    : > '`+mark+`'
    printf '{"context":"two"}\n{"context":"late"}\n'
  else
    printf '{"context":"%s"}\n' "$n"
  fi
done
`)
	var errs []string
	for i := range 5 {
		res := h.Run(context.Background(), map[string]any{}, RunOptions{})
		if res.Answer.Text == "late" {
			t.Errorf("call %d: answered %q, the extra line of call 2", i+1, res.Answer.Text)
		}
		if res.Err != "" {
			errs = append(errs, res.Err)
		}
		if i == 0 && (res.Answer.Text != "1" || res.Err != "") {
			t.Errorf("call 1: answer %v err %q, want context 1", value(res.Answer), res.Err)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], `"{\"context\":\"late\"}"`) || !strings.Contains(errs[0], "echo the request_id") {
		t.Errorf("errors %q, want one naming the extra line", errs)
	}
	if h.Starts() != 2 {
		t.Errorf("Starts = %d, want 2", h.Starts())
	}

	// fail_closed needs the id: an answer without it cannot be told from a late one.
	fc := persistentHook(t, "pre_tool_call", "while IFS= read -r line; do echo '{}'; done\n", failClosed)
	res := fc.Run(context.Background(), toolKwargs, RunOptions{})
	if !blocks(res) || !strings.Contains(res.Err, `has no request_id: "{}"`) || !strings.Contains(res.Err, "a fail_closed persistent hook must echo the request_id") {
		t.Errorf("fail_closed without ids: answer %v err %q, want a block saying to echo the request_id", value(res.Answer), res.Err)
	}
}

func TestPersistentFlood(t *testing.T) {
	// A process that prints lines without end is out of step and killed; it holds nothing up.
	h := persistentHook(t, "pre_tool_call", "IFS= read -r line\nwhile :; do echo '{}'; done\n", failClosed)
	res := h.Run(context.Background(), toolKwargs, RunOptions{})
	if !blocks(res) || !strings.Contains(res.Err, "out of step") {
		t.Errorf("answer %v err %q, want out of step, failed closed", value(res.Answer), res.Err)
	}
}

func TestPersistentRequestIDs(t *testing.T) {
	// Each payload line starts with its own request_id; the rest is the ordinary payload.
	dir := t.TempDir()
	got := filepath.Join(dir, "lines")
	h := persistentHook(t, "pre_tool_call", `while IFS= read -r line; do printf '%s\n' "$line" >> '`+got+`'; echo; done`+"\n")
	for range 3 {
		if res := h.Run(context.Background(), toolKwargs, RunOptions{Cwd: dir}); res.Status != hookspec.StatusOK || res.Err != "" {
			t.Fatalf("status %q err %q", res.Status, res.Err)
		}
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := BuildPayload("pre_tool_call", toolKwargs, dir)
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		prefix := fmt.Sprintf(`{"request_id":"%d-`, i+1)
		var m map[string]any
		if !strings.HasPrefix(line, prefix) || json.Unmarshal([]byte(line), &m) != nil {
			t.Fatalf("line %d = %q, want JSON starting with %s", i+1, line, prefix)
		}
		id := m["request_id"].(string)
		if seen[id] || !strings.HasSuffix(line, string(want[1:len(want)-1])) {
			t.Errorf("line %d = %q: id repeated or payload %s changed", i+1, line, want)
		}
		seen[id] = true
	}
	if len(seen) != 3 {
		t.Errorf("%d ids, want 3", len(seen))
	}
}
