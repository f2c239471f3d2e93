package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/atomicfile"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/jsonvalue"
	"github.com/hermes-hooks/hermes/internal/safefile"
	"github.com/hermes-hooks/hermes/shell"
)

// `hermesctl hook install|uninstall <agent>` edits the agent's settings file: an entry that
// runs `hermesctl hook <agent>` for each of its events the home has hooks for. The user's
// other hooks and settings stay as they were, in their order.

var hookInstallCommand = &command{
	name: "hook install",
	json: true,
	examples: []string{"hermesctl hook install claude  # .claude/settings.json of this directory",
		"hermesctl hook install codex --user --dry-run  # what ~/.codex/hooks.json would get"},
	args: "claude|codex|gemini",
	help: "add `hermesctl hook <agent>` to the agent's settings file for each event the home has hooks for (idempotent; the user's other hooks are kept)",
	flags: func(fs *flag.FlagSet) runFunc {
		a := installFlags(fs)
		return func(ctx context.Context, c *cli, args []string) int { return runHookInstall(ctx, c, *a, args, true) }
	},
}

var hookUninstallCommand = &command{
	name:     "hook uninstall",
	json:     true,
	examples: []string{"hermesctl hook uninstall gemini  # only the entries of hermesctl hook gemini"},
	args:     "claude|codex|gemini",
	help:     "remove the entries `hook install` added from the agent's settings file, and nothing else",
	flags: func(fs *flag.FlagSet) runFunc {
		a := installFlags(fs)
		return func(ctx context.Context, c *cli, args []string) int { return runHookInstall(ctx, c, *a, args, false) }
	},
}

// installArgs are the flags of hook install and uninstall.
type installArgs struct {
	user, local, dryRun bool
	project             string
}

func installFlags(fs *flag.FlagSet) *installArgs {
	a := &installArgs{}
	fs.BoolVar(&a.user, "user", false, "the user's settings (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json)")
	fs.StringVar(&a.project, "project", "", "the settings of the project in `DIR` (default: the current directory)")
	fs.BoolVar(&a.local, "local", false, "Claude Code: the project's .claude/settings.local.json, which is not committed")
	fs.BoolVar(&a.dryRun, "dry-run", false, "print what would change, and change nothing")
	return a
}

// settingsFile is the agent's settings file the flags name.
func settingsFile(agent string, a installArgs) (string, error) {
	if a.user && (a.project != "" || a.local) {
		return "", errors.New("--user and --project/--local name different files: give one")
	}
	if a.local && agent != shell.DialectClaude {
		return "", errors.New("--local is Claude Code's settings.local.json; other agents have none")
	}
	dir, name := "."+agent, "settings.json"
	if agent == shell.DialectCodex {
		name = "hooks.json"
	}
	if a.local {
		name = "settings.local.json"
	}
	base := a.project
	if a.user {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = home
	} else if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		base = wd
	}
	return filepath.Abs(filepath.Join(base, dir, name))
}

func runHookInstall(ctx context.Context, c *cli, a installArgs, args []string, install bool) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	agent := args[0]
	if !slices.Contains(shell.Dialects, agent) {
		return c.fail(exitUsage, "unknown agent %q: claude, codex or gemini", agent)
	}
	file, err := settingsFile(agent, a)
	if err != nil {
		return c.fail(exitUsage, "%v", err)
	}
	settings, err := readSettings(file)
	if err != nil {
		return c.fail(exitConfig, "%v", err)
	}
	var events []string
	if install {
		if events, err = c.homeEvents(ctx, agent); err != nil {
			return c.fail(exitConfig, "%v", err)
		}
		if len(events) == 0 {
			fmt.Fprintf(c.stdout, "the home %s has no hooks %s can call: nothing to install\n", homedir.Resolve(c.home), agentTitle(agent))
			return exitOK
		}
	}
	added, removed := editSettings(settings, agent, c.agentCommand(agent), events)
	return c.writeSettings(file, settings, agent, added, removed, a.dryRun)
}

