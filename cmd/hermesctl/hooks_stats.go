package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/metrics"
)

var hooksStatsCommand = &command{
	name:     "hooks stats",
	json:     true,
	args:     "<transcript.jsonl>",
	help:     "replay a transcript and print per-hook calls, errors, timeouts, blocks, drops and latency (--prometheus for the exposition format)",
	examples: []string{"hermesctl hooks stats session.jsonl", "hermesctl hooks stats session.jsonl --prometheus"},
	flags: func(fs *flag.FlagSet) runFunc {
		var exposition bool
		fs.BoolVar(&exposition, "prometheus", false, "print the Prometheus text exposition format")
		return func(ctx context.Context, c *cli, args []string) int { return runHooksStats(ctx, c, exposition, args) }
	},
}

// statRow is one hook's numbers for one event.
type statRow struct {
	Source   string  `json:"source"`
	Hook     string  `json:"hook"`
	Event    string  `json:"event"`
	Calls    int64   `json:"calls"`
	Errors   int64   `json:"errors"`
	Timeouts int64   `json:"timeouts"`
	Blocks   int64   `json:"blocks"`
	Drops    int64   `json:"drops"`
	MeanMS   float64 `json:"mean_ms"`
}

func runHooksStats(ctx context.Context, c *cli, exposition bool, args []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	m := engine.NewMetrics()
	_, err := replayFile(ctx, args[0], gateway.Options{Engine: engine.Options{Home: c.home, Logger: c.logger, AcceptHooks: c.acceptHooks, Metrics: m, DisableWebhooks: true}, Metrics: m})
	if err != nil {
		return c.fail(exitConfig, "replay: %v", err)
	}
	reg := metrics.NewRegistry()
	reg.Register(m)
	families := reg.Gather()
	if exposition {
		printableLabels(families)
		if err := metrics.WriteText(c.stdout, families); err != nil {
			return c.fail(exitInternal, "metrics: %v", err)
		}
		return exitOK
	}
	rows := statRows(families)
	if c.json {
		if rows == nil {
			rows = []statRow{}
		}
		return c.printJSON(map[string]any{"stats": rows})
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tHOOK\tEVENT\tCALLS\tERRORS\tTIMEOUTS\tBLOCKS\tDROPS\tMEAN")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.3f ms\n", printable(r.Source), printable(r.Hook), printable(r.Event),
			r.Calls, r.Errors, r.Timeouts, r.Blocks, r.Drops, r.MeanMS)
	}
	tw.Flush()
	return exitOK
}

// statRows folds the metric families into one row per (source, hook, event).
func statRows(families []metrics.Family) []statRow {
	rows := map[[3]string]*statRow{}
	row := func(f metrics.Family, s metrics.Series) *statRow {
		var k [3]string
		for i, l := range f.Labels {
			switch l {
			case "source":
				k[0] = s.Values[i]
			case "hook":
				k[1] = s.Values[i]
			case "event":
				k[2] = s.Values[i]
			}
		}
		if rows[k] == nil {
			rows[k] = &statRow{Source: k[0], Hook: k[1], Event: k[2]}
		}
		return rows[k]
	}
	for _, f := range families {
		if strings.HasPrefix(f.Name, "hermes_decision_log_") { // the engine's, not a hook's
			continue
		}
		for _, m := range f.Series {
			r := row(f, m)
			v := int64(m.Value)
			switch f.Name {
			case "hermes_hook_calls_total":
				r.Calls = v
			case "hermes_hook_errors_total":
				r.Errors = v
			case "hermes_hook_timeouts_total":
				r.Timeouts = v
			case "hermes_hook_blocks_total":
				r.Blocks = v
			case "hermes_hook_drops_total":
				r.Drops = v
			case "hermes_hook_duration_seconds":
				if h := m.Histogram; h != nil && h.Count > 0 {
					r.MeanMS = math.Round(h.Sum/float64(h.Count)*1e6) / 1e3
				}
			}
		}
	}
	out := make([]statRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Hook != b.Hook {
			return a.Hook < b.Hook
		}
		return a.Event < b.Event
	})
	return out
}

// printableLabels makes label values printable for the text exposition format, which only
// escapes backslashes, quotes and newlines: hook names come from files and commands.
func printableLabels(families []metrics.Family) {
	for _, f := range families {
		for _, s := range f.Series {
			for i, v := range s.Values {
				s.Values[i] = printable(v)
			}
		}
	}
}
