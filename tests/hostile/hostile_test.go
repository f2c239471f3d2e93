//go:build unix

package hostile

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// An attack is a plugin named "attack" (priority 10) beside a plugin named "witness"
// (priority 0) that blocks every call with the message "witness answered". The child fires
// pre_tool_call once per command and reports what happened.
type attack struct {
	name     string
	handler  string   // handler.lua of the attack plugin
	manifest string   // extra plugin.yaml lines
	commands []string // one pre_tool_call per command; default: one "ls"
	setup    func(t *testing.T, home string)

	status  hookspec.Status // the attack's status on every call ("" = not loaded)
	errHas  string          // in the attack's error
	blocks  []string        // per command, the block message wanted; default "witness answered"
	maxCall time.Duration   // the longest one call may take
	heavy   bool            // allocates hundreds of MiB: not run under the race detector
	rss     int64           // the child's peak resident memory allowed, when below maxRSS
}

// hook wraps body as the attack's pre_tool_call callback.
func hook(body string) string {
	return "function register(ctx)\n  HOME = ctx.home\n  ctx.register_hook('pre_tool_call', function(kw)\n" + body + "\n  end)\nend\n"
}

const maxRSS = 1536 << 20 // peak resident memory allowed to the child, default limits

// libraryCallRSS is the peak resident memory allowed to a child whose attack is one library
// call under the default memory limit (256 MiB): the limit, the engine and the Go heap's
// headroom.
const libraryCallRSS = 640 << 20

// libraryCallLimit is how long a call with `timeout: 1` stuck in one library call may take:
// the promise is the timeout and 100ms, the margin is for a loaded machine (the measured
// times are logged).
const libraryCallLimit = 3 * time.Second