// homeEvents are the agent's events the home has hooks for, in the documented order.
func (c *cli) homeEvents(ctx context.Context, agent string) ([]string, error) {
	eng, err := engine.New(ctx, engine.Options{Home: c.home, Logger: c.logger, DisableWebhooks: true, IgnoreConsent: true})
	if err != nil {
		return nil, fmt.Errorf("cannot load %s: %v", homedir.Resolve(c.home), err)
	}
	defer eng.Close(context.WithoutCancel(ctx))
	var events []string
	for _, h := range shell.DialectHooks(agent) {
		ev := shell.DialectEvent(agent, h)
		if eng.HasHooks(hookspec.HookNamed(h)) && !slices.Contains(events, ev) {
			events = append(events, ev)
		}
		if h == "pre_verify" && eng.HasHooks(hookspec.HookNamed(h)) && agent != shell.DialectGemini && !slices.Contains(events, "SubagentStop") {
			events = append(events, "SubagentStop") // a subagent about to stop is pre_verify too
		}
	}
	return events, nil
}

// agentCommand is the command line the entries run: this program by the path the agent can
// find it at, and the home when it is not the default one.
func (c *cli) agentCommand(agent string) string {
	exe, _ := os.Executable()
	if filepath.Base(exe) != "hermesctl" { // go run, a test binary: the one on PATH
		if p, err := exec.LookPath("hermesctl"); err == nil {
			exe = p
		}
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	line := shellQuote(exe) + " hook " + agent
	if c.home != "" || os.Getenv("HERMES_HOME") != "" {
		home, _ := filepath.Abs(homedir.Resolve(c.home))
		line += " --home " + shellQuote(home)
	}
	return line
}

// shellQuote quotes s for /bin/sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// readSettings reads the settings file, or an empty object when there is none. A file that
// is not a JSON object is an error, never overwritten.
func readSettings(file string) (*jsonvalue.Object, error) {
	b, err := safefile.ReadFile(file, 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return jsonvalue.NewObject(), nil
	}
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(b)) == "" {
		return jsonvalue.NewObject(), nil
	}
	v, err := jsonvalue.DecodeOrdered(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v); fix it, then run this again: it is left as it is", file, err)
	}
	o, ok := v.(*jsonvalue.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not a JSON object; fix it, then run this again: it is left as it is", file)
	}
	return o, nil
}

func (c *cli) writeSettings(file string, settings *jsonvalue.Object, agent string, added, removed []string, dryRun bool) int {
	if c.json {
		code := c.saveSettings(file, settings, len(added)+len(removed) > 0 && !dryRun)
		if code == exitOK {
			code = c.printJSON(map[string]any{"file": file, "command": c.agentCommand(agent), "added": nonNil(added), "removed": nonNil(removed),
				"written": len(added)+len(removed) > 0 && !dryRun})
		}
		return code
	}
	verb := map[bool]string{true: "would ", false: ""}[dryRun]
	for _, ev := range removed {
		fmt.Fprintf(c.stdout, "%sremove the entry for %s\n", verb, ev)
	}
	for _, ev := range added {
		fmt.Fprintf(c.stdout, "%sadd %s: %s\n", verb, ev, c.agentCommand(agent))
	}
	if len(added)+len(removed) == 0 {
		fmt.Fprintf(c.stdout, "%s is up to date\n", file)
		return exitOK
	}
	if dryRun {
		return exitOK
	}
	if code := c.saveSettings(file, settings, true); code != exitOK {
		return code
	}
	fmt.Fprintf(c.stdout, "wrote %s\n", file)
	if agent == shell.DialectCodex {
		fmt.Fprintln(c.stderr, "note: Codex runs hooks only with codex_hooks = true under [features] in its config.toml")
	}
	return exitOK
}

