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
	json:     true,
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
	var problems []string
	for _, e := range imp.Entries {
		if !hooknames.CanBlock(e.Event) {
			continue
		}
		if why := e.Unfound(); why != "" {
			problems = append(problems, fmt.Sprintf("the %s guard %s cannot run: %s; %s",
				e.Event, e.CommandLine(), why, unfoundEffect(e.FailClosed)))
		}
	}
	if c.json {
		if code := c.printJSON(importResult(file, imp, added, dryRun, problems)); code != exitOK {
			return code
		}
	} else {
		c.reportImport(file, imp, added, dryRun)
		for _, p := range problems {
			fmt.Fprintf(c.stdout, "problem: %s\n", printable(p))
		}
	}
	if len(imp.Skipped) > 0 || len(problems) > 0 {
		return exitFailed
	}
	return exitOK
}

// importedHook is a hook hooks import --json adds (or would add).
type importedHook struct {
	Event    string `json:"event"`
	Command  string `json:"command"`
	Matcher  string `json:"matcher,omitempty"`
	Subagent bool   `json:"subagent,omitempty"`
}

// importResult is what hooks import --json prints: the same as its text.
func importResult(file string, imp shell.ClaudeImport, added []shell.ImportEntry, dryRun bool, problems []string) any {
	hooks := []importedHook{}
	for _, e := range added {
		hooks = append(hooks, importedHook{e.Event, e.CommandLine(), e.Matcher, e.Subagent})
	}
	notes, skipped := []string{}, []string{}
	for _, n := range imp.Notes {
		notes = append(notes, n.String())
	}
	for _, n := range imp.Skipped {
		skipped = append(skipped, n.String())
	}
	return struct {
		File            string         `json:"file"`
		DryRun          bool           `json:"dry_run"`
		Found           int            `json:"found"`
		Added           []importedHook `json:"added"`
		AlreadyDeclared int            `json:"already_declared"`
		Notes           []string       `json:"notes"`
		Skipped         []string       `json:"skipped"`
		Problems        []string       `json:"problems"`
	}{file, dryRun, len(imp.Entries), hooks, len(imp.Entries) - len(added), notes, skipped, nonNil(problems)}
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
