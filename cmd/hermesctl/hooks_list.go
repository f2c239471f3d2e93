package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
)

var hooksListCommand = &command{
	name: "hooks list",
	json: true,
	help: "list every gateway hook, plugin hook and shell hook with its events, priority, matcher, timeout, permissions, state and consent",
	run:  runHooksList,
}

// listEntry is one row of `hooks list`, the same in text and JSON.
type listEntry struct {
	Source      string              `json:"source"`
	Name        string              `json:"name"`
	Events      []string            `json:"events"`
	Priority    *int                `json:"priority,omitempty"`
	Matcher     string              `json:"matcher,omitempty"`
	Dialect     string              `json:"dialect,omitempty"` // shell hooks: "claude" for a hook written for Claude Code
	Timeout     float64             `json:"timeout_s"`
	Permissions *engine.Permissions `json:"permissions,omitempty"`
	Enabled     bool                `json:"enabled"`
	Status      string              `json:"status"`
	Error       string              `json:"error,omitempty"`
	Consent     string              `json:"consent,omitempty"` // shell hooks: approved / not approved
	Drift       []string            `json:"drift,omitempty"`   // shell hooks: "mtime", "content"
	Script      string              `json:"script,omitempty"`
}

// loaded is a home loaded the way the gateway loads it, for the inspection commands.
type loaded struct {
	eng *engine.Engine
	gw  *gateway.Gateway
}

func (c *cli) loadHome(ctx context.Context) (*loaded, int) { return c.loadHomeWith(ctx, nil) }

// loadHomeWith loads the home with extra host functions for Lua hooks.
func (c *cli) loadHomeWith(ctx context.Context, host map[string]engine.Func) (*loaded, int) {
	eng, code := c.openEngine(ctx, engine.Options{IgnoreConsent: true, HostFuncs: host})
	if eng == nil {
		return nil, code
	}
	gw, err := gateway.New(ctx, eng, gateway.Options{Logger: c.logger, HostFuncs: host})
	if err != nil {
		eng.Close(ctx)
		return nil, c.fail(exitInternal, "%v", err)
	}
	return &loaded{eng: eng, gw: gw}, exitOK
}

func (l *loaded) close(ctx context.Context) {
	l.gw.Close(ctx)
	l.eng.Close(ctx)
}

func (l *loaded) entries() []listEntry {
	var out []listEntry
	for _, h := range l.gw.Hooks() {
		perms := h.Permissions
		out = append(out, listEntry{Source: engine.SourceGateway, Name: h.Name, Events: h.Events, Timeout: h.Timeout,
			Permissions: &perms, Enabled: h.Enabled, Status: h.Status, Error: h.Error})
	}
	for _, p := range l.eng.Plugins() {
		prio, perms := p.Priority, p.Permissions
		out = append(out, listEntry{Source: engine.SourcePlugin, Name: p.Name, Events: p.Hooks, Priority: &prio,
			Timeout: p.Timeout, Permissions: &perms, Enabled: p.Enabled, Status: p.Status, Error: p.Error})
	}
	for _, s := range l.eng.ShellHooks() {
		e := listEntry{Source: engine.SourceShell, Name: s.Command, Events: []string{s.Event}, Matcher: s.Matcher, Dialect: s.Dialect,
			Timeout: s.Timeout, Enabled: true, Status: "loaded", Consent: "not approved", Script: s.Consent.Script}
		if s.Consent.Approved {
			e.Consent = "approved"
		}
		if s.Consent.MtimeDrift {
			e.Drift = append(e.Drift, "mtime")
		}
		if s.Consent.ContentDrift {
			e.Drift = append(e.Drift, "content")
		}
		out = append(out, e)
	}
	return out
}

func runHooksList(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	l, code := c.loadHome(ctx)
	if l == nil {
		return code
	}
	defer l.close(ctx)
	entries := l.entries()
	if c.json {
		if entries == nil {
			entries = []listEntry{}
		}
		return c.printJSON(map[string]any{"home": l.eng.Home(), "hooks": entries})
	}
	if len(entries) == 0 {
		fmt.Fprintf(c.stdout, "no hooks in %s\n", printable(l.eng.Home()))
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tNAME\tEVENTS\tPRIORITY\tMATCHER\tTIMEOUT\tPERMISSIONS\tSTATE")
	for _, e := range entries {
		prio := "-"
		if e.Priority != nil {
			prio = fmt.Sprint(*e.Priority)
		}
		perms := "-"
		if e.Permissions != nil {
			perms = describePermissions(*e.Permissions)
		}
		source := e.Source
		if e.Dialect != "" {
			source += " (" + e.Dialect + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%gs\t%s\t%s\n", source, printable(e.Name), printable(orDash(strings.Join(e.Events, ","))), prio,
			printable(orDash(e.Matcher)), e.Timeout, printable(perms), printable(describeState(e)))
	}
	tw.Flush()
	return exitOK
}

func describeState(e listEntry) string {
	s := e.Status
	if e.Consent != "" {
		s = e.Consent
		if len(e.Drift) > 0 {
			s += " (changed since approval: " + strings.Join(e.Drift, ", ") + ")"
		}
	}
	if e.Error != "" {
		s += ": " + e.Error
	}
	return s
}
