package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

type config struct {
	count   int
	python  string
	lua51   string
	strict  bool
	verbose bool
	only    string
}

// group is one `go test -bench` invocation: benchmarks that share a -benchtime, and the
// Python reference run right after them (the one their ratios use).
type group struct {
	bench     string // -bench regexp
	benchtime string
	python    string // "dispatch", "shell", "shapes" (the four shapes) or ""
}

// groups split the benchmarks by how long one op takes, so that the whole run stays within
// a few minutes: the emit benchmark keeps a queue of b.N events per hook, so it gets a
// fixed count; loading and replaying take tens of milliseconds per op.
var groups = []group{
	{`^Benchmark(InvokeNoHooks|PreToolCallLua|PreToolCallLuaVarying|PreToolCallLuaEscaping|PreToolCallLuaRaw|PreToolCallLuaParallel)$`, "1s", "dispatch"},
	{`^Benchmark(ShellHook|ShellHookRawExec|ShellHookPersistent)$`, "1s", "shell"},
	{`^BenchmarkShape$`, "1s", "shapes"},
	{`^BenchmarkGatewayEmit$`, "100000x", ""},
	{`^Benchmark(LoadHome|ReplayTurn)$`, "1s", ""},
}

// results holds every measurement: benchmark name (without the -procs suffix) -> unit ->
// the values of each run.
type results struct {
	bench   map[string]map[string][]float64
	python  map[string][]float64 // "dispatch", "shell" -> ns/op of each run
	pyNote  string               // why the Python column is missing, "" if it is not
	lua51   map[string][]float64 // "shape_<name>" -> ns/op of each run under C lua5.1
	luaNote string               // why the lua5.1 column is missing, "" if it is not
	env     []string             // go version, CPU, date, load: printed with the table
	elapsed time.Duration
}

// value is the median of a benchmark's unit over the runs, and whether it was measured.
func (r *results) value(name, unit string) (float64, bool) {
	return median(r.bench[name][unit])
}

func median(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// measure runs the benchmark groups and the Python reference in rounds: each round runs
// every benchmark once, each group between two runs of the Python reference its ratios
// use, so that the two sides of a ratio are measured side by side even when the machine's
// speed drifts.
func measure(ctx context.Context, cfg config, log io.Writer) (*results, error) {
	start := time.Now()
	dir, err := benchDir(ctx)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "compare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bench.test")
	fmt.Fprintf(log, "compare: go test -c -o %s\n", bin)
	build := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go test -c failed: %v\n%s", err, out)
	}
	res := &results{bench: map[string]map[string][]float64{}, python: map[string][]float64{}, lua51: map[string][]float64{}}
	res.env = environment(ctx, "before")
	py := pythonFor(ctx, cfg, dir, res)
	lua := lua51For(ctx, cfg, dir, res)
	for round := 1; round <= cfg.count; round++ {
		for _, g := range groups {
			if cfg.only != "" && !strings.Contains(g.bench, cfg.only) {
				continue
			}
			args := []string{"-test.run", "^$", "-test.bench", g.bench, "-test.benchtime", g.benchtime,
				"-test.count", "1", "-test.benchmem", "-test.timeout", "30m"}
			fmt.Fprintf(log, "compare: round %d/%d: bench.test %s\n", round, cfg.count, strings.Join(args, " "))
			if py != nil && g.python != "" {
				py.run(ctx, g.python, res, log)
			}
			if lua != nil && g.python == "shapes" {
				lua.run(ctx, res, log)
			}
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if cfg.verbose {
				cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, log), io.MultiWriter(&out, log)
			}
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("benchmarks failed: %v\n%s", err, out.String())
			}
			parseBench(&out, res.bench)
			if py != nil && g.python != "" {
				py.run(ctx, g.python, res, log)
			}
			if lua != nil && g.python == "shapes" {
				lua.run(ctx, res, log)
			}
		}
	}
	res.env = append(res.env, environment(ctx, "after")...)
	res.elapsed = time.Since(start)
	return res, nil
}

// benchDir finds tests/bench of this module, wherever in the repository we run.
func benchDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}", "github.com/hermes-hooks/hermes/tests/bench").Output()
	if err != nil {
		return "", fmt.Errorf("cannot find tests/bench (run from inside the repository): %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// parseBench reads `go test -bench` output into into: one value per unit per line.
func parseBench(r io.Reader, into map[string]map[string][]float64) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			if into[name] == nil {
				into[name] = map[string][]float64{}
			}
			into[name][f[i+1]] = append(into[name][f[i+1]], v)
		}
	}
}

// python runs testdata/py_reference.py.
type python struct {
	path, script, hook string
}