var attacks = []attack{
	{name: "table.concat of a shared string", handler: hook(`local s = string.rep("x", 16*2^20); local t = {} for i = 1, 2000 do t[i] = s end
    return {context = #table.concat(t)}`), status: hookspec.StatusError, errHas: "limit exceeded"},
	{name: "gsub with a large replacement", handler: hook(`return #string.gsub(string.rep("x", 1024), "x", string.rep("y", 2^20))`),
		status: hookspec.StatusError, errHas: "limit exceeded"},
	// json.encode writes 64 MiB before it passes the limit: a second, or several under the
	// race detector on a busy machine, which the default 5s timeout could cut short.
	{name: "json.encode of one string many times", handler: hook(`local s = string.rep("x", 2^20); local t = {} for i = 1, 2000 do t[i] = s end
    return #require("json").encode(t)`), manifest: "timeout: 30\n", status: hookspec.StatusError, errHas: "limit exceeded"},
	{name: "string.format with many %s", handler: hook(`local s = string.rep("x", 16*2^20); local t = {} for i = 1, 99 do t[i] = s end
    return #string.format(string.rep("%s", 99), unpack(t))`), status: hookspec.StatusError, errHas: "limit exceeded"},
	{name: "one long concatenation", handler: hook(`local s = string.rep("x", 16*2^20)
    return #(s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s)`),
		status: hookspec.StatusError, errHas: "limit exceeded"},
	{name: "re.gsub with a large replacement", handler: hook(`return #require("re").gsub(string.rep("x", 1024), "x", string.rep("y", 2^20))`),
		manifest: "timeout: 60\n", status: hookspec.StatusError, errHas: "limit exceeded"},
	{name: "allocations between sleeps", handler: hook(`local t = {} for i = 1, 600 do t[i] = string.rep("x", 2^20) .. i; require("time").sleep(0.002) end
    return #t`), manifest: "timeout: 60\n", status: hookspec.StatusError, errHas: "limit exceeded: memory"},
	{name: "pathological pattern", handler: hook(`return string.find(string.rep("a", 5000), "a-a-a-b")`), manifest: "timeout: 1\n",
		status: hookspec.StatusTimeout, maxCall: 2 * time.Second},
	{name: "pathological pattern, short", handler: hook(`return string.find(string.rep("a", 300), "a-a-a-b")`), manifest: "timeout: 1\n",
		status: hookspec.StatusTimeout, maxCall: 2 * time.Second},
	{name: "gsub with an empty pattern", handler: hook(`local n = #string.gsub(string.rep("x", 262144), "", "")`), manifest: "timeout: 1\n",
		status: hookspec.StatusOK, maxCall: 2 * time.Second},
	// Library calls that run Go code over a large input stop at the timeout, or refuse
	// at once what could not finish in it; their results count against the memory limit.
	{name: "re.match of a long pattern over 1 MiB", handler: hook(`return {context = tostring(require("re").match(string.rep("a", 2^20), "a{900}b"))}`),
		manifest: "timeout: 1\n", status: hookspec.StatusTimeout, maxCall: libraryCallLimit},
	{name: "re.find over 64 MiB", handler: hook(`return {context = tostring(require("re").find(string.rep("a", 2^26 - 1), "[ab]{10}[cd]"))}`),
		manifest: "timeout: 1\n", status: hookspec.StatusTimeout, maxCall: libraryCallLimit},
	{name: "re.find_all searching to the end after every match", handler: hook(`return {context = #require("re").find_all(string.rep("x", 2^18), "x.*y|x")}`),
		manifest: "timeout: 1\n", status: hookspec.StatusTimeout, maxCall: libraryCallLimit},
	{name: "re.gsub searching to the end after every match", handler: hook(`return {context = require("re").gsub(string.rep("x", 2^18), "x.*y|x", "z")}`),
		manifest: "timeout: 1\n", status: hookspec.StatusTimeout, maxCall: libraryCallLimit},
	{name: "re.quote of 64 MiB of dots", handler: hook(`local n = #require("re").quote(string.rep(".", 2^26 - 1))`),
		status: hookspec.StatusError, errHas: "limit exceeded: re.quote", maxCall: libraryCallLimit, rss: libraryCallRSS},
	{name: "re.match that cannot finish in time", handler: hook(`return {context = tostring(require("re").match(string.rep("a", 2^18), "(?:a|aa){0,1000}[bc]"))}`),
		manifest: "timeout: 1\n", status: hookspec.StatusError, errHas: "limit exceeded: re.match", maxCall: libraryCallLimit},
	{name: "re.find_all of 64 Mi matches", handler: hook(`return {context = #require("re").find_all(string.rep("a", 2^26 - 1), "a")}`),
		manifest: "timeout: 10\n", status: hookspec.StatusError, errHas: "limit exceeded", maxCall: 10 * time.Second, heavy: true},
	// os.date builds its result one conversion at a time: a 20 MB format of "%c" would make
	// 190 MB. It looks at the timeout while it works, and what it builds counts against the
	// memory limit and the size of a string.
	{name: "os.date of a 20 MB format", handler: hook(`return {context = #os.date(string.rep("%c", 1e7))}`),
		manifest: "timeout: 0.25\n", status: hookspec.StatusTimeout, maxCall: libraryCallLimit, rss: libraryCallRSS},
	{name: "os.date of a 4 MB format under a 16 MiB limit", handler: hook(`return {context = #os.date(string.rep("%c", 2e6))}`),
		manifest: "memory: 16MiB\n", status: hookspec.StatusError, errHas: "limit exceeded: memory", maxCall: libraryCallLimit, rss: libraryCallRSS},
	// It finishes (no timeout), so its time is the work's: the bound only catches a hang
	// (3.3 s was seen beside a parallel build); the memory is what it checks.
	{name: "os.date of ten million %%", handler: hook(`local n = #os.date(string.rep("%%", 1e7))`),
		status: hookspec.StatusOK, maxCall: 20 * time.Second, rss: libraryCallRSS},
	// table.sort compares in Go, n log n times, as one instruction: it looks at the timeout
	// while it compares (2^21 short strings took 10.5 s when it did not; these 2^17, each
	// sharing a long prefix with the others, far longer).
	{name: "table.sort of 2^17 long strings", handler: sortAttack("table.sort(t)"),
		manifest: "timeout: 1\n", status: hookspec.StatusTimeout, maxCall: libraryCallLimit},
	{name: "table.sort of 2^17 long strings, nil comparison function", handler: sortAttack("table.sort(t, nil)"),
		manifest: "timeout: 1\n", status: hookspec.StatusTimeout, maxCall: libraryCallLimit},
	{name: "table.sort of 2^17 long strings, a comparison function", handler: sortAttack("table.sort(t, function(a, b) return a < b end)"),
		manifest: "timeout: 1\n", status: hookspec.StatusTimeout, maxCall: libraryCallLimit},
	{name: "json.decode of 64 MiB", handler: hook(`return {context = #require("json").decode("[" .. string.rep("1,", 2^25 - 2) .. "1]")}`),
		manifest: "timeout: 60\n", status: hookspec.StatusError, errHas: "limit exceeded: memory", maxCall: 20 * time.Second},
	{name: "json.decode of 64 MiB of objects", handler: hook(`return {context = #require("json").decode("[" .. string.rep('{"a":"b"},', 2^26 / 10 - 1) .. "1]")}`),
		manifest: "timeout: 60\n", status: hookspec.StatusError, errHas: "limit exceeded: memory", maxCall: 20 * time.Second},
	{name: "nesting in handler.lua", handler: "return " + strings.Repeat("{", 1_000_000) + strings.Repeat("}", 1_000_000),
		status: 0, errHas: "too many syntax levels"},
	{name: "nesting in loadstring", handler: hook(`return assert(loadstring("return " .. string.rep("{", 1e6) .. string.rep("}", 1e6)))()`),
		status: hookspec.StatusError, errHas: "too many syntax levels"},
	{name: "log flood", handler: hook(`local log = require("log") for i = 1, 1e6 do log.warn("flood " .. i) end`),
		manifest: "timeout: 30\n", status: hookspec.StatusOK},
	{name: "FIFO in an allowed folder", handler: hook(`local f, err = io.open(HOME .. "/data/fifo", "r") return {context = tostring(err)}`),
		manifest: "timeout: 1\npermissions: {fs: [data]}\n", status: hookspec.StatusError, errHas: "regular",
		maxCall: 2 * time.Second, setup: func(t *testing.T, home string) {
			if err := syscall.Mkfifo(filepath.Join(home, "data", "fifo"), 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}},
	// Memory, counted where the interpreter allocates: each attack fails its own call, in a
	// process that stays under maxRSS; valid programs that look like attacks run.
	{name: "sparse table key", handler: hook(`local t = {} t[67108863] = 1 assert(t[67108863] == 1 and #t == 0)`),
		status: hookspec.StatusOK, maxCall: time.Second},
	{name: "tail-call loop", handler: hook(`local function f() return f() end f()`), manifest: "timeout: 1\n",
		status: hookspec.StatusTimeout, maxCall: 3 * time.Second},
	{name: "memory attacks one after another", handler: memoryAttacks, manifest: "timeout: 60\n",
		commands: slices.Sorted(maps.Keys(memoryAttackNames)), status: hookspec.StatusError, errHas: "limit exceeded: memory: ", heavy: true},
	{name: "guard with a local helper", handler: `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local args
    local function bad() return string.find(args.command or "", "rm -rf /", 1, true) end
    args = kw.args
    if kw.tool_name == "terminal" and bad() then
      return { action = "block", message = "rm -rf / is not permitted" }
    end
  end)
end`, commands: []string{"ls", "rm -rf /", "echo hi", "rm -rf /"}, status: hookspec.StatusOK,
		blocks: []string{"witness answered", "rm -rf / is not permitted", "witness answered", "rm -rf / is not permitted"}},
}

// memoryAttackNames are the attacks of memoryAttacks, by the command that runs each. (A
// table of millions of string keys is left to luabind's tests, with a smaller limit: Go's
// map takes seconds to build one of 256 MiB.)
var memoryAttackNames = map[string]string{
	"table":        `local t = {} for i = 1, 1e9 do t[i] = {i} end`,
	"rep":          `local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 2^20) end`,
	"concat":       `local t, s = {}, string.rep("x", 2^20) for i = 1, 1e9 do t[i] = s .. i end`,
	"table.concat": `local t = {} for i = 1, 1e9 do t[i] = table.concat({string.rep("y", 2^20), i}, ",") end`,
	"os.date":      `local t, f = {}, string.rep("%c", 2^20) for i = 1, 1e9 do t[i] = os.date(f) end`,
	"loadstring":   `return loadstring(string.rep("a=1 ", 2^20))`,
	"functions":    `return loadstring(string.rep("function f() end ", 240000))`,
	"coroutines":   `local t = {} for i = 1, 1e9 do t[i] = coroutine.create(print) end`,
	"closures":     `local t = {} for i = 1, 1e9 do t[i] = function() return i end end`,
	"pcall":        `pcall(function() local t = {} for i = 1, 1e9 do t[i] = {} end end)`,
}

// memoryAttacks runs the attack memoryAttackNames names for the call's command.
var memoryAttacks = func() string {
	var b strings.Builder
	b.WriteString("local attacks = {\n")
	for _, name := range slices.Sorted(maps.Keys(memoryAttackNames)) {
		fmt.Fprintf(&b, "  [%q] = function() %s end,\n", name, memoryAttackNames[name])
	}
	b.WriteString("}\n")
	return b.String() + hook(`return attacks[kw.args.command]()`)
}()

// sortAttack is a handler whose pre_tool_call callback sorts with sort a table of 2^17
// strings of 128 KiB, in no order, that share one string (each is a piece of it) and
// differ from one another only after a long run of "a".
func sortAttack(sort string) string {
	return hook(`local n = 2^17
    local s = string.rep("a", n) .. string.rep("b", n)
    local t = {} for i = 1, n do local p = (i * 7919) % n + 1 t[i] = s:sub(p, p + n - 1) end
    ` + sort + `
    return {action = "block", message = "sorted"}`)
}

// report is what the child prints.
type report struct {
	Calls    []call   `json:"calls"`
	Warnings []string `json:"warnings"`
	LogBytes int64    `json:"log_bytes"`
}

// hookResult is what the child reports of the attack's call.
type hookResult struct {
	Status hookspec.Status `json:"status"`
	Err    string          `json:"err"`
}

// call is one pre_tool_call: the attack's result, whether the witness answered, the
// merged block and how long the call took.
type call struct {
	Attack     *hookResult `json:"attack"`
	WitnessOK  bool        `json:"witness_ok"`
	Block      string      `json:"block"`
	DurationMS float64     `json:"duration_ms"`
}

func TestAttacksLeaveTheHostStanding(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process per attack")
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			if a.heavy && raceEnabled {
				t.Skip("allocates hundreds of MiB")
			}
			home := buildHome(t, a)
			rep, rss := runChild(t, home, a.commands)
			if limit := cmp.Or(a.rss, maxRSS); rss > limit && !raceEnabled {
				t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>20, limit>>20)
			}
			checkCalls(t, a, rep)
			if a.name == "log flood" && rep.LogBytes > 8<<20 {
				t.Errorf("the log received %d bytes from one call; want it bounded", rep.LogBytes)
			}
		})
	}
}