// saveSettings writes the settings file (when write), keeping its mode.
func (c *cli) saveSettings(file string, settings *jsonvalue.Object, write bool) int {
	if !write {
		return exitOK
	}
	b, err := jsonvalue.EncodeIndented(settings)
	if err != nil {
		return c.fail(exitInternal, "%v", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return c.fail(exitConfig, "%v", err)
	}
	perm := os.FileMode(0o644)
	if st, err := os.Stat(file); err == nil {
		perm = st.Mode().Perm()
	}
	if err := atomicfile.Write(file, b, perm, nil); err != nil {
		return c.fail(exitConfig, "cannot write %s: %v", file, err)
	}
	return exitOK
}

// editSettings makes the hooks of settings run cmd for each of events, and no entry of ours
// run for any other: entries of ours (calling `hermesctl hook <agent>`) with another
// command line are replaced, the user's own are kept. It returns the events it added an
// entry to and removed one from.
func editSettings(settings *jsonvalue.Object, agent, cmd string, events []string) (added, removed []string) {
	hooks, _ := settingsObject(settings, "hooks")
	for _, ev := range hooks.Keys() {
		groups, _ := hooks.Get(ev)
		kept, had := withoutOurs(groups, agent, cmd, slices.Contains(events, ev))
		if had {
			removed = append(removed, ev)
		}
		if len(kept) == 0 {
			hooks.Delete(ev)
		} else {
			hooks.Set(ev, kept)
		}
	}
	for _, ev := range events {
		groups, _ := hooks.Get(ev)
		list, _ := groups.([]any)
		if hasEntry(list, cmd) {
			continue
		}
		hooks.Set(ev, append(list, ourGroup(agent, cmd)))
		added = append(added, ev)
	}
	if hooks.Len() == 0 {
		settings.Delete("hooks")
	} else {
		settings.Set("hooks", hooks)
	}
	return added, removed
}

// settingsObject is the object at key k of o, or a new one when there is none or the value
// is not an object (ok false).
func settingsObject(o *jsonvalue.Object, k string) (*jsonvalue.Object, bool) {
	v, _ := o.Get(k)
	if obj, ok := v.(*jsonvalue.Object); ok {
		return obj, true
	}
	return jsonvalue.NewObject(), false
}

// withoutOurs is an event's matcher groups without the hooks of ours, except (when keep)
// one that runs cmd; had says whether one was taken out. A group left with no hook goes.
func withoutOurs(groups any, agent, cmd string, keep bool) (kept []any, had bool) {
	list, ok := groups.([]any)
	if !ok {
		return []any{groups}, false // not the documented shape: not ours to change
	}
	for _, g := range list {
		group, ok := g.(*jsonvalue.Object)
		if !ok {
			kept = append(kept, g)
			continue
		}
		hv, _ := group.Get("hooks")
		hs, ok := hv.([]any)
		if !ok {
			kept = append(kept, g)
			continue
		}
		var rest []any
		for _, h := range hs {
			line := hookCommand(h)
			if shell.CallsAgentHook(line) == agent && !(keep && line == cmd) {
				had = true
				continue
			}
			rest = append(rest, h)
		}
		if len(rest) > 0 {
			group.Set("hooks", rest)
			kept = append(kept, group)
		}
	}
	return kept, had
}

// hasEntry reports whether a group of list runs cmd.
func hasEntry(list []any, cmd string) bool {
	for _, g := range list {
		if group, ok := g.(*jsonvalue.Object); ok {
			hv, _ := group.Get("hooks")
			hs, _ := hv.([]any)
			if slices.ContainsFunc(hs, func(h any) bool { return hookCommand(h) == cmd }) {
				return true
			}
		}
	}
	return false
}

// hookCommand is the command of a hook object ("" for none).
func hookCommand(h any) string {
	o, ok := h.(*jsonvalue.Object)
	if !ok {
		return ""
	}
	v, _ := o.Get("command")
	s, _ := v.(string)
	return s
}

// ourGroup is the matcher group of our entry: every tool (no matcher), a command hook with
// a timeout in the agent's unit (Gemini CLI counts milliseconds).
func ourGroup(agent, cmd string) *jsonvalue.Object {
	h := jsonvalue.NewObject()
	h.Set("type", "command")
	h.Set("command", cmd)
	timeout := "60"
	if agent == shell.DialectGemini {
		timeout = "60000"
	}
	h.Set("timeout", json.Number(timeout))
	g := jsonvalue.NewObject()
	g.Set("hooks", []any{h})
	return g
}

// agentTitle is the agent's name for people.
func agentTitle(agent string) string {
	return map[string]string{shell.DialectClaude: "Claude Code", shell.DialectCodex: "Codex", shell.DialectGemini: "Gemini CLI"}[agent]
}
