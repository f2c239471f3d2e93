package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// verdict is how one target fares.
type verdict struct {
	measured string // the medians it is computed from
	figure   string // what is compared with the goal
	state    string // PASS, MISS, SKIP or INFO
}

// target is one line of the targets table (docs/performance.md).
type target struct {
	name, goal string
	check      func(r *results) verdict
}

const (
	pass = "PASS"
	miss = "MISS"
	skip = "SKIP"
	info = "INFO"
)

func verdictOf(ok bool) string {
	if ok {
		return pass
	}
	return miss
}

// get returns the median of a benchmark's unit, or reports what is missing through ok.
func get(r *results, missing *[]string, name, unit string) float64 {
	v, ok := r.value(name, unit)
	if !ok {
		*missing = append(*missing, name+" "+unit)
	}
	return v
}

// ratioCheck builds a target comparing num/den with goal: at most max (or at least min).
func ratioCheck(num, den string, limit float64, atLeast bool, format string) func(r *results) verdict {
	return func(r *results) verdict {
		var missing []string
		a, b := get(r, &missing, num, "ns/op"), get(r, &missing, den, "ns/op")
		if len(missing) > 0 {
			return verdict{measured: "not measured: " + strings.Join(missing, ", "), state: skip}
		}
		ratio := a / b
		ok := ratio <= limit
		if atLeast {
			ok = ratio >= limit
		}
		measured := fmt.Sprintf(format, dur(a), dur(b))
		ca, okA := r.value(num, "cpu-ns/op")
		cb, okB := r.value(den, "cpu-ns/op")
		if okA && okB && !atLeast { // CPU time per op cross-checks a run on a busy machine
			measured += fmt.Sprintf(" (cpu %s / %s = %.2fx)", dur(ca), dur(cb), ca/cb)
		}
		return verdict{measured: measured, figure: fmt.Sprintf("%.2fx", ratio), state: verdictOf(ok)}
	}
}

// pythonCheck compares a benchmark with a Python reference: the ratio must be at most limit.
func pythonCheck(bench, key string, limit float64) func(r *results) verdict {
	return referenceCheck(bench, "Python", func(r *results) ([]float64, string) { return r.python[key], r.pyNote }, limit)
}

// lua51Check compares a shape's benchmark with the same shape under C lua5.1.
func lua51Check(shape string, limit float64) func(r *results) verdict {
	return referenceCheck("BenchmarkShape/"+shape, "lua5.1", func(r *results) ([]float64, string) { return r.lua51["shape_"+shape], r.luaNote }, limit)
}

// referenceCheck compares a benchmark's ns/op with the median of a reference's runs.
func referenceCheck(bench, who string, ref func(r *results) ([]float64, string), limit float64) func(r *results) verdict {
	return func(r *results) verdict {
		var missing []string
		a := get(r, &missing, bench, "ns/op")
		runs, note := ref(r)
		v, ok := median(runs)
		if !ok {
			if note == "" {
				note = who + " reference not run"
			}
			return verdict{measured: note, state: skip}
		}
		if len(missing) > 0 {
			return verdict{measured: "not measured: " + strings.Join(missing, ", "), state: skip}
		}
		return verdict{measured: fmt.Sprintf("Go %s, %s %s", dur(a), who, dur(v)), figure: fmt.Sprintf("%.2fx", a/v), state: verdictOf(a/v <= limit)}
	}
}

// atMost checks one benchmark unit against a limit.
func atMost(name, unit string, limit float64, show func(float64) string) func(r *results) verdict {
	return func(r *results) verdict {
		var missing []string
		v := get(r, &missing, name, unit)
		if len(missing) > 0 {
			return verdict{measured: "not measured: " + strings.Join(missing, ", "), state: skip}
		}
		extra := ""
		if d, ok := r.value(name, "drops/op"); ok {
			extra = fmt.Sprintf(", %.2f drops/op", d)
		}
		return verdict{measured: show(v) + extra, figure: show(v), state: verdictOf(v <= limit)}
	}
}

