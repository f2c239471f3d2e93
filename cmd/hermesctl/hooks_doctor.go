package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/netguard"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"github.com/hermes-hooks/hermes/shell"
	"github.com/hermes-hooks/hermes/webhook"
)

var hooksDoctorCommand = &command{
	name:     "hooks doctor",
	json:     true,
	help:     "check every hook as the engine loads it; smoke-run Lua hooks (in a dry run) and approved shell hooks; exit 3 when a problem is found",
	examples: []string{"hermesctl hooks doctor  # exit 3 when a hook has a problem"},
	run:      runHooksDoctor,
}

// check is one hook's health, the same in text and JSON.
type check struct {
	Source   string   `json:"source"`
	Name     string   `json:"name"`
	Events   []string `json:"events"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
	Notes    []string `json:"notes"`

	dir   string             // the hook's directory, for the load warnings about its files
	warns []hookspec.Warning // a shell hook's: the load warnings about its entry
}

func (ch *check) problem(format string, args ...any) {
	ch.Problems = append(ch.Problems, fmt.Sprintf(format, args...))
}
func (ch *check) note(format string, args ...any) {
	ch.Notes = append(ch.Notes, fmt.Sprintf(format, args...))
}

func runHooksDoctor(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	release := func([]string) {}
	if !c.json {
		release = c.holdWarnings() // every load warning is a problem or a warning of the report
		defer release(nil)
	}
	// A dry run: the Lua hooks' store is a scratch one, their http, exec and file writes are
	// refused, the host's functions are stand-ins, and the engine runs no shell hook (doctor
	// runs the approved ones itself, below).
	host := &hostRecorder{}
	gw, code := c.openGateway(ctx, gateway.Options{Engine: engine.Options{IgnoreConsent: true, DryRun: true, HostFuncs: host.funcs()}, HostFuncs: host.funcs()})
	if gw == nil {
		return code
	}
	l := &loaded{eng: gw.Engine(), gw: gw}
	defer l.close(ctx)
	checks, gatewayChecks, pluginChecks := luaChecks(ctx, l)
	luaSmoke(ctx, l, host, pluginChecks, gatewayChecks)
	for _, s := range l.eng.ShellHooks() {
		checks = append(checks, c.shellCheck(ctx, s, l.eng.Policy()))
	}
	for _, w := range l.eng.Webhooks() {
		checks = append(checks, webhookCheck(w))
	}
	warnings := attach(append(slices.Clone(l.eng.Warnings()), l.gw.Warnings()...), checks)
	problems := len(warnings) // a load warning is a hook not doing what its author meant
	homeProblems := checkHome(l.eng.Home(), c.home)
	problems += len(homeProblems)
	for _, ch := range checks {
		ch.OK = len(ch.Problems) == 0
		if !ch.OK {
			problems++
		}
		ch.Problems, ch.Notes = nonNil(ch.Problems), nonNil(ch.Notes)
	}
	policy := l.eng.Policy()
	if c.json {
		out := map[string]any{"home": l.eng.Home(), "home_problems": nonNil(homeProblems), "checks": nonNilChecks(checks), "warnings": warningStrings(warnings), "problems": problems}
		if policy.File != "" {
			out["policy"] = policy
		}
		if code := c.printJSON(out); code != exitOK {
			return code
		}
	} else {
		if policy.File != "" {
			fmt.Fprintf(c.stdout, "managed home: %s (%s)\n", printable(filepath.Dir(policy.File)), describePolicy(policy))
		}
		for _, p := range homeProblems {
			fmt.Fprintf(c.stdout, "home: %s\n", p)
		}
		printChecks(c, checks, warnings, problems, len(homeProblems))
		release(warningStrings(append(slices.Clone(l.eng.Warnings()), l.gw.Warnings()...)))
	}
	if problems > 0 {
		return exitFailed
	}
	return exitOK
}

// luaChecks are the checks of the loaded home's gateway hooks and plugins, in order, and
// those of the ones that loaded, by name.
func luaChecks(ctx context.Context, l *loaded) (checks []*check, gatewayChecks, pluginChecks map[string]*check) {
	gatewayChecks, pluginChecks = map[string]*check{}, map[string]*check{}
	python := pythonCheck(ctx)
	for _, h := range l.gw.Hooks() {
		ch := &check{Source: hookspec.SourceGateway, Name: h.Name, Events: h.Events, dir: h.Dir}
		if h.Status == "unapproved" {
			pythonUnapproved(ch, h.Error, h.Consent, false)
		} else {
			luaCheck(ch, h.Status, h.Error, h.Permissions)
		}
		if h.Runtime == engine.RuntimePython && h.Status != "disabled" {
			python(ch, h.Python, "HOOK.yaml")
			pythonDrift(ch, h.Consent)
		}
		if h.Layer == engine.LayerManaged {
			ch.note("managed gateway hook (%s): runs first, needs no consent, cannot be disabled or replaced from the user's home", h.Dir)
		}
		checks = append(checks, ch)
		if h.Status == "loaded" {
			gatewayChecks[h.Name] = ch
		}
	}
	for _, p := range l.eng.Plugins() {
		ch := &check{Source: hookspec.SourcePlugin, Name: p.Name, Events: p.Hooks, dir: p.Dir}
		if p.Status == "unapproved" {
			pythonUnapproved(ch, p.Error, p.Consent.State(), slices.ContainsFunc(p.Hooks, hooknames.CanBlock))
		} else {
			luaCheck(ch, p.Status, p.Error, p.Permissions)
		}
		if p.Runtime == engine.RuntimePython && p.Status != "disabled" {
			python(ch, p.Python, "plugin.yaml")
			pythonDrift(ch, p.Consent.State())
		}
		if p.Status == "loaded" && len(p.Hooks) == 0 {
			ch.problem("register(ctx) registered no hook")
		}
		if p.Layer == engine.LayerManaged {
			ch.note("managed plugin (%s): runs first, needs no consent, cannot be disabled or replaced from the user's home", p.Dir)
		}
		for _, r := range p.KwargsRebuilt {
			ch.note("kwargs rebuilt for every call (%s): the tables are refilled only for a callback that just reads kw, "+
				"or passes it to local functions that just read it, and whose closures cannot reach it; "+
				"keep kw inside the callback (hand helpers the fields they need)", r)
		}
		checks = append(checks, ch)
		if p.Status == "loaded" {
			pluginChecks[p.Name] = ch
		}
	}
	return checks, gatewayChecks, pluginChecks
}

// pythonCheck returns the check of a Python hook's interpreter (python: in its manifest; ""
// = python3 on $PATH): a problem naming the fix when it is missing or older than 3.9. Each
// interpreter is run once.
func pythonCheck(ctx context.Context) func(ch *check, interpreter, manifest string) {
	seen := map[string]error{}
	return func(ch *check, interpreter, manifest string) {
		err, ok := seen[interpreter]
		if !ok {
			_, err = shell.PythonVersion(ctx, interpreter)
			seen[interpreter] = err
		}
		if err != nil {
			ch.problem("a Python hook, but %v: install python3 %d.%d or later, or name one with python: in %s",
				err, shell.PythonMinVersion[0], shell.PythonMinVersion[1], manifest)
		}
	}
}

// pythonUnapproved says on ch why a Python hook that is not approved does not run, as
// shellApproved says it of a shell hook: not a hook that fails to load, but one waiting for
// its approval. guards: it is a plugin whose files register points that can block (what a
// plugin edited since its approval blocks in pinned mode).
func pythonUnapproved(ch *check, errText string, st *hookspec.ConsentState, guards bool) {
	switch {
	case st != nil && st.Drifted:
		ch.problem("%s", st.Reason)
		if guards {
			ch.problem("so the engine does not run it: it blocks every call it would match until it is approved again; nor does doctor run it")
		} else {
			ch.problem("so the engine skips it until it is approved again, nor does doctor run it")
		}
	default:
		ch.problem("%s; the engine does not run it, nor does doctor", errText)
	}
}

// pythonDrift says on ch that the files of an approved Python hook changed since its
// approval (the default mode runs it and reports the drift), as shellCheck says it of a
// shell hook's script.
func pythonDrift(ch *check, st *hookspec.ConsentState) {
	if st != nil && st.Approved && (st.ContentDrift || st.MtimeDrift) && st.Reason != "" {
		ch.problem("%s", st.Reason)
	}
}

func luaCheck(ch *check, status, errText string, perms hookspec.Permissions) {
	switch status {
	case "disabled":
		ch.note("disabled")
	case "loaded":
		ch.note("loads and registers %s", orDash(strings.Join(ch.Events, ", ")))
	default:
		ch.problem("does not load: %s", errText)
	}
	ch.note("permissions: %s", describePermissions(perms))
}

// shellCheck inspects a shell hook; it runs the hook only when it is approved.
func (c *cli) shellCheck(ctx context.Context, s *engine.ShellHookInfo, policy engine.Policy) *check {
	ch := &check{Source: hookspec.SourceShell, Name: s.Command, Events: []string{s.Event}, warns: shellWarnings(s)}
	if s.Type != "" {
		ch.Name = netguard.RedactURL(s.Command)
	}
	if s.Refused != "" {
		ch.problem("%s", s.Refused)
		return ch
	}
	managed := s.Layer == engine.LayerManaged
	if managed {
		ch.note("managed hook (%s): runs first, needs no consent, cannot be disabled from the user's home", s.File)
	}
	if s.Dialect != "" {
		ch.note("%s", describeDialected(listEntry{Dialect: s.Dialect, WorkDir: s.WorkDir, If: s.If, Async: s.Async, Subagent: s.Subagent}))
	}
	st := s.Consent
	if managed {
		st.Approved, st.ContentDrift, st.MtimeDrift = true, false, false
	}
	noScript := st.Unanalysable != "" || st.Script == "" && st.Scripts != nil // a /bin/sh line: nothing to check by name
	switch {
	case s.Type != "":
		noScript = true
		ch.note("POSTs the payload to %s; private addresses %s", netguard.RedactURL(s.Command), privateNote(s))
	case st.Unanalysable != "":
		ch.note("the line uses %s, which cannot be analysed: the files it runs are neither checked nor pinned", st.Unanalysable)
	case noScript:
		ch.note("the line runs no script of its own")
	case !st.Exists:
		ch.problem("script %s does not exist", st.Script)
	case !st.Executable:
		ch.problem("script %s is not executable (chmod +x %s)", st.Script, st.Script)
	default:
		ch.note("script %s exists and is executable", orDash(st.Resolved))
	}
	if s.DriftBlocks() && s.Type == "" && (noScript || st.Exists && st.Executable) { // else said just above
		if why := s.Hook().Unfound(); why != "" {
			ch.problem("the guard cannot run: %s; %s", why, unfoundEffect(s.FailClosed))
		}
	}
	if st.ContentDrift || st.MtimeDrift {
		ch.problem("%s", st.Reason) // says what changed and what to do
	}
	if !shellApproved(ch, s, st, managed) {
		return ch
	}
	if !managed {
		ch.note("approved")
	}
	if !noScript && (!st.Exists || !st.Executable) {
		return ch
	}
	c.shellSmoke(ctx, ch, s, policy)
	return ch
}

// shellApproved says on ch why a shell hook does not run, when it is not approved (false).
func shellApproved(ch *check, s *engine.ShellHookInfo, st consent.Status, managed bool) bool {
	if !st.Approved {
		reason := st.Reason
		switch {
		case st.Drifted && !managed:
			if !st.ContentDrift && !st.MtimeDrift { // other files, or a line no longer analysable
				ch.problem("%s", reason)
			}
			if s.DriftBlocks() {
				ch.problem("so the engine does not run it: it blocks every call it would match until it is approved again; nor does doctor run it")
			} else {
				ch.problem("so the engine skips it until it is approved again, nor does doctor run it")
			}
			return false
		case st.ContentDrift || st.MtimeDrift: // said just above
			ch.problem("so the engine does not run it, nor does doctor")
			return false
		case reason == "":
			reason = "not approved; approve it with `" + consent.AllowHint(s.Event, s.Command) + "`"
		}
		if s.Type == shell.TypeHTTP { // hooks allow takes the URL without its query values too
			reason = netguard.RedactIn(reason, s.Command)
		}
		ch.problem("%s; the engine does not run it, nor does doctor", reason)
		return false
	}
	return true
}

// shellSmoke runs an approved shell hook once on its sample payload and says how it went.
func (c *cli) shellSmoke(ctx context.Context, ch *check, s *engine.ShellHookInfo, policy engine.Policy) {
	cwd, _ := os.Getwd()
	sample := smokeKwargs(s, cwd)
	res := s.Hook().Run(ctx, sample, shell.RunOptions{Logger: c.logger, AllowedURLs: policy.AllowedHTTPURLs})
	took := res.Duration.Round(100 * time.Microsecond)
	switch {
	case res.Status == hookspec.StatusSkipped:
		by := "matcher " + s.Matcher
		if s.If != "" {
			by = strings.TrimPrefix(by+" or its if condition "+s.If, "matcher  or ")
		}
		what := fmt.Sprintf("tool %v", sample["tool_name"])
		if sub := hookspec.SubagentOf(sample); sub != nil {
			what = fmt.Sprintf("a subagent of type %q", sub.Type)
		}
		ch.note("smoke run skipped: %s does not select the sample call (%s)", by, what)
		return
	case res.Status != hookspec.StatusOK:
		ch.problem("smoke run %s after %s: %s", res.Status, took, res.Err)
	case strings.TrimSpace(res.Stdout) == "":
		ch.note("smoke run ok in %s (no output: no effect)", took)
	case s.Dialect != "": // Claude Code's answers: plain text is fine, problems are statuses
		ch.note("smoke run ok in %s: %s", took, truncate(compactJSON(res.Parsed), 80))
		return
	case res.Parsed == nil:
		ch.problem("smoke run printed output that is not JSON (%s): %q", took, truncate(strings.TrimSpace(res.Stdout), 80))
	default:
		if _, isObject := res.Parsed.(map[string]any); !isObject {
			ch.problem("smoke run printed JSON that is not an object (%s): %s", took, truncate(compactJSON(res.Parsed), 80))
		} else {
			ch.note("smoke run ok in %s: %s", took, truncate(compactJSON(res.Parsed), 80))
		}
	}
	if res.Status == hookspec.StatusOK && s.Type == "" && res.ExitCode != 0 && !(s.Event == hooknames.PreToolCall && res.ExitCode == 2) {
		ch.problem("smoke run exited with code %d", res.ExitCode)
	}
}

// luaSmoke runs the loaded Lua hooks in the engine's dry run, each event they serve once on
// its sample payload (a gateway subscription "agent:*" on each event of that prefix): a
// hook that fails, or answers what no hook may answer there (the engine fails such an
// answer, at the hook's file:line), is a problem of its check; a call refused only because
// of the dry run is a note.
func luaSmoke(ctx context.Context, l *loaded, host *hostRecorder, plugins, gateways map[string]*check) {
	cwd, _ := os.Getwd()
	record := func(checks map[string]*check, event string, results []hookspec.Result) {
		for _, r := range results {
			ch := checks[r.Name]
			switch {
			case ch == nil || r.Status == hookspec.StatusSkipped:
			case engine.DryRunRefused(r):
				ch.note("smoke run %s: %s (the dry run refuses it: doctor changes nothing)", event, r.Err)
			case r.Status.Failed():
				ch.problem("smoke run %s %s on the sample payload: %s", event, r.Status, r.Err)
			default:
				ch.note("smoke run %s ok: %s", event, truncate(compactJSON(r.Result), 80))
			}
		}
	}
	var events []string
	for _, ch := range plugins {
		for _, ev := range ch.Events {
			if hookspec.IsHook(ev) && !slices.Contains(events, ev) {
				events = append(events, ev)
			}
		}
	}
	slices.Sort(events)
	for _, ev := range events {
		kw := hookspec.SampleKwargs(ev, cwd)
		if ev == hooknames.PreGatewayDispatch {
			host.install(kw)
		}
		record(plugins, ev, l.eng.Fire(ctx, hookspec.HookNamed(ev), kw).Hooks)
	}
	events = nil
	for _, ch := range gateways {
		for _, sub := range ch.Events {
			for _, ev := range sampleEvents(sub) {
				if !slices.Contains(events, ev) {
					events = append(events, ev)
				}
			}
		}
	}
	slices.Sort(events)
	for _, ev := range events {
		record(gateways, ev, l.gw.EmitSync(ctx, hookspec.NamedEvent{Name: ev, Data: hookspec.SampleContext(ev)}))
	}
}

// sampleEvents are the events a smoke run emits for a gateway subscription: the event
// itself, or for "prefix:*" each event the gateway emits with that prefix (command:* is
// a sample command, command:test).
func sampleEvents(sub string) []string {
	prefix, ok := strings.CutSuffix(sub, ":*")
	if !ok {
		return []string{sub}
	}
	if prefix == strings.TrimSuffix(hookspec.CommandPrefix, ":") {
		return []string{hookspec.CommandPrefix + "test"}
	}
	var out []string
	for _, ev := range []string{hookspec.GatewayStartup, hookspec.SessionStart, hookspec.SessionEnd, hookspec.SessionReset,
		hookspec.AgentStart, hookspec.AgentStep, hookspec.AgentEnd} {
		if strings.HasPrefix(ev, prefix+":") {
			out = append(out, ev)
		}
	}
	return out
}

// unfoundEffect is what a guard that cannot run does until it can.
func unfoundEffect(failClosed bool) string {
	if failClosed {
		return "until it can, it blocks every call it is started for (fail_closed)"
	}
	return "until it can, it fails open: every call it guards goes through"
}

// smokeKwargs is the sample call of a shell hook's smoke run: its event's sample payload;
// for a hook that serves subagents about to stop (SubagentStop), one of the type its
// matcher names first (code-reviewer, ^my-plugin:reviewer$; a regular expression with more
// to it names none).
func smokeKwargs(s *engine.ShellHookInfo, cwd string) map[string]any {
	kw := hookspec.SampleKwargs(s.Event, cwd)
	if s.Subagent {
		typ, _, _ := strings.Cut(s.Matcher, "|")
		typ = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(typ), "^"), "$")
		if !literalType().MatchString(typ) {
			typ = ""
		}
		kw["subagent"] = map[string]any{"agent_id": "test-agent", "agent_type": typ, "agent_transcript_path": ""}
	}
	return kw
}

// literalType is a subagent type a matcher names as it is: a regular expression of these
// characters matches only itself.
var literalType = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_:-]+$`) })

