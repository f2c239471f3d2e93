package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/homedir"
)

var bundlePullCommand = &command{
	name: "bundle pull",
	json: true,
	help: "check the managed home's bundle feed (bundles: in its config.yaml) once: fetch, verify, check and activate a newer bundle in the cache, for hosts that run `hermesctl hook` (run it from a timer); exit 3 when a bundle is refused or the feed cannot be reached (the active bundle stays)",
	examples: []string{"hermesctl bundle pull  # the managed home: $HERMES_MANAGED_HOME, else /etc/hermes",
		"hermesctl bundle pull --managed-home /srv/hermes-managed --json"},
	flags: func(fs *flag.FlagSet) runFunc {
		var managed string
		fs.StringVar(&managed, "managed-home", "", "the managed home `DIR` whose bundles: to pull (default: $HERMES_MANAGED_HOME, else "+homedir.DefaultManaged+")")
		return func(ctx context.Context, c *cli, args []string) int { return runBundlePull(ctx, c, args, managed) }
	},
}

func runBundlePull(ctx context.Context, c *cli, args []string, managed string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	home := homedir.ResolveManaged(managed)
	st, activated, err := engine.PullBundle(ctx, engine.Options{ManagedHome: home, Logger: c.logger})
	if st.URL == "" && err == nil {
		return c.fail(exitConfig, "%s/config.yaml has no bundles: (bundles: {url: https://..., keys: [release.pub]})", home)
	}
	if st.URL == "" { // the configuration itself cannot be read
		return c.fail(exitConfig, "%v", err)
	}
	if c.json {
		if code := c.printJSON(map[string]any{"activated": activated, "bundle": st}); code != exitOK || err != nil {
			return max(code, exitFailed)
		}
		return exitOK
	}
	switch {
	case err != nil && st.Revision > 0:
		return c.fail(exitFailed, "%v; revision %d stays active", err, st.Revision)
	case err != nil:
		return c.fail(exitFailed, "%v; no bundle is active", err)
	case activated:
		fmt.Fprintf(c.stdout, "activated revision %d from %s (sha256 %s)\n", st.Revision, printable(st.URL), st.Digest)
	default:
		fmt.Fprintf(c.stdout, "revision %d from %s is up to date\n", st.Revision, printable(st.URL))
	}
	return exitOK
}

// describeBundle is one line about the managed home's bundle feed, for hooks list.
func describeBundle(st engine.BundleStatus) string {
	at := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format(time.RFC3339)
	}
	s := fmt.Sprintf("bundle: revision %d from %s, activated %s, last check %s, last success %s", st.Revision, st.URL, at(st.ActivatedAt), at(st.LastCheck), at(st.LastSuccess))
	if st.Running != st.Revision {
		s += fmt.Sprintf(" (revision %d runs here until a reload)", st.Running)
	}
	if st.Stale {
		s += " (stale: older than max_age)"
	}
	if st.LastError != "" {
		s += "; last error: " + st.LastError
	}
	return s
}
