package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

var hooksWatchCommand = &command{
	name:     "hooks watch",
	help:     "load the home, then reload it whenever its hooks, config or allowlist change; print what changed (Ctrl-C stops)",
	examples: []string{"hermesctl hooks watch  # leave it running while you edit the hooks"},
	run:      runHooksWatch,
}

func runHooksWatch(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	host, code := c.openGateway(ctx, gateway.Options{})
	if host == nil {
		return code
	}
	eng := host.Engine()
	defer func() { // Ctrl-C cancelled ctx: give what still runs a moment
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		host.Close(ctx)
	}()
	l := &loaded{eng: eng, gw: host}
	before := signatures(l.entries())
	fmt.Fprintf(c.stdout, "watching %s: %s\n", printable(eng.Home()), summary(l))
	err := host.Watch(ctx, 300*time.Millisecond, func(changed []string, err error) {
		for i, p := range changed {
			if rel, err := filepath.Rel(eng.Home(), p); err == nil {
				changed[i] = rel
			}
		}
		fmt.Fprintf(c.stdout, "changed: %s\n", printable(strings.Join(changed, ", ")))
		if err != nil {
			fmt.Fprintf(c.stdout, "reload failed, the previous hooks keep running: %s\n", printable(err.Error()))
			return
		}
		after := signatures(l.entries())
		for _, line := range diffSignatures(before, after) {
			fmt.Fprintln(c.stdout, "  "+printable(line))
		}
		before = after
		fmt.Fprintf(c.stdout, "reloaded: %s\n", summary(l))
	})
	if err != nil {
		return c.fail(exitInternal, "cannot watch %s: %v", eng.Home(), err)
	}
	return exitOK
}

// signatures maps "source name" to a description that changes when the hook does.
func signatures(entries []listEntry) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		key := e.Source + " " + e.Name
		if e.Source == hookspec.SourceShell {
			key += " (" + strings.Join(e.Events, ",") + ")"
		}
		out[key] = fmt.Sprintf("%s %s %v %s", describeState(e), strings.Join(e.Events, ","), e.Timeout, strings.Join(e.Drift, ","))
	}
	return out
}

func diffSignatures(before, after map[string]string) []string {
	var lines []string
	for k, v := range after {
		switch old, ok := before[k]; {
		case !ok:
			lines = append(lines, "+ "+k+": "+v)
		case old != v:
			lines = append(lines, "~ "+k+": "+v)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			lines = append(lines, "- "+k)
		}
	}
	sort.Strings(lines)
	return lines
}

func summary(l *loaded) string {
	plugins, shellOn := 0, 0
	for _, p := range l.eng.Plugins() {
		if p.Status == "loaded" {
			plugins++
		}
	}
	for _, s := range l.eng.ShellHooks() {
		if s.Registered {
			shellOn++
		}
	}
	gw := 0
	for _, h := range l.gw.Hooks() {
		if h.Status == "loaded" {
			gw++
		}
	}
	return fmt.Sprintf("%d plugin(s), %d of %d shell hook(s) registered, %d gateway hook(s)", plugins, shellOn, len(l.eng.ShellHooks()), gw)
}