func printChecks(c *cli, checks []*check, warnings []hookspec.Warning, problems, homeProblems int) {
	for _, ch := range checks {
		mark := c.paint(green, "ok") + "  "
		if !ch.OK {
			mark = c.paint(red, "FAIL")
		}
		fmt.Fprintf(c.stdout, "%s %-7s %s [%s]\n", mark, ch.Source, printable(ch.Name), printable(strings.Join(ch.Events, ", ")))
		for _, p := range ch.Problems {
			fmt.Fprintf(c.stdout, "       problem: %s\n", printable(p))
		}
		for _, n := range ch.Notes {
			fmt.Fprintf(c.stdout, "       %s\n", printable(n))
		}
	}
	for _, w := range warnings {
		fmt.Fprintf(c.stdout, "warning: %s\n", printable(w.String()))
	}
	if len(checks) == 0 {
		fmt.Fprintln(c.stdout, "no hooks found")
	}
	switch failing := problems - len(warnings) - homeProblems; {
	case problems == 0:
		fmt.Fprintln(c.stdout, "healthy: no problem found")
	case failing == 0 && len(warnings) == 0:
		fmt.Fprintln(c.stdout, "the home has problems (above)")
	case len(warnings) == 0:
		fmt.Fprintf(c.stdout, "%d hook(s) with problems\n", failing)
	default:
		fmt.Fprintf(c.stdout, "%d hook(s) with problems, %d warning(s): a warning is a setting or name that does not do what it says\n", failing, len(warnings))
	}
}

