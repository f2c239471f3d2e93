package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/netguard"
)

// describePolicy says in a few words what a managed policy restricts.
func describePolicy(p engine.Policy) string {
	var parts []string
	if p.ManagedHooksOnly {
		parts = append(parts, "managed_hooks_only: only managed hooks run")
	}
	if p.AllowedHTTPURLs != nil {
		parts = append(parts, fmt.Sprintf("allowed_http_urls: %d pattern(s)", len(p.AllowedHTTPURLs)))
	}
	if p.AllowedCommands != nil {
		parts = append(parts, fmt.Sprintf("allowed_commands: %d pattern(s)", len(p.AllowedCommands)))
	}
	if len(parts) == 0 {
		return "no policy restrictions"
	}
	return strings.Join(parts, "; ")
}

var hooksListCommand = &command{
	name:     "hooks list",
	json:     true,
	help:     "list every gateway hook, plugin hook and shell hook with its events, priority, matcher, timeout, permissions, state and consent",
	examples: []string{"hermesctl hooks list  # every hook of the home, with its state", "hermesctl hooks list --json"},
	run:      runHooksList,
}

// listEntry is one row of `hooks list`, the same in text and JSON.
type listEntry struct {
	Source      string                `json:"source"`
	Name        string                `json:"name"`
	Events      []string              `json:"events"`
	Priority    *int                  `json:"priority,omitempty"`
	Matcher     string                `json:"matcher,omitempty"`
	Dialect     string                `json:"dialect,omitempty"`  // shell hooks: "claude" for a hook written for Claude Code
	Type        string                `json:"type,omitempty"`     // shell hooks: "http" for a hook that POSTs to its URL (Name)
	Layer       string                `json:"layer"`              // "managed" (the managed home) or "user"
	WorkDir     string                `json:"work_dir,omitempty"` // a dialect hook's working directory ("" = the host's)
	If          string                `json:"if,omitempty"`       // a dialect hook's if condition
	Async       bool                  `json:"async,omitempty"`    // a dialect hook that runs in the background
	Subagent    bool                  `json:"subagent,omitempty"` // a dialect hook of pre_verify for subagents (SubagentStop)
	Timeout     float64               `json:"timeout_s"`
	Permissions *hookspec.Permissions `json:"permissions,omitempty"`
	Enabled     bool                  `json:"enabled"`
	Status      string                `json:"status"`
	Error       string                `json:"error,omitempty"`
	Consent     string                `json:"consent,omitempty"` // shell hooks (a Python hook: only when it drifted): approved / not approved / drifted: blocking / drifted: skipped
	Drift       []string              `json:"drift,omitempty"`   // shell and Python hooks: "mtime", "content"
	Script      string                `json:"script,omitempty"`
	Warnings    []string              `json:"warnings,omitempty"` // the load warnings about the hook (file:line: what)
}

// loaded is a home loaded the way the gateway loads it, for the inspection commands.
type loaded struct {
	eng *engine.Engine
	gw  *gateway.Gateway
}

func (c *cli) loadHome(ctx context.Context) (*loaded, int) { return c.loadHomeWith(ctx, nil) }

// loadHomeWith loads the home with extra host functions for Lua hooks.
func (c *cli) loadHomeWith(ctx context.Context, host map[string]hookspec.Func) (*loaded, int) {
	gw, code := c.openGateway(ctx, gateway.Options{Engine: engine.Options{IgnoreConsent: true, HostFuncs: host}, HostFuncs: host})
	if gw == nil {
		return nil, code
	}
	return &loaded{eng: gw.Engine(), gw: gw}, exitOK
}

func (l *loaded) close(ctx context.Context) {
	l.gw.Close(ctx)
}

