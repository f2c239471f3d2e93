package consent

import (
	"path/filepath"

	"github.com/hermes-hooks/hermes/internal/command"
	"github.com/hermes-hooks/hermes/internal/netguard"
)

// Target is a shell hook as consent sees it: the (event, command) pair, how its command line
// runs, and where.
type Target struct {
	Event   string
	Command string
	// What names what is approved in messages: "python hook"; "" = "shell hook".
	What string
	// Shell reports that the command line is run by /bin/sh -c (dialect: claude) instead of
	// being split into words and run without a shell. Its files are then those the shell
	// runs (command.ResolveShell): every script of a compound line is pinned, a quoted "~" is
	// a literal character, and a line that cannot be analysed is approved as a whole.
	Shell bool
	// Dir is the working directory the hook runs in; "" is the process's.
	Dir string
	// Dialect is the agent a hook written for another agent was written for ("" = none):
	// the variables that agent sets holding the project directory (command.AgentVars) are
	// read as $CLAUDE_PROJECT_DIR is.
	Dialect string
	// URL reports that Command is the URL of a type: http hook: the approval pins the URL
	// itself, and there is no script to fingerprint.
	URL bool
	// Files, when not nil, are what the approval pins instead of what Command runs: every
	// file of a hook that is not a command (a Python hook's .py files; Command then names
	// its directory, for people and `hooks allow`). They are recorded in "scripts", so a
	// file added or removed since is drift too.
	Files []string
}

// plan is what an approval of a target covers, as things are now.
type plan struct {
	// project is the project directory an approval is bound to: set for a line run by
	// /bin/sh whose files depend on it, "" otherwise.
	project string
	// whole says what of a line run by /bin/sh cannot be analysed; "" when it was.
	whole string
	// pins are the files the command runs, fingerprinted now (command.Resolved.Files): the
	// file that runs, none for a command that runs no file, every file named when which one
	// runs cannot be told; for a line run by /bin/sh, those of each of its commands. Nil for
	// a line that cannot be analysed.
	pins []Pin
	// record: an approval records pins in its "scripts" list (a line run by /bin/sh, or a
	// command whose file cannot be told), not only the first one's fingerprint.
	record bool
	// script, resolved and first describe the first script, for Status (see resolveScript).
	script, resolved string
	first            bool
}

// plan resolves t's command as the runner will run it.
func (t Target) plan() plan {
	if t.URL {
		return plan{}
	}
	if t.Files != nil {
		p := plan{pins: fingerprints(t.Files), record: true}
		if len(t.Files) > 0 {
			p.script, p.resolved = t.Files[0], t.Files[0]
		}
		return p
	}
	if !t.Shell {
		r, err := command.ResolveFor(t.Command, t.Dir, t.Dialect)
		if err != nil {
			return plan{}
		}
		return plan{pins: fingerprints(r.Files), record: r.Runs == command.RunsUnknown,
			script: r.Script, resolved: r.ScriptFile, first: r.ScriptIsProgram}
	}
	sh := command.ResolveShellFor(t.Command, t.Dir, t.Dialect)
	p := plan{whole: sh.Unanalysable, record: true}
	if sh.ProjectDependent {
		p.project = projectOf(t.Dir)
	}
	if p.whole != "" {
		return p
	}
	p.pins = make([]Pin, 0, len(sh.Commands))
	for i, r := range sh.Commands {
		p.pins = append(p.pins, fingerprints(r.Files)...)
		if i == 0 {
			p.script, p.resolved, p.first = r.Script, r.ScriptFile, r.ScriptIsProgram
		}
	}
	return p
}

// fingerprints fingerprints files now ("" is a program not found: not fingerprinted).
func fingerprints(files []string) []Pin {
	pins := make([]Pin, 0, len(files))
	for _, f := range files {
		pin := Pin{Path: f}
		if f != "" {
			pin.Mtime, pin.SHA256, _ = Fingerprint(f)
		}
		pins = append(pins, pin)
	}
	return pins
}

// recorded is what an approval records in its "scripts" list: nil unless p.record.
func (p plan) recorded() []Pin {
	if !p.record {
		return nil
	}
	return p.pins
}

// projectOf is the project directory of a hook run in dir, absolute: $CLAUDE_PROJECT_DIR,
// or the working directory when it is unset or empty. It is never "", so that an approval of
// a line bound to a project never matches an entry that names none.
func projectOf(dir string) string {
	p := command.ProjectDir(dir)
	if p == "" {
		p = dir
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	if p == "" {
		return "(unknown working directory)"
	}
	return p
}

// allowHint is the command that approves t in project ("" = anywhere). It names a URL
// without its secrets, as hooks allow takes it.
func allowHint(t Target, project string) string {
	if project == "" {
		return AllowHint(t.Event, t.shown())
	}
	return "cd " + quoteForShell(project) + " && " + AllowHint(t.Event, t.shown())
}

// shown is t's command as messages show it: a URL without its password and query values
// (netguard.RedactURL), which hooks allow also takes; any other command as it is.
func (t Target) shown() string {
	if t.URL {
		return netguard.RedactURL(t.Command)
	}
	return t.Command
}

// what names t in messages.
func (t Target) what() string {
	if t.What == "" {
		return "shell hook"
	}
	return t.What
}
