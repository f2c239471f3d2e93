package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

var pluginsListCommand = &command{
	name:     "plugins list",
	json:     true,
	help:     "list plugins with priority, hooks registered, permissions and status",
	examples: []string{"hermesctl plugins list --json"},
	run:      runPluginsList,
}

func runPluginsList(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	eng, code := c.openEngine(ctx, engine.Options{IgnoreConsent: true})
	if eng == nil {
		return code
	}
	defer eng.Close(ctx)
	plugins := eng.Plugins()
	if c.json {
		if plugins == nil {
			plugins = []*engine.PluginInfo{}
		}
		return c.printJSON(map[string]any{"home": eng.Home(), "plugins": plugins})
	}
	if len(plugins) == 0 {
		fmt.Fprintf(c.stdout, "no plugins in %s\n", printable(eng.Home()+"/plugins"))
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPRIORITY\tSTATUS\tHOOKS\tPERMISSIONS")
	for _, p := range plugins {
		status := p.Status
		if p.Error != "" {
			status += ": " + p.Error
		}
		name := printable(p.Name)
		if p.Layer == engine.LayerManaged {
			name += " [managed]"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", name, p.Priority, printable(status),
			printable(orDash(strings.Join(p.Hooks, ","))), printable(describePermissions(p.Permissions)))
	}
	tw.Flush()
	return exitOK
}

func describePermissions(p hookspec.Permissions) string {
	var parts []string
	for _, kv := range []struct {
		k string
		v []string
	}{{"fs", p.FS}, {"net", p.Net}, {"exec", p.Exec}, {"env", p.Env}} {
		if len(kv.v) > 0 {
			parts = append(parts, kv.k+"="+strings.Join(kv.v, ","))
		}
	}
	return orDash(strings.Join(parts, " "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
