package main

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/netguard"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"github.com/hermes-hooks/hermes/shell"
)

var hooksAllowCommand = &command{
	name:     "hooks allow",
	args:     "<event> <command>",
	help:     "approve a shell hook (event, command) without a prompt; the command must be quoted as one argument",
	examples: []string{"hermesctl hooks allow pre_tool_call \"~/bin/guard.sh --strict\""},
	json:     true,
	run:      runHooksAllow,
}

var hooksRevokeCommand = &command{
	name:     "hooks revoke",
	args:     "<command>",
	help:     "remove every approval of a command string, for any event",
	examples: []string{"hermesctl hooks revoke \"~/bin/guard.sh --strict\""},
	json:     true,
	run:      runHooksRevoke,
}

func runHooksAllow(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 2) {
		return exitUsage
	}
	event, command := args[0], strings.TrimSpace(args[1])
	if event == engine.PythonConsentEvent {
		return allowPython(ctx, c, command)
	}
	if !hookspec.IsHook(event) {
		hint := ""
		if s := suggest.Closest(event, hookspec.Names()); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return c.fail(exitUsage, "unknown event %q%s; shell hooks attach to: %s", event, hint, strings.Join(hookspec.Names(), ", "))
	}
	if command == "" {
		return c.fail(exitUsage, "empty command")
	}
	home := homedir.Resolve(c.home)
	store := consent.Open(consent.DefaultPath(home), c.logger)
	targets, found := declared(ctx, c, event, command)
	approved := []consent.Approval{}
	for _, t := range targets {
		a, err := store.ApproveTarget(ctx, t)
		if err != nil {
			return c.fail(exitInternal, "approval not saved: %v", err)
		}
		if t.URL {
			a.Command = netguard.RedactURL(t.Command)
		} else {
			a.Command = command
		}
		approved = append(approved, a)
	}
	if !found {
		fmt.Fprintf(c.stderr, "hermesctl: note: %s declares no %s hook with this exact command; it is approved but will not run until it is declared\n", printable(home+"/config.yaml"), event)
	}
	if c.json {
		return c.printJSON(map[string]any{"approved": approved, "declared": found})
	}
	for _, a := range approved {
		fmt.Fprintf(c.stdout, "approved %s %s\n", event, printable(a.Command))
		printApproval(c, a)
	}
	return exitOK
}

// allowPython approves the Python hook in dir: every .py file in it, as they are now.
func allowPython(ctx context.Context, c *cli, dir string) int {
	t, err := engine.PythonTarget(dir)
	if err != nil || len(t.Files) == 0 {
		return c.fail(exitUsage, "%s holds no .py file to approve: name the directory of a Python plugin or gateway hook", printable(dir))
	}
	store := consent.Open(consent.DefaultPath(homedir.Resolve(c.home)), c.logger)
	a, err := store.ApproveTarget(ctx, t)
	if err != nil {
		return c.fail(exitInternal, "approval not saved: %v", err)
	}
	if c.json {
		return c.printJSON(map[string]any{"approved": []consent.Approval{a}, "declared": true})
	}
	fmt.Fprintf(c.stdout, "approved %s %s\n", t.Event, printable(t.Command))
	printApproval(c, a)
	return exitOK
}

// printApproval prints what an approval pins: the project it holds in, and each file's hash.
func printApproval(c *cli, a consent.Approval) {
	if a.Project != "" {
		fmt.Fprintf(c.stdout, "  project %s (the approval holds in this project only)\n", printable(a.Project))
	}
	switch {
	case a.WholeLine != "":
		fmt.Fprintf(c.stdout, "  whole line: it uses %s, so its text is approved and the files it runs are not pinned\n", printable(a.WholeLine))
	case a.Scripts != nil:
		for _, p := range a.Scripts {
			if p.SHA256 != "" {
				fmt.Fprintf(c.stdout, "  script sha256 %s %s\n", p.SHA256, printable(p.Path))
			}
		}
	case a.ScriptSHA256 != "":
		fmt.Fprintf(c.stdout, "  script sha256 %s\n", a.ScriptSHA256)
	}
}

// declared returns how config.yaml declares the pair, one consent target per way it runs
// (without a shell, or by /bin/sh for dialect: claude), and whether it declares it at all;
// an undeclared pair is approved as a command run without a shell.
func declared(ctx context.Context, c *cli, event, command string) ([]consent.Target, bool) {
	plain := []consent.Target{{Event: event, Command: command}}
	eng, err := engine.New(ctx, engine.Options{Home: c.home, IgnoreConsent: true, DisableWebhooks: true})
	if err != nil {
		return plain, false
	}
	defer eng.Close(ctx)
	var out []consent.Target
	for _, s := range eng.ShellHooks() {
		// An http hook is also named by its URL without query values, as messages show it.
		if s.Event == event && (s.Command == command || s.Type == shell.TypeHTTP && netguard.RedactURL(s.Command) == command) {
			t := consent.Target{Event: event, Command: s.Command, Shell: s.Dialect != "" && s.Type != shell.TypeHTTP && len(s.Hook().Args) == 0, URL: s.Type == shell.TypeHTTP, Dir: s.WorkDir, Dialect: s.Dialect}
			if !slices.ContainsFunc(out, func(o consent.Target) bool { return reflect.DeepEqual(o, t) }) {
				out = append(out, t)
			}
		}
	}
	if out == nil {
		return plain, false
	}
	return out, true
}

func runHooksRevoke(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	store := consent.Open(consent.DefaultPath(homedir.Resolve(c.home)), c.logger)
	n, err := store.Revoke(ctx, strings.TrimSpace(args[0]))
	if err != nil {
		return c.fail(exitInternal, "revoke not saved: %v", err)
	}
	if c.json {
		return c.printJSON(map[string]any{"command": args[0], "revoked": n})
	}
	if n == 0 {
		fmt.Fprintf(c.stdout, "no approval of %s to revoke\n", printable(args[0]))
		return exitOK
	}
	fmt.Fprintf(c.stdout, "revoked %d approval(s) of %s\n", n, printable(args[0]))
	return exitOK
}