// pythonDriftState shows on e that the files of an approved Python hook changed since its
// approval, as a shell hook's entry shows its script's drift: the default mode runs it
// ("approved"); the pinned mode does not, and a plugin that guards a point blocks it in its
// place ("drifted: blocking", else "drifted: skipped").
func pythonDriftState(e *listEntry, st *hookspec.ConsentState) {
	if st == nil {
		return
	}
	var consent string
	switch {
	case st.Approved && e.Status == "loaded" && (st.MtimeDrift || st.ContentDrift):
		consent = "approved"
	case st.Drifted && e.Status == "unapproved":
		consent, e.Error = "drifted: skipped", ""
		if e.Source == hookspec.SourcePlugin && len(e.Events) > 0 { // the points it blocks
			consent = "drifted: blocking"
		}
	default:
		return
	}
	e.Consent = consent
	if st.MtimeDrift {
		e.Drift = append(e.Drift, "mtime")
	}
	if st.ContentDrift {
		e.Drift = append(e.Drift, "content")
	}
}

func (l *loaded) entries() []listEntry {
	var out []listEntry
	for _, h := range l.gw.Hooks() {
		perms := h.Permissions
		out = append(out, listEntry{Source: hookspec.SourceGateway, Layer: h.Layer, Name: h.Name, Events: h.Events, Timeout: h.Timeout,
			Permissions: &perms, Enabled: h.Enabled, Status: h.Status, Error: h.Error, Warnings: loadedWarnings(h.Status, dirWarnings(l.gw.Warnings(), h.Dir))})
		pythonDriftState(&out[len(out)-1], h.Consent)
	}
	for _, p := range l.eng.Plugins() {
		prio, perms := p.Priority, p.Permissions
		out = append(out, listEntry{Source: hookspec.SourcePlugin, Layer: p.Layer, Name: p.Name, Events: p.Hooks, Priority: &prio,
			Timeout: p.Timeout, Permissions: &perms, Enabled: p.Enabled, Status: p.Status, Error: p.Error,
			Warnings: loadedWarnings(p.Status, dirWarnings(l.eng.Warnings(), p.Dir))})
		pythonDriftState(&out[len(out)-1], p.Consent.State())
	}
	for _, s := range l.eng.ShellHooks() {
		e := listEntry{Source: hookspec.SourceShell, Name: s.Command, Events: []string{s.Event}, Matcher: s.Matcher, Dialect: s.Dialect,
			WorkDir: s.WorkDir, If: s.If, Async: s.Async, Subagent: s.Subagent,
			Type: s.Type, Layer: s.Layer, Timeout: s.Timeout, Enabled: true, Status: "loaded", Consent: "not approved", Script: s.Consent.Script,
			Warnings: warningStrings(shellWarnings(s))}
		if s.Type != "" {
			e.Name = netguard.RedactURL(s.Command)
		}
		switch {
		case s.Refused != "":
			e.Enabled, e.Status, e.Consent, e.Error = false, "refused", "", s.Refused
		case s.Layer == engine.LayerManaged:
			e.Consent = "managed (no consent needed)"
		case s.Consent.Approved:
			e.Consent = "approved"
		case s.Consent.Drifted && s.DriftBlocks():
			e.Consent = "drifted: blocking"
		case s.Consent.Drifted:
			e.Consent = "drifted: skipped"
		}
		if s.Consent.MtimeDrift {
			e.Drift = append(e.Drift, "mtime")
		}
		if s.Consent.ContentDrift {
			e.Drift = append(e.Drift, "content")
		}
		out = append(out, e)
	}
	for _, w := range l.eng.Webhooks() { // notify-only: no answer, no consent
		e := listEntry{Source: hookspec.SourceWebhook, Layer: w.Layer, Name: w.Name + " -> " + w.URL, Events: w.Events, Matcher: w.Matcher,
			Timeout: w.Timeout, Enabled: true, Status: "loaded"}
		if w.Refused != "" {
			e.Enabled, e.Status, e.Error = false, "refused", w.Refused
		}
		out = append(out, e)
	}
	return out
}