var targets = []target{
	{"InvokeNoHooks (PreToolCall, Fire)", "<= 50 ns/op, 0 allocs/op", func(r *results) verdict {
		var missing []string
		a, b := get(r, &missing, "BenchmarkInvokeNoHooks/PreToolCall", "ns/op"), get(r, &missing, "BenchmarkInvokeNoHooks/Fire", "ns/op")
		aa, ba := get(r, &missing, "BenchmarkInvokeNoHooks/PreToolCall", "allocs/op"), get(r, &missing, "BenchmarkInvokeNoHooks/Fire", "allocs/op")
		if len(missing) > 0 {
			return verdict{measured: "not measured: " + strings.Join(missing, ", "), state: skip}
		}
		worst := max(a, b)
		return verdict{measured: fmt.Sprintf("%.1f ns, %.1f ns; %.0f+%.0f allocs", a, b, aa, ba),
			figure: fmt.Sprintf("%.1f ns", worst), state: verdictOf(worst <= 50 && aa == 0 && ba == 0)}
	}},
	{"PreToolCallLua / PreToolCallLuaRaw (ctx floor)", "<= 1.25", ratioCheck("BenchmarkPreToolCallLua", "BenchmarkPreToolCallLuaRaw/ctx", 1.25, false, "%s / %s")},
	{"PreToolCallLua / PreToolCallLuaRaw (reused-ctx: the call alone)", "<= 1.3", ratioCheck("BenchmarkPreToolCallLua", "BenchmarkPreToolCallLuaRaw/reused-ctx", 1.3, false, "%s / %s")},
	{"PreToolCallLua allocations (the hot path)", "0 allocs/op", atMost("BenchmarkPreToolCallLua", "allocs/op", 0, func(v float64) string { return fmt.Sprintf("%.0f allocs/op", v) })},
	{"PreToolCallLua vs Python dispatch", "<= 0.5x", pythonCheck("BenchmarkPreToolCallLua", "dispatch", 0.5)},
	{"Shape audit (json.encode into a ring) vs Python", "<= 0.7x", pythonCheck("BenchmarkShape/audit", "shape_audit", 0.7)},
	{"Shape guard (30 plain finds in ipairs, 1 re.match) vs Python", "<= 0.7x", pythonCheck("BenchmarkShape/guard", "shape_guard", 0.7)},
	{"Shape redactor (3 re.gsub over 4 KB) vs Python", "<= 0.7x", pythonCheck("BenchmarkShape/redactor", "shape_redactor", 0.7)},
	{"Shape context (a concatenated context line) vs Python", "<= 0.7x", pythonCheck("BenchmarkShape/context", "shape_context", 0.7)},
	{"Shape audit vs C lua5.1", "<= 2.5x", lua51Check("audit", 2.5)},
	{"Shape guard vs C lua5.1", "<= 2.5x", lua51Check("guard", 2.5)},
	{"Shape redactor vs C lua5.1", "<= 2.5x", lua51Check("redactor", 2.5)},
	{"Shape context vs C lua5.1", "<= 2.5x", lua51Check("context", 2.5)},
	{"PreToolCallLuaVarying vs Python dispatch", "(info)", infoOf(pythonCheck("BenchmarkPreToolCallLuaVarying", "dispatch", 1))},
	{"PreToolCallLuaEscaping/helper (kw passed to a local helper) vs Python", "<= 1.0x", pythonCheck("BenchmarkPreToolCallLuaEscaping/helper", "dispatch", 1)},
	{"PreToolCallLuaEscaping/fresh (a global helper: new tables) vs Python", "(info)", infoOf(pythonCheck("BenchmarkPreToolCallLuaEscaping/fresh", "dispatch", 1))},
	{"Parallel throughput, states: 1 (default)", "(info)", infoOf(ratioCheck("BenchmarkPreToolCallLua", "BenchmarkPreToolCallLuaParallel/states=1", 1.7, true, "serial %s / parallel %s"))},
	{"Parallel throughput, states: 2", ">= 1.7x", ratioCheck("BenchmarkPreToolCallLua", "BenchmarkPreToolCallLuaParallel/states=2", 1.7, true, "serial %s / parallel %s")},
	{"ShellHook / ShellHookRawExec", "<= 1.10", ratioCheck("BenchmarkShellHook", "BenchmarkShellHookRawExec", 1.10, false, "%s / %s")},
	{"ShellHook vs Python shell firing", "<= 1.0", pythonCheck("BenchmarkShellHook", "shell", 1)},
	{"ShellHook / ShellHookPersistent (perl)", ">= 50x", ratioCheck("BenchmarkShellHook", "BenchmarkShellHookPersistent/perl", 50, true, "%s / %s")},
	{"ShellHook / ShellHookPersistent (sh read loop)", "(info)", infoOf(ratioCheck("BenchmarkShellHook", "BenchmarkShellHookPersistent/sh-read-loop", 50, true, "%s / %s"))},
	{"GatewayEmit, 10 hooks, every event queued", "<= 2 µs/op", atMost("BenchmarkGatewayEmit/queued", "ns/op", 2000, dur)},
	{"GatewayEmit, 10 hooks, queues full", "<= 2 µs/op, never waits", atMost("BenchmarkGatewayEmit/full-queues", "ns/op", 2000, dur)},
	{"GatewayEmit, 10 hooks, handlers running", "(info)", infoOf(atMost("BenchmarkGatewayEmit/draining", "ns/op", 2000, dur))},
	{"LoadHome (100 plugins + 100 hooks)", "<= 200 ms", atMost("BenchmarkLoadHome", "ns/op", 200e6, dur)},
	{"LoadHome heap per loaded hook", "<= 120 KB", atMost("BenchmarkLoadHome", "heap-KB/hook", 120, func(v float64) string { return fmt.Sprintf("%.1f KB", v) })},
	{"ReplayTurn (3 tool calls, demo home), live", "(info)", infoOf(atMost("BenchmarkReplayTurn/live", "ns/op", 0, dur))},
	{"ReplayTurn, replay (gateway hooks waited for)", "(info)", infoOf(atMost("BenchmarkReplayTurn/replay", "ns/op", 0, dur))},
}

