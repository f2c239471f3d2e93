package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-hooks/hermes/scripts/examples"
)

var demoCommand = &command{
	name:     "demo",
	json:     true,
	help:     "replay the bundled example conversation against the bundled example hooks (no setup needed)",
	examples: []string{"hermesctl demo", "hermesctl demo --html demo.html  # the timeline for a browser"},
	flags: func(fs *flag.FlagSet) runFunc {
		var a traceArgs
		traceFlags(fs, &a)
		return func(ctx context.Context, c *cli, args []string) int { return runDemo(ctx, c, a, args) }
	},
}

// runDemo copies the bundled demo home into a temporary directory (so nothing is written
// anywhere else), approves its shell hooks there, and replays the bundled transcript.
func runDemo(ctx context.Context, c *cli, a traceArgs, args []string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	dir, err := os.MkdirTemp("", "hermes-demo-")
	if err != nil {
		return c.fail(exitInternal, "demo: %v", err)
	}
	defer os.RemoveAll(dir)
	if err := examples.CopyDemo(dir); err != nil {
		return c.fail(exitInternal, "demo: %v", err)
	}
	home := filepath.Join(dir, "home")
	if !c.json {
		fmt.Fprintf(c.stdout, "Demo: replaying %s against the example hooks in a temporary home.\n", "scripts/examples/demo/transcript.jsonl")
		fmt.Fprintf(c.stdout, "Try it on your own: hermesctl replay <transcript.jsonl> --home <dir>\n\n")
	}
	c.acceptHooks = true
	a.title = "scripts/examples/demo/transcript.jsonl (hermesctl demo)"
	return c.replay(ctx, filepath.Join(dir, "transcript.jsonl"), home, a)
}
