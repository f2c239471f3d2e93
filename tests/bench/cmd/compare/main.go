// Command compare runs the benchmarks of tests/bench and the Python reference of the
// original design, and prints how each performance target fares: the measured values,
// their ratio and PASS or MISS. Run it from anywhere in the repository:
//
//	go run ./tests/bench/cmd/compare            # about 3 minutes on an idle 2-core machine
//	go run ./tests/bench/cmd/compare -count 1   # a quicker, noisier look
//
// It runs -count rounds (default 5): each round runs every benchmark once, and the Python
// reference right before and right after the benchmarks compared with it, so that both
// sides of a ratio are measured side by side even when a shared machine's speed drifts. The median of the rounds
// is used, so that one disturbed run does not decide a target. The Python column needs
// python3 on $PATH (or -python); without it those targets are reported as SKIP. The four
// handler shapes also run under C Lua 5.1 (testdata/lua51_reference.lua, lua5.1 on $PATH or
// -lua51), right before and after BenchmarkShape, for the ratio to a C interpreter. The exit status is 0 unless the benchmarks could not
// run, or -strict is given and a target is missed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{}
	fs.IntVar(&cfg.count, "count", 5, "rounds; the median of each benchmark is used")
	fs.StringVar(&cfg.python, "python", "python3", "Python interpreter for the reference (\"\" skips it)")
	fs.StringVar(&cfg.lua51, "lua51", "lua5.1", "C Lua 5.1 interpreter for the shapes' reference (\"\" skips it)")
	fs.BoolVar(&cfg.strict, "strict", false, "exit 1 when a target is missed")
	fs.BoolVar(&cfg.verbose, "v", false, "echo the benchmark output while it runs")
	fs.StringVar(&cfg.only, "bench", "", "run only the groups whose benchmarks match this substring (for a quick look)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if cfg.count < 1 {
		fmt.Fprintln(stderr, "compare: -count must be at least 1")
		return 2
	}
	res, err := measure(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "compare: %v\n", err)
		return 1
	}
	missed := report(stdout, res, targets)
	if cfg.strict && missed > 0 {
		return 1
	}
	return 0
}