// infoOf turns a check into an informational line: no PASS or MISS.
func infoOf(check func(r *results) verdict) func(r *results) verdict {
	return func(r *results) verdict {
		v := check(r)
		if v.state != skip {
			v.state = info
		}
		return v
	}
}

// report prints the environment, the targets table and the cost ladder of PreToolCallLua,
// and returns how many targets were missed.
func report(w io.Writer, r *results, ts []target) int {
	fmt.Fprintln(w)
	for _, e := range r.env {
		fmt.Fprintln(w, e)
	}
	fmt.Fprintf(w, "medians of %s; run took %s\n\n", runsText(r), r.elapsed.Round(time.Second))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tgoal\tmeasured (medians)\tfigure\tverdict")
	missed := 0
	for _, t := range ts {
		v := t.check(r)
		if v.state == miss {
			missed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.name, t.goal, v.measured, v.figure, v.state)
	}
	tw.Flush()
	ladder(w, r)
	fmt.Fprintf(w, "\n%d target(s) missed\n", missed)
	return missed
}

func runsText(r *results) string {
	n := 0
	for _, units := range r.bench {
		n = max(n, len(units["ns/op"]))
	}
	return fmt.Sprintf("%d run(s) of each benchmark", n)
}

// ladder prints where the time of PreToolCallLua goes, from the floor benchmarks.
func ladder(w io.Writer, r *results) {
	steps := []struct{ name, what string }{
		{"BenchmarkPreToolCallLuaRaw/reused-noctx", "gopher-lua: the call on a table built once"},
		{"BenchmarkPreToolCallLuaRaw/reused-ctx", "+ a context on the state (polled every 1024 instructions)"},
		{"BenchmarkPreToolCallLua", "= the engine (refill, deadline and guard, pool, results, merge)"},
		{"BenchmarkPreToolCallLuaRaw/ctx", "gopher-lua building the two tables every call, for comparison"},
		{"BenchmarkPreToolCallLuaEscaping/fresh", "the engine when the callback may keep its kwargs"},
	}
	fmt.Fprintln(w, "\nwhere PreToolCallLua's time goes:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ns/op\tcpu-ns/op\tallocs/op\tstep\t")
	prev := 0.0
	for i, s := range steps {
		v, ok := r.value(s.name, "ns/op")
		if !ok {
			continue
		}
		cpu, _ := r.value(s.name, "cpu-ns/op")
		allocs, _ := r.value(s.name, "allocs/op")
		delta := ""
		if prev > 0 && i < 3 {
			delta = fmt.Sprintf(" (%+.0f ns)", v-prev)
		}
		fmt.Fprintf(tw, "%.0f\t%.0f\t%.0f\t  %s%s\t\n", v, cpu, allocs, s.what, delta)
		prev = v
	}
	tw.Flush()
}

// dur renders nanoseconds with a readable unit.
func dur(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.1f ns", ns)
}
