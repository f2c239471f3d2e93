package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/gateway/runner"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/manifest"
)

var replayCommand = &command{
	name:     "replay",
	json:     true,
	args:     "<transcript.jsonl>",
	help:     "run a transcript through the reference gateway and print every event fired, the hooks that ran and their outcomes",
	examples: []string{"hermesctl replay session.jsonl", "hermesctl replay session.jsonl --html report.html  # a timeline for a browser"},
	flags: func(fs *flag.FlagSet) runFunc {
		var a traceArgs
		traceFlags(fs, &a)
		return func(ctx context.Context, c *cli, args []string) int { return runReplay(ctx, c, a, args) }
	},
}

func runReplay(ctx context.Context, c *cli, a traceArgs, args []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	return c.replay(ctx, args[0], c.home, a)
}

// replay runs the transcript at path against home and prints the timeline; with a's flags
// it also exports the run's spans and writes the HTML timeline.
func (c *cli) replay(ctx context.Context, path, home string, a traceArgs) int {
	opts := engine.Options{Home: home, Logger: c.logger, AcceptHooks: c.acceptHooks, DisableWebhooks: true}
	if f, ok := c.stdin.(*os.File); ok && consent.IsTerminal(f) {
		opts.Prompt = &engine.Prompt{In: f, Out: c.stderr}
	}
	if err := parseTranscript(path); err != nil {
		return c.fail(exitConfig, "replay: %v", err) // cannot be read or parsed
	}
	tr, err := c.newTracing(ctx, a)
	if err != nil {
		return c.fail(exitUsage, "replay: %v", err)
	}
	opts.TracerProvider = tr.provider()
	rctx, span := tr.start(ctx, "replay "+filepath.Base(path))
	tl, err := replayFile(rctx, path, gateway.Options{Engine: opts})
	span.End()
	traced := c.finishTracing(ctx, tr, a, tl, path, homedir.Resolve(home))
	if err != nil && isLoadError(err) {
		return c.fail(exitConfig, "replay: cannot load %s: %v", homedir.Resolve(home), err)
	}
	if c.json {
		if code := c.printJSON(tl); code != exitOK {
			return code
		}
	} else {
		printTimeline(c.stdout, tl, homedir.Resolve(home))
	}
	if err != nil {
		return c.fail(exitFailed, "replay stopped: %v", err)
	}
	return traced
}

// parseTranscript reads and parses the transcript at path, so that a transcript that cannot
// be read or parsed (exit 5) is told apart from one that cannot be followed (exit 3).
func parseTranscript(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = runner.ParseTranscript(path, f)
	return err
}

// isLoadError reports whether a replay failed because the home could not be loaded (a
// config.yaml that cannot be read or parsed), rather than stopped in the transcript.
func isLoadError(err error) bool {
	var me *manifest.Error
	var pe *fs.PathError
	return errors.As(err, &me) || errors.As(err, &pe)
}

// printTimeline prints a timeline for people: one block per event. Shell hooks inside the
// home are shown relative to it.
func printTimeline(w io.Writer, tl runner.Timeline, home string) {
	n := 0
	for _, e := range tl.Events {
		if e.Event == "flow" { // what came in and went out, beside what the hooks did
			fmt.Fprintf(w, "     >> %s\n", printable(e.Flow))
			continue
		}
		n++
		head := fmt.Sprintf("%3d  %s", n, printable(e.Event))
		if o := describeEntryOutcome(e); o != "" {
			head += "  ->  " + printable(o)
		}
		fmt.Fprintln(w, head)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, h := range e.Hooks {
			name := strings.TrimPrefix(h.Name, home+string(filepath.Separator))
			line := fmt.Sprintf("       %s\t%s\t%s\t%.2f ms", h.Source, printable(name), h.Status, float64(h.Duration.Microseconds())/1000)
			if h.StatusMessage != "" {
				line += "\t[" + printable(h.StatusMessage) + "]"
			}
			if h.Result != nil {
				line += "\t" + printable(truncate(compactJSON(h.Result), 100))
			}
			if h.Err != "" {
				line += "\terror: " + printable(h.Err)
			}
			if h.Rechecked {
				line += "\t" + recheckedNote
			}
			if h.Nexts != nil { // a wrap hook: what it did around the call
				line += "\t" + wrapNote(*h.Nexts, h.Status)
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
		if e.Note != "" {
			fmt.Fprintf(w, "       * %s\n", printable(e.Note))
		}
	}
}

// wrapNote says what a wrap hook did around its call: entered, then called next n times,
// or answered without calling it.
func wrapNote(n int, status hookspec.Status) string {
	switch {
	case n == 0 && status == hookspec.StatusOK:
		return "(entered; answered without calling next: the call did not run)"
	case n == 0:
		return "(entered; failed before calling next: skipped)"
	case n == 1:
		return "(entered; called next once)"
	}
	return fmt.Sprintf("(entered; called next %d times)", n)
}

func describeEntryOutcome(e runner.Entry) string {
	switch {
	case e.Event == "gateway.send" || e.Event == "session_store.append_to_transcript":
		return compactJSON(e.Outcome)
	case strings.Contains(e.Event, ":"):
		if list, ok := e.Outcome.([]any); ok && len(list) > 0 {
			return "returned " + truncate(compactJSON(list), 100)
		}
		return ""
	case e.Outcome == nil:
		return ""
	}
	return describeOutcome(e.Outcome)
}

// truncate cuts s to at most n bytes, "..." included, at a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// replayFile replays the transcript file at path.
func replayFile(ctx context.Context, path string, opts gateway.Options) (runner.Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return runner.Timeline{}, err
	}
	defer f.Close()
	return runner.Replay(ctx, path, f, opts)
}