func runHooksList(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	release := func([]string) {}
	if !c.json {
		release = c.holdWarnings() // the list prints the load warnings itself
		defer release(nil)
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
		out := map[string]any{"home": l.eng.Home(), "hooks": entries}
		if st, ok := l.eng.Bundle(); ok {
			out["bundle"] = st
		}
		return c.printJSON(out)
	}
	if st, ok := l.eng.Bundle(); ok {
		fmt.Fprintln(c.stdout, printable(describeBundle(st)))
	}
	if len(entries) == 0 {
		fmt.Fprintf(c.stdout, "no hooks in %s\n", printable(l.eng.Home()))
		release(printListWarnings(c, entries, l.eng))
		return exitOK
	}
	if p := l.eng.Policy(); p.File != "" {
		fmt.Fprintf(c.stdout, "managed home: %s (%s)\n", printable(filepath.Dir(p.File)), describePolicy(p))
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
		if e.Type != "" {
			source += " (" + e.Type + ")"
		}
		if e.Dialect != "" {
			source += " (" + e.Dialect + ")"
		}
		if e.Layer == engine.LayerManaged {
			source += " [managed]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%gs\t%s\t%s\n", source, printable(e.Name), printable(orDash(strings.Join(e.Events, ","))), prio,
			printable(orDash(e.Matcher)), e.Timeout, printable(perms), c.paint(stateColour(e), printable(describeState(e))))
	}
	tw.Flush()
	printDialected(c, entries)
	release(printListWarnings(c, entries, l.eng))
	return exitOK
}

// printListWarnings prints the warnings of the hooks listed, then those about config.yaml
// that belong to no hook (a misspelt key: the hooks it holds are not listed at all), and
// returns what the list showed of them: these and the errors of the hooks that did not load.
func printListWarnings(c *cli, entries []listEntry, eng *engine.Engine) []string {
	var printed []string
	for _, e := range entries {
		if e.Error != "" {
			printed = append(printed, e.Error)
		}
		for _, w := range e.Warnings {
			fmt.Fprintf(c.stdout, "warning: %s\n", printable(w))
			printed = append(printed, w)
		}
	}
	config := filepath.Join(eng.Home(), "config.yaml")
	for _, w := range eng.Warnings() {
		if w.File == config && !slices.Contains(printed, w.String()) {
			fmt.Fprintf(c.stdout, "warning: %s\n", printable(w.String()))
			printed = append(printed, w.String())
		}
	}
	return printed
}

// loadedWarnings are the warnings of a hook that loaded (those of one that did not are its
// error), as strings; nil when there are none.
func loadedWarnings(status string, ws []hookspec.Warning) []string {
	if status != "loaded" || len(ws) == 0 {
		return nil
	}
	return warningStrings(ws)
}

func describeState(e listEntry) string {
	s := e.Status
	if e.Consent != "" {
		s = e.Consent
		if len(e.Drift) > 0 {
			s += " (changed since approval: " + strings.Join(e.Drift, ", ") + ")"
		}
	}
	switch {
	case len(e.Warnings) > 0 && e.Consent != "":
		s += ", loaded with warnings"
	case len(e.Warnings) > 0:
		s = "loaded with warnings"
	}
	if e.Error != "" {
		s += ": " + e.Error
	}
	return s
}

// printDialected says, under the table, how each hook written for another agent runs.
func printDialected(c *cli, entries []listEntry) {
	first := true
	for _, e := range entries {
		if e.Dialect == "" {
			continue
		}
		if first {
			fmt.Fprintln(c.stdout, "hooks written for other agents:")
			first = false
		}
		fmt.Fprintf(c.stdout, "  %s [%s]: %s\n", printable(e.Name), printable(strings.Join(e.Events, ",")), printable(describeDialected(e)))
	}
}

// describeDialected says how a hook written for another agent runs: its dialect, its
// working directory, its if condition, in the background or not.
func describeDialected(e listEntry) string {
	where := "the host's working directory"
	if e.WorkDir != "" {
		where = e.WorkDir
	}
	d := fmt.Sprintf("dialect %s, runs in %s", e.Dialect, where)
	if e.Subagent {
		d += ", for subagents about to stop (SubagentStop)"
	}
	if e.If != "" {
		d += ", if " + e.If
	}
	if e.Async {
		d += ", in the background (its answer is ignored)"
	}
	return d
}
