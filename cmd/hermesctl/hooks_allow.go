package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/suggest"
)

var hooksAllowCommand = &command{
	name: "hooks allow",
	args: "<event> <command>",
	help: "approve a shell hook (event, command) without a prompt; the command must be quoted as one argument",
	run:  runHooksAllow,
}

var hooksRevokeCommand = &command{
	name: "hooks revoke",
	args: "<command>",
	help: "remove every approval of a command string, for any event",
	run:  runHooksRevoke,
}

func runHooksAllow(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 2) {
		return exitUsage
	}
	event, command := args[0], strings.TrimSpace(args[1])
	if !engine.IsHook(event) {
		hint := ""
		if s := suggest.Closest(event, engine.HookNames()); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return c.fail(exitUsage, "unknown event %q%s; shell hooks attach to: %s", event, hint, strings.Join(engine.HookNames(), ", "))
	}
	if command == "" {
		return c.fail(exitUsage, "empty command")
	}
	home := engine.ResolveHome(c.home)
	store := engine.ConsentStore(home, c.logger)
	a, err := store.Approve(ctx, event, command)
	if err != nil {
		return c.fail(exitInternal, "approval not saved: %v", err)
	}
	fmt.Fprintf(c.stdout, "approved %s %s\n", event, printable(command))
	if a.ScriptSHA256 != "" {
		fmt.Fprintf(c.stdout, "  script sha256 %s\n", a.ScriptSHA256)
	}
	if !declared(ctx, c, event, command) {
		fmt.Fprintf(c.stderr, "hermesctl: note: %s declares no %s hook with this exact command; it is approved but will not run until it is declared\n", printable(home+"/config.yaml"), event)
	}
	return exitOK
}

// declared reports whether config.yaml declares the pair.
func declared(ctx context.Context, c *cli, event, command string) bool {
	eng, err := engine.New(ctx, engine.Options{Home: c.home, IgnoreConsent: true})
	if err != nil {
		return false
	}
	defer eng.Close(ctx)
	for _, s := range eng.ShellHooks() {
		if s.Event == event && s.Command == command {
			return true
		}
	}
	return false
}

func runHooksRevoke(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	store := engine.ConsentStore(engine.ResolveHome(c.home), c.logger)
	n, err := store.Revoke(ctx, strings.TrimSpace(args[0]))
	if err != nil {
		return c.fail(exitInternal, "revoke not saved: %v", err)
	}
	if n == 0 {
		fmt.Fprintf(c.stdout, "no approval of %s to revoke\n", printable(args[0]))
		return exitOK
	}
	fmt.Fprintf(c.stdout, "revoked %d approval(s) of %s\n", n, printable(args[0]))
	return exitOK
}