// attach makes each load warning a problem of the hook whose files it is about, unless the
// check shows it already (a plugin that does not load), and returns the others.
func attach(warnings []hookspec.Warning, checks []*check) []hookspec.Warning {
	var rest []hookspec.Warning
	for _, w := range warnings {
		owner := (*check)(nil)
		for _, ch := range checks {
			if inDir(w, ch.dir) || slices.Contains(ch.warns, w) {
				owner = ch
			}
		}
		switch {
		case owner == nil:
			rest = append(rest, w)
		case !slices.ContainsFunc(owner.Problems, func(p string) bool { return strings.Contains(p, w.String()) }):
			owner.problem("%s", w.String())
		}
	}
	return rest
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilChecks(c []*check) []*check {
	if c == nil {
		return []*check{}
	}
	return c
}

func warningStrings(ws []hookspec.Warning) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w.String())
	}
	return out
}

// privateNote says whether an HTTP hook may reach private addresses, and why.
func privateNote(s *engine.ShellHookInfo) string {
	if h := s.Hook(); h != nil && h.HTTP != nil && h.HTTP.AllowPrivate {
		return "allowed (allow_private_network: true)"
	}
	return "refused unless the managed policy's allowed_http_urls names the URL"
}

// webhookCheck inspects an outbound webhook without sending anything (webhooks test does).
func webhookCheck(w *engine.WebhookInfo) *check {
	ch := &check{Source: hookspec.SourceWebhook, Name: w.Name, Events: w.Events}
	if w.Refused != "" {
		ch.problem("%s", w.Refused)
		return ch
	}
	if w.Layer == engine.LayerManaged {
		ch.note("managed webhook (%s)", w.File)
	}
	if _, err := webhook.DecodeSecret(os.Getenv(w.SecretEnv)); err != nil {
		ch.problem("$%s: %v; nothing is sent until it is set", w.SecretEnv, err)
	} else {
		ch.note("signed with the secret in $%s", w.SecretEnv)
	}
	ch.note("delivers to %s; `hermesctl webhooks test %s` sends a sample", w.URL, w.Name)
	return ch
}

