//go:build unix

package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

func withInstances(n int) func(*Hook) { return func(h *Hook) { h.Instances = n } }

// withCircuit opens the hook's circuit after `after` failures in a row for rest, on clk.
func withCircuit(after int, rest time.Duration, clk *testutil.Clock) func(*Hook) {
	return func(h *Hook) { h.circuitAfter, h.circuitRest, h.clock = after, rest, clk.Now }
}

func TestInstancesConfig(t *testing.T) {
	src := `hooks:
  pre_tool_call:
    - {command: a, persistent: true, instances: 4}
    - {command: b, persistent: true}
    - {command: c, persistent: true, instances: 0}
    - {command: d, persistent: true, instances: 17}
    - {command: e, persistent: true, instances: four}
    - {command: f, instances: 2}
`
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		t.Fatal(err)
	}
	hooks, warns := ParseHooks("config.yaml", root.Content[0].Content[1], testEvents)
	if len(hooks) != 6 {
		t.Fatalf("got %d hooks, want 6", len(hooks))
	}
	for i, want := range []int{4, 1, 1, 16, 1, 1} {
		if hooks[i].Instances != want {
			t.Errorf("hook %s: Instances = %d, want %d", hooks[i].Command, hooks[i].Instances, want)
		}
	}
	want := []string{
		"5: hooks.pre_tool_call[2]: instances must be from 1 to 16, got 0; using 1",
		"6: hooks.pre_tool_call[3]: instances must be from 1 to 16, got 17; using 16",
		`7: hooks.pre_tool_call[4]: instances must be a whole number from 1 to 16, got "four"; using 1`,
		"8: hooks.pre_tool_call[5]: instances is ignored without persistent: true (each firing runs its own process anyway)",
	}
	var got []string
	for _, w := range warns {
		got = append(got, fmt.Sprintf("%d: %s", w.Line, w.Msg))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// With instances: 4, four firings are answered at once: each process answers only once four
// requests are in flight (a file each in a directory), so with fewer processes at a time
// they would all wait for their timeout.
func TestInstancesServeConcurrently(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("INFLIGHT", dir)
	h := persistentHook(t, "pre_llm_call", `while IFS= read -r line; do
  : > "$INFLIGHT/$$"
  while [ "$(ls "$INFLIGHT" | wc -l)" -lt 4 ]; do sleep 0.01; done
  sid=${line#*'"session_id":"'}
  sid=${sid%%'"'*}
  printf '{"context":"%s:%s"}\n' "$$" "$sid"
done
`, withInstances(4), withTimeout(30*time.Second))
	var wg sync.WaitGroup
	var mu sync.Mutex
	pids := map[int]bool{}
	for g := range 4 {
		wg.Go(func() {
			sid := fmt.Sprint("s", g)
			res, pid := fire(t, h, context.Background(), sid, RunOptions{})
			if m, _ := value(res.Answer).(map[string]any); res.Status != hookspec.StatusOK || m["context"] != fmt.Sprintf("%d:%s", pid, sid) {
				t.Errorf("firing %s: status %q err %q value %v, want its own answer", sid, res.Status, res.Err, value(res.Answer))
			}
			mu.Lock()
			pids[pid] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(pids) != 4 || h.Starts() != 4 {
		t.Errorf("answered by %v after %d starts, want four processes", pids, h.Starts())
	}
}

// Firings one after another go to the instance used last: the others are never started.
func TestInstancesStartOnDemand(t *testing.T) {
	h := persistentHook(t, "pre_llm_call", loopPID, withInstances(4))
	pids := map[int]bool{}
	for i := range 10 {
		res, pid := fire(t, h, context.Background(), fmt.Sprint(i), RunOptions{})
		if res.Status != hookspec.StatusOK {
			t.Fatalf("firing %d: %q %s", i, res.Status, res.Err)
		}
		pids[pid] = true
	}
	if len(pids) != 1 || h.Starts() != 1 {
		t.Errorf("answered by %v after %d starts, want one process", pids, h.Starts())
	}
	h.Close()
	for pid := range pids {
		waitGone(t, pid)
	}
}

// A persistent guard that keeps timing out: after three timeouts in a row, firings fail at
// once (no process is started, nothing waits) and the fail_closed guard blocks; after the
// rest one firing tries a new process: while it still hangs, the same rest starts again
// (never longer, so a long outage is recovered from as promptly as a short one); once it
// answers, the circuit closes.
func TestPersistentCircuit(t *testing.T) {
	hang := filepath.Join(t.TempDir(), "hang")
	if err := os.WriteFile(hang, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HANG", hang)
	clk := testutil.NewClock(time.Unix(1000, 0))
	h := persistentHook(t, "pre_tool_call", ridSh+`while IFS= read -r line; do
  rid "$line"
  while [ -e "$HANG" ]; do sleep 0.05; done
  printf '{"request_id":"%s"}\n' "$r"
done
`, failClosed, withTimeout(200*time.Millisecond), withInstances(2), withCircuit(3, time.Minute, clk))

	for i := range 3 {
		res := terminal(h, RunOptions{}, "pwd")
		if res.Status != hookspec.StatusTimeout || !blocks(res) {
			t.Fatalf("firing %d: status %q answer %v, want a timeout that blocks", i+1, res.Status, value(res.Answer))
		}
	}
	starts := h.Starts()
	fast := func(when, rest string) {
		t.Helper()
		start := time.Now()
		res := terminal(h, RunOptions{}, "pwd")
		took := time.Since(start)
		t.Logf("%s: %v, %s", when, took, res.Err)
		if res.Status != hookspec.StatusError || !blocks(res) || !strings.Contains(res.Err, rest) ||
			!strings.Contains(res.Answer.Message, "failed closed (error)") || !strings.Contains(res.Err, "failing (") {
			t.Errorf("%s: status %q answer %v err %q, want a failure at once (%s) that blocks", when, res.Status, value(res.Answer), res.Err, rest)
		}
		if h.Starts() != starts {
			t.Errorf("%s: a process was started (%d starts, want %d)", when, h.Starts(), starts)
		}
	}
	for range 3 {
		fast("circuit open", "failing (3 failures in a row, last: timed out after 200ms); calls fail at once for 1m0s, then one call tries again")
	}
	for n := 4; n <= 6; n++ {
		clk.Add(time.Minute)
		if res := terminal(h, RunOptions{}, "pwd"); res.Status != hookspec.StatusTimeout || !blocks(res) {
			t.Errorf("the try after the rest: status %q, want a timeout that blocks", res.Status)
		}
		starts++
		fast("after a failed try", fmt.Sprintf("failing (%d failures in a row, last: timed out after 200ms); calls fail at once for 1m0s", n))
	}

	os.Remove(hang)
	fast("answering again, rest not over", "for 1m0s")
	h.Timeout = 30 * time.Second // the new process has time to start on a busy machine
	clk.Add(time.Minute)
	for i := range 3 {
		if res := terminal(h, RunOptions{}, "pwd"); res.Status != hookspec.StatusOK || blocks(res) || res.Err != "" {
			t.Errorf("firing %d after the rest: status %q answer %v err %q, want let through", i+1, res.Status, value(res.Answer), res.Err)
		}
	}
	if h.Starts() != starts+1 {
		t.Errorf("Starts = %d, want %d: one new process after the rest", h.Starts(), starts+1)
	}
}

// A cancelled firing says nothing about the process; an answer resets the count.
func TestPersistentCircuitCounts(t *testing.T) {
	clk := testutil.NewClock(time.Unix(1000, 0))
	h := persistentHook(t, "pre_llm_call", `while IFS= read -r line; do
  case "$line" in *hang*) sleep 60 ;; esac
  echo '{}'
done
`, withTimeout(200*time.Millisecond), withCircuit(2, time.Minute, clk))
	// Only a hanging firing has the short timeout: an answering one, which may start a
	// process, has time for it on a busy machine.
	run := func(sid string, ctx context.Context) Result {
		h.Timeout = 30 * time.Second
		if sid == "hang" {
			h.Timeout = 200 * time.Millisecond
		}
		res, _ := fire(t, h, ctx, sid, RunOptions{})
		return res
	}
	run("hang", context.Background())
	run("ok", context.Background())
	run("hang", context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if res := run("hang", ctx); res.Status != hookspec.StatusCancelled {
		t.Fatalf("status %q, want cancelled", res.Status)
	}
	if res := run("ok", context.Background()); res.Status != hookspec.StatusOK {
		t.Errorf("one timeout, an answer, a timeout, a cancellation: status %q err %q, want ok", res.Status, res.Err)
	}
	run("hang", context.Background())
	run("hang", context.Background())
	if res := run("ok", context.Background()); res.Status != hookspec.StatusError || !strings.Contains(res.Err, "2 failures in a row") {
		t.Errorf("after two timeouts in a row: status %q err %q, want a failure at once", res.Status, res.Err)
	}
}

// A firing that waited for the process while the firing before it timed out and opened the
// circuit fails at once when it gets the process, instead of trying a new one.
func TestPersistentCircuitOpensForWaiters(t *testing.T) {
	got := filepath.Join(t.TempDir(), "got")
	t.Setenv("GOT", got)
	clk := testutil.NewClock(time.Unix(1000, 0))
	h := persistentHook(t, "pre_tool_call", `while IFS= read -r line; do : > "$GOT"; sleep 60; done
`, failClosed, withTimeout(time.Second), withCircuit(1, time.Minute, clk))
	first := make(chan Result)
	go func() { first <- terminal(h, RunOptions{}, "pwd") }()
	readable(t, got) // the first firing holds the process
	// The waiting firing may wait longer than the first may run, so the first times out
	// (and opens the circuit) while the second surely still waits, however slowly the
	// first's process is killed. The first read its timeout before it took the hook's lock,
	// which Starts takes after it: the write below happens after that read.
	h.Starts()
	h.Timeout = 30 * time.Second
	res := terminal(h, RunOptions{}, "pwd")
	if r := <-first; r.Status != hookspec.StatusTimeout {
		t.Errorf("first firing: status %q, want a timeout", r.Status)
	}
	if res.Status != hookspec.StatusError || !blocks(res) || !strings.Contains(res.Err, "failing (1 failure in a row") || h.Starts() != 1 {
		t.Errorf("waiting firing: status %q err %q after %d starts, want a failure at once that blocks, one start", res.Status, res.Err, h.Starts())
	}
}

// readable waits until file exists (written by a hook's process).
func readable(t *testing.T, file string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(file); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", file)
		}
		time.Sleep(10 * time.Millisecond) // polling another process, not synchronising goroutines
	}
}