func checkCalls(t *testing.T, a attack, rep report) {
	t.Helper()
	if a.status == 0 {
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), a.errHas) {
			t.Errorf("load warnings %q do not mention %q", rep.Warnings, a.errHas)
		}
	}
	for i, c := range rep.Calls {
		if i < len(a.commands) {
			t.Logf("call %d (%s): %.0f ms", i, a.commands[i], c.DurationMS)
		} else if a.heavy || a.maxCall > 0 {
			t.Logf("call %d: %.0f ms", i, c.DurationMS)
		}
		want := "witness answered"
		if a.blocks != nil {
			want = a.blocks[i]
		}
		if c.Block != want || !c.WitnessOK {
			t.Errorf("call %d: block %q (witness ok: %v), want %q", i, c.Block, c.WitnessOK, want)
		}
		maxCall := a.maxCall
		if raceEnabled {
			// The race detector slows the Go code a library call runs several times (a
			// decode of 64 MiB up to its memory limit took 2.1-3.1 s under it, on an idle
			// machine): the build without it holds the bound.
			maxCall *= 3
		}
		if a.maxCall > 0 && time.Duration(c.DurationMS*float64(time.Millisecond)) > maxCall {
			t.Errorf("call %d took %.0f ms, want at most %s", i, c.DurationMS, maxCall)
		}
		switch {
		case a.status == 0 && c.Attack != nil:
			t.Errorf("call %d: the attack ran: %+v", i, *c.Attack)
		case a.status == 0:
		case c.Attack == nil:
			t.Errorf("call %d: the attack did not run", i)
		case c.Attack.Status != a.status || !strings.Contains(c.Attack.Err, a.errHas):
			t.Errorf("call %d: attack %s %q, want %s with %q", i, c.Attack.Status, c.Attack.Err, a.status, a.errHas)
		}
	}
}