// homeFolders are the folders of a home the engine reads (SPEC §2), and the others it keeps.
var homeFolders = []string{"plugins", "hooks", "agent-hooks", "state"}

// checkHome is what doctor finds wrong with the home itself, where no hook check would
// show it: a home that does not exist (nothing loads, and every check passes), and a folder
// whose name is a misspelling of one the engine reads (plugin/ for plugins/: its hooks
// never load). flag is the --home given ("" when the home came from $HERMES_HOME or the
// default).
func checkHome(home, flag string) []string {
	fi, err := os.Stat(home)
	if err != nil || !fi.IsDir() {
		from, fix := "the default home", "or set $HERMES_HOME or --home to your home"
		switch {
		case flag != "":
			from, fix = "--home", "or give --home your home"
		case os.Getenv("HERMES_HOME") != "":
			from, fix = "$HERMES_HOME", "or point $HERMES_HOME at your home"
		}
		return []string{fmt.Sprintf("%s (from %s) is not a directory: nothing loads from it; create it, %s", printable(home), from, fix)}
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		return []string{fmt.Sprintf("%s cannot be read: %v", printable(home), err)}
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || slices.Contains(homeFolders, e.Name()) {
			continue
		}
		if want := suggest.Closest(e.Name(), homeFolders[:2]); want != "" {
			out = append(out, fmt.Sprintf("%s is not read: did you mean %s/? (hooks load from %s)",
				printable(filepath.Join(home, e.Name())+"/"), want, printable(filepath.Join(home, want)+"/")))
		}
	}
	return out
}