// pythonFor finds the interpreter, or notes in res why the Python column is missing.
func pythonFor(ctx context.Context, cfg config, dir string, res *results) *python {
	if cfg.python == "" {
		res.pyNote = "Python reference skipped (-python \"\")"
		return nil
	}
	path, err := exec.LookPath(cfg.python)
	if err != nil {
		res.pyNote = fmt.Sprintf("Python reference skipped: %s not found", cfg.python)
		return nil
	}
	if v, err := exec.CommandContext(ctx, path, "--version").CombinedOutput(); err == nil {
		res.env = append(res.env, "python: "+strings.TrimSpace(string(v)))
	}
	return &python{path: path, script: filepath.Join(dir, "testdata", "py_reference.py"),
		hook: filepath.Join(dir, "testdata", "noop-hook.sh")}
}

// run runs the dispatch or shell reference once. A failure is noted in res and ends the
// Python column.
func (p *python) run(ctx context.Context, which string, res *results, log io.Writer) {
	if res.pyNote != "" {
		return
	}
	if which == "shapes" {
		for _, s := range shapeNames {
			p.runOne(ctx, "shape_"+s, []string{p.script, "shape", s}, res, log)
		}
		return
	}
	args := []string{p.script, "dispatch"}
	if which == "shell" {
		args = []string{p.script, "shell", p.hook}
	}
	p.runOne(ctx, which, args, res, log)
}

// shapeNames are the handler shapes of BenchmarkShape and `py_reference.py shape`.
var shapeNames = []string{"audit", "guard", "redactor", "context"}

// runOne runs the reference with args once and records its figure as which.
func (p *python) runOne(ctx context.Context, which string, args []string, res *results, log io.Writer) {
	fmt.Fprintf(log, "compare: python3 %s\n", strings.Join(args, " "))
	out, err := exec.CommandContext(ctx, p.path, args...).Output()
	if err != nil {
		res.pyNote = fmt.Sprintf("Python reference failed: %v", err)
		return
	}
	f := strings.Fields(string(out))
	v, perr := 0.0, error(nil)
	if len(f) == 2 {
		v, perr = strconv.ParseFloat(f[1], 64)
	}
	if len(f) != 2 || perr != nil {
		res.pyNote = fmt.Sprintf("Python reference printed %q", out)
		return
	}
	res.python[which] = append(res.python[which], v)
	fmt.Fprintf(log, "compare: python %s: %.1f ns/op\n", which, v)
}

// lua51 runs testdata/lua51_reference.lua: the four shapes under C Lua 5.1.
type lua51 struct {
	path, script string
}

// lua51For finds the interpreter, or notes in res why the lua5.1 column is missing.
func lua51For(ctx context.Context, cfg config, dir string, res *results) *lua51 {
	if cfg.lua51 == "" {
		res.luaNote = "lua5.1 reference skipped (-lua51 \"\")"
		return nil
	}
	path, err := exec.LookPath(cfg.lua51)
	if err != nil {
		res.luaNote = fmt.Sprintf("lua5.1 reference skipped: %s not found", cfg.lua51)
		return nil
	}
	if v, err := exec.CommandContext(ctx, path, "-v").CombinedOutput(); err == nil {
		res.env = append(res.env, "lua: "+strings.TrimSpace(string(v)))
	}
	return &lua51{path: path, script: filepath.Join(dir, "testdata", "lua51_reference.lua")}
}

// run runs every shape once under lua5.1. A failure is noted in res and ends the column.
func (l *lua51) run(ctx context.Context, res *results, log io.Writer) {
	for _, s := range shapeNames {
		if res.luaNote != "" {
			return
		}
		fmt.Fprintf(log, "compare: lua5.1 %s shape %s\n", l.script, s)
		cmd := exec.CommandContext(ctx, l.path, l.script, "shape", s)
		cmd.Dir = filepath.Dir(filepath.Dir(l.script)) // tests/bench: the script reads testdata/shapes
		out, err := cmd.Output()
		if err != nil {
			res.luaNote = fmt.Sprintf("lua5.1 reference failed: %v", err)
			return
		}
		v, ok := parseReference(out, "lua51_shape_"+s+"_ns_per_op")
		if !ok {
			res.luaNote = fmt.Sprintf("lua5.1 reference printed %q", out)
			return
		}
		res.lua51["shape_"+s] = append(res.lua51["shape_"+s], v)
		fmt.Fprintf(log, "compare: lua5.1 shape %s: %.1f ns/op\n", s, v)
	}
}

// parseReference reads a reference's one line, "<name> <ns per op>".
func parseReference(out []byte, name string) (float64, bool) {
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != name {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[1], 64)
	return v, err == nil && v > 0
}

// environment describes the machine for the record.
func environment(ctx context.Context, when string) []string {
	var env []string
	if when == "before" {
		if v, err := exec.CommandContext(ctx, "go", "version").Output(); err == nil {
			env = append(env, "go: "+strings.TrimSpace(string(v)))
		}
		env = append(env, fmt.Sprintf("cpu: %s (%d logical CPUs)", cpuModel(), runtime.NumCPU()))
		env = append(env, "date: "+time.Now().UTC().Format(time.RFC3339))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			env = append(env, fmt.Sprintf("load average %s: %s %s %s", when, f[0], f[1], f[2]))
		}
	}
	return env
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
