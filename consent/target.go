package consent

import (
	"path/filepath"

	"github.com/hermes-hooks/hermes/internal/command"
)

// Target is a shell hook as consent sees it: the (event, command) pair, how its command line
// runs, and where.
type Target struct {
	Event   string
	Command string
	// Shell reports that the command line is run by /bin/sh -c (dialect: claude) instead of
	// being split into words and run without a shell. Its files are then those the shell
	// runs (command.ResolveShell): every script of a compound line is pinned, a quoted "~" is
	// a literal character, and a line that cannot be analysed is approved as a whole.
	Shell bool
	// Dir is the working directory the hook runs in; "" is the process's.
	Dir string
	// URL reports that Command is the URL of a type: http hook: the approval pins the URL
	// itself, and there is no script to fingerprint.
	URL bool
}

// plan is what an approval of a target covers, as things are now.
type plan struct {
	// project is the project directory an approval is bound to: set for a line run by
	// /bin/sh whose files depend on it, "" otherwise.
	project string
	// whole says what of a line run by /bin/sh cannot be analysed; "" when it was.
	whole string
	// pins are the files a line run by /bin/sh runs, fingerprinted now; nil for a line
	// that cannot be analysed and for commands run without a shell.
	pins []Pin
	// script, resolved and first describe the first script, for Status (see resolveScript).
	script, resolved string
	first            bool
}

// plan resolves t's command as the runner will run it.
func (t Target) plan() plan {
	if t.URL {
		return plan{}
	}
	if !t.Shell {
		var p plan
		p.script, p.resolved, p.first = resolveScriptIn(t.Command, t.Dir)
		return p
	}
	sh := command.ResolveShell(t.Command, t.Dir)
	p := plan{whole: sh.Unanalysable}
	if sh.ProjectDependent {
		p.project = projectOf(t.Dir)
	}
	if p.whole != "" {
		return p
	}
	p.pins = make([]Pin, 0, len(sh.Commands))
	for i, r := range sh.Commands {
		pin := Pin{Path: r.ScriptFile}
		if pin.Path != "" {
			pin.Mtime, pin.SHA256, _ = Fingerprint(pin.Path)
		}
		p.pins = append(p.pins, pin)
		if i == 0 {
			p.script, p.resolved, p.first = r.Script, r.ScriptFile, r.ScriptIndex == 0
		}
	}
	return p
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

// allowHint is the command that approves t in project ("" = anywhere).
func allowHint(t Target, project string) string {
	if project == "" {
		return AllowHint(t.Event, t.Command)
	}
	return "cd " + quoteForShell(project) + " && " + AllowHint(t.Event, t.Command)
}
