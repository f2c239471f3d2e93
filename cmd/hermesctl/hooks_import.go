package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-hooks/hermes/internal/atomicfile"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/internal/safefile"
	"github.com/hermes-hooks/hermes/shell"
)

var hooksImportCommand = &command{
	name:     "hooks import",
	args:     "claude|codex|gemini <settings file|plugin-dir>",
	help:     "add the hooks of a Claude Code settings file (or plugin bundle), a Codex hooks.json or config.toml, or a Gemini CLI settings.json to config.yaml as shell hooks in that dialect that run in its project, reporting what cannot be mapped and why (exit 3); they still need consent",
	examples: []string{"hermesctl hooks import claude .claude/settings.json --dry-run  # what would be added", "hermesctl hooks import codex ~/.codex/config.toml"},
	flags: func(fs *flag.FlagSet) runFunc {
		var dryRun bool
		fs.BoolVar(&dryRun, "dry-run", false, "report what would be imported without writing config.yaml")
		return func(ctx context.Context, c *cli, args []string) int { return runHooksImport(ctx, c, dryRun, args) }
	},
}

// importReaders read the settings of each agent.
var importReaders = map[string]func(file string, data []byte, opts shell.ImportOptions) (shell.ClaudeImport, error){
	"claude": shell.ReadClaudeSettingsWith,
	"codex":  shell.ReadCodexHooks,
	"gemini": shell.ReadGeminiSettings,
}

func runHooksImport(ctx context.Context, c *cli, dryRun bool, args []string) int {
	if !c.wantArgs(args, 2) {
		return exitUsage
	}
	read, ok := importReaders[args[0]]
	if !ok {
		return c.fail(exitUsage, "hooks import: unknown source %q; the sources are claude (settings.json, hooks.json or a plugin directory), codex (hooks.json or config.toml) and gemini (settings.json)", args[0])
	}
	home := homedir.Resolve(c.home)
	src, err := readImportSource(home, args[1])
	if err == nil && args[0] != "claude" && src.opts.PluginRoot != "" {
		err = fmt.Errorf("%s is a directory; %s hooks are imported from a file", args[1], args[0])
	}
	if err != nil {
		return c.fail(exitConfig, "hooks import: %v", err)
	}
	imp, err := read(src.file, src.data, src.opts)
	if err != nil {
		return c.fail(exitConfig, "hooks import: %v", err)
	}
	file := filepath.Join(home, "config.yaml")
	config, err := safefile.ReadFile(file, manifest.MaxSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c.fail(exitConfig, "hooks import: %v", err)
	}
	out, added, err := shell.AddToConfig(file, config, imp.Entries)
	if err != nil {
		return c.fail(exitConfig, "hooks import: %v", err)
	}
	if !dryRun && len(added) > 0 {
		if err := writeFileAtomic(file, out); err != nil {
			return c.fail(exitInternal, "hooks import: config.yaml not written: %v", err)
		}
	}
	c.reportImport(file, imp, added, dryRun)
	unfound := 0
	for _, e := range imp.Entries {
		if !hooknames.CanBlock(e.Event) {
			continue
		}
		if why := e.Unfound(); why != "" {
			unfound++
			fmt.Fprintf(c.stdout, "problem: the %s guard %s cannot run: %s; %s\n",
				e.Event, printable(e.CommandLine()), printable(why), unfoundEffect(e.FailClosed))
		}
	}
	if len(imp.Skipped) > 0 || unfound > 0 {
		return exitFailed
	}
	return exitOK
}

// reportImport says what was added, what was already there, what was not imported and why,
// and what to do next.
func (c *cli) reportImport(file string, imp shell.ClaudeImport, added []shell.ImportEntry, dryRun bool) {
	verb := "added"
	if dryRun {
		verb = "would add"
	}
	fmt.Fprintf(c.stdout, "%s %d of %d hooks to %s\n", verb, len(added), len(imp.Entries), printable(file))
	for _, e := range added {
		var about []string
		if e.Subagent {
			about = append(about, "subagents")
		}
		if e.Matcher != "" {
			about = append(about, "matcher "+e.Matcher)
		}
		m := ""
		if len(about) > 0 {
			m = " (" + strings.Join(about, ", ") + ")"
		}
		fmt.Fprintf(c.stdout, "  %s%s: %s\n", e.Event, printable(m), printable(e.CommandLine()))
	}
	if n := len(imp.Entries) - len(added); n > 0 {
		fmt.Fprintf(c.stdout, "%d already declared there\n", n)
	}
	for _, n := range imp.Notes {
		fmt.Fprintf(c.stdout, "note: %s\n", printable(n.String()))
	}
	if len(imp.Skipped) > 0 {
		fmt.Fprintf(c.stdout, "not imported (%d):\n", len(imp.Skipped))
		for _, n := range imp.Skipped {
			fmt.Fprintf(c.stdout, "  %s\n", printable(n.String()))
		}
	}
	if len(added) > 0 && !dryRun {
		fmt.Fprintln(c.stdout, "they run once approved: `hermesctl hooks list` shows them, `hermesctl hooks allow <event> '<command>'` approves one")
	}
}

// writeFileAtomic replaces path with data, keeping the old file's permissions (0644 for a
// new one): a crash leaves the old file or the new one, never half.
func writeFileAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, mode, nil)
}