func buildHome(t *testing.T, a attack) string {
	home := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := a.manifest
	if raceEnabled && a.status != hookspec.StatusTimeout && !strings.Contains(manifest, "timeout:") {
		// An attack that must end in its own way (a limit, or done) gets more than the
		// default 5 s under the race detector, which slows the library calls several times
		// (two ran past 5 s beside a parallel build): what it checks is how it ends.
		manifest += "timeout: 60\n"
	}
	write("plugins/attack/plugin.yaml", "name: attack\npriority: 10\n"+manifest)
	write("plugins/attack/handler.lua", a.handler)
	write("plugins/witness/plugin.yaml", "name: witness\npriority: 0\n")
	write("plugins/witness/handler.lua", hook(`return {action = "block", message = "witness answered"}`))
	write("data/.keep", "")
	if a.setup != nil {
		a.setup(t, home)
	}
	return home
}

// runChild runs the attack in a child process and returns its report and peak RSS.
func runChild(t *testing.T, home string, commands []string) (report, int64) {
	t.Helper()
	if commands == nil {
		commands = []string{"ls"}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HERMES_HOSTILE_HOME="+home, "HERMES_HOSTILE_COMMANDS="+strings.Join(commands, "\n"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the host process died: %v\n%s", err, tail(stderr.String()))
	}
	var rep report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("child report: %v\n%s", err, tail(stdout.String()))
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("peak RSS %d MiB", rss>>20)
	return rep, rss
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

