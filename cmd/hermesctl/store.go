package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/store"
)

var storeListCommand = &command{
	name:     "store list",
	json:     true,
	args:     "[hook]",
	help:     "list the hooks that keep state in the store with their number of keys, or one hook's keys, values and expiry",
	examples: []string{"hermesctl store list  # the hooks that keep state", "hermesctl store list rate-limiter  # one hook's keys"},
	run:      runStoreList,
}

var storeGetCommand = &command{
	name:     "store get",
	args:     "<hook> <key>",
	help:     "print the value of one key of a hook's store as JSON (exit 3 when there is none)",
	examples: []string{"hermesctl store get rate-limiter calls"},
	json:     true,
	run:      runStoreGet,
}

var storeDeleteCommand = &command{
	name:     "store delete",
	args:     "<hook> <key>",
	help:     "delete one key of a hook's store (exit 3 when there is none)",
	examples: []string{"hermesctl store delete rate-limiter calls"},
	json:     true,
	run:      runStoreDelete,
}

// openStore opens the home's store; nil with exitOK when there is none yet, which it says
// on stdout, or on stderr when stdout is for JSON.
func (c *cli) openStore() (store.Backend, int) {
	b, exists, err := engine.OpenStore(c.home)
	if err != nil {
		return nil, c.fail(exitConfig, "%v", err)
	}
	if !exists {
		out := c.stdout
		if c.json {
			out = c.stderr
		}
		fmt.Fprintf(out, "no store yet in %s: no hook has kept anything\n", printable(homedir.Resolve(c.home)))
	}
	return b, exitOK
}

// namespace resolves a hook as the user named it: plugin:<name>, gateway:<name>, or a name
// that is one of them.
func namespace(ctx context.Context, b store.Backend, hook string) (string, error) {
	if strings.HasPrefix(hook, hookspec.SourcePlugin+":") || strings.HasPrefix(hook, hookspec.SourceGateway+":") {
		return hook, nil
	}
	all, err := b.Namespaces(ctx)
	if err != nil {
		return "", err
	}
	var found []string
	for _, src := range []string{hookspec.SourcePlugin, hookspec.SourceGateway} {
		if ns := store.Namespace(src, hook); slices.Contains(all, ns) {
			found = append(found, ns)
		}
	}
	switch len(found) {
	case 0:
		return store.Namespace(hookspec.SourcePlugin, hook), nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("both a plugin and a gateway hook named %q keep state: say %s", hook, strings.Join(found, " or "))
}

func runStoreList(ctx context.Context, c *cli, args []string) int {
	if len(args) > 1 {
		return c.fail(exitUsage, "store list takes at most one hook, got %d arguments", len(args))
	}
	b, code := c.openStore()
	if b == nil {
		if c.json && code == exitOK && len(args) == 0 {
			return c.printJSON(map[string]any{"hooks": map[string]int{}})
		}
		if c.json && code == exitOK {
			return c.printJSON(map[string]any{"hook": args[0], "keys": []store.Entry{}})
		}
		return code
	}
	defer b.Close()
	if len(args) == 0 {
		return c.listNamespaces(ctx, b)
	}
	ns, err := namespace(ctx, b, args[0])
	if err != nil {
		return c.fail(exitUsage, "%v", err)
	}
	entries, err := b.Entries(ctx, ns)
	if err != nil {
		return c.fail(exitFailed, "%v", err)
	}
	if c.json {
		if entries == nil {
			entries = []store.Entry{}
		}
		return c.printJSON(map[string]any{"hook": ns, "keys": entries})
	}
	if len(entries) == 0 {
		fmt.Fprintf(c.stdout, "%s keeps nothing in %s\n", printable(ns), printable(b.Where()))
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tEXPIRES")
	for _, e := range entries {
		exp := "-"
		if e.Expires != nil {
			exp = "in " + time.Until(*e.Expires).Round(time.Second).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", printable(e.Key), printable(truncate(string(e.Value), 80)), exp)
	}
	tw.Flush()
	return exitOK
}

func (c *cli) listNamespaces(ctx context.Context, b store.Backend) int {
	all, err := b.Namespaces(ctx)
	if err != nil {
		return c.fail(exitFailed, "%v", err)
	}
	counts := map[string]int{}
	for _, ns := range all {
		keys, err := b.Keys(ctx, ns, "")
		if err != nil {
			return c.fail(exitFailed, "%v", err)
		}
		counts[ns] = len(keys)
	}
	if c.json {
		return c.printJSON(map[string]any{"store": b.Where(), "hooks": counts})
	}
	fmt.Fprintf(c.stdout, "store: %s\n", printable(b.Where()))
	if len(all) == 0 {
		fmt.Fprintln(c.stdout, "no hook keeps anything")
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOOK\tKEYS")
	for _, ns := range all {
		fmt.Fprintf(tw, "%s\t%d\n", printable(ns), counts[ns])
	}
	tw.Flush()
	return exitOK
}

func runStoreGet(ctx context.Context, c *cli, args []string) int {
	return c.storeKey(ctx, args, func(b store.Backend, ns, key string) (bool, error) {
		v, ok, err := b.Get(ctx, ns, key)
		switch {
		case ok && c.json:
			c.printJSON(map[string]any{"hook": ns, "key": key, "value": json.RawMessage(v)})
		case ok:
			fmt.Fprintln(c.stdout, string(v))
		}
		return ok, err
	})
}

func runStoreDelete(ctx context.Context, c *cli, args []string) int {
	return c.storeKey(ctx, args, func(b store.Backend, ns, key string) (bool, error) {
		ok, err := b.Delete(ctx, ns, key)
		switch {
		case ok && c.json:
			c.printJSON(map[string]any{"hook": ns, "key": key, "deleted": true})
		case ok:
			fmt.Fprintf(c.stdout, "deleted %q of %s\n", key, ns)
		}
		return ok, err
	})
}

// storeKey runs op on the key of the hook args name; exit 3 when op finds no key.
func (c *cli) storeKey(ctx context.Context, args []string, op func(b store.Backend, ns, key string) (bool, error)) int {
	if !c.wantArgs(args, 2) {
		return exitUsage
	}
	b, code := c.openStore()
	if b == nil {
		return max(code, exitFailed)
	}
	defer b.Close()
	ns, err := namespace(ctx, b, args[0])
	if err != nil {
		return c.fail(exitUsage, "%v", err)
	}
	ok, err := op(b, ns, args[1])
	switch {
	case err != nil:
		return c.fail(exitFailed, "%v", err)
	case !ok:
		return c.fail(exitFailed, "%s has no key %q", ns, args[1])
	}
	return exitOK
}