func TestMain(m *testing.M) {
	if home := os.Getenv("HERMES_HOSTILE_HOME"); home != "" {
		os.Exit(child(home, strings.Split(os.Getenv("HERMES_HOSTILE_COMMANDS"), "\n")))
	}
	// Built with -race, every process sleeps a second before it exits (the race detector's
	// atexit_sleep_ms), one child per attack, one after the other. The children exit at
	// once: a race while the child ran, its engine closed, is reported all the same (exit
	// status 66). A GORACE of the caller's comes after and wins.
	os.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=0 "+os.Getenv("GORACE")))
	os.Exit(m.Run())
}

// countingWriter counts what the engine logs.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }

// child loads home with the default limits and fires pre_tool_call once per command.
func child(home string, commands []string) int {
	ctx := context.Background()
	logs := &countingWriter{}
	eng, err := engine.New(ctx, engine.Options{Home: home, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer eng.Close(ctx)
	var rep report
	for _, w := range eng.Warnings() {
		rep.Warnings = append(rep.Warnings, fmt.Sprint(w))
	}
	for _, command := range commands {
		start := time.Now()
		r := eng.Fire(ctx, hookspec.PreToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": command}})
		entry := call{DurationMS: float64(time.Since(start)) / float64(time.Millisecond)}
		for _, h := range r.Hooks {
			switch h.Name {
			case "attack":
				entry.Attack = &hookResult{Status: h.Status, Err: h.Err}
			case "witness":
				entry.WitnessOK = h.Status == hookspec.StatusOK
			}
		}
		if b := r.Block(); b != nil {
			entry.Block = b.Message
		}
		rep.Calls = append(rep.Calls, entry)
	}
	rep.LogBytes = logs.n.Load()
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}
