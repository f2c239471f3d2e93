package shell

import (
	"os"

	"github.com/hermes-hooks/hermes/internal/command"
)

// Unfound says which command of the hook cannot be found as it would run now, and why: a
// program not on $PATH, a script that does not exist once the variables its agent sets are
// expanded, one that is not executable. "" when every command it runs can be found, and for a
// line run by /bin/sh that cannot be analysed (what it runs cannot be told without running
// it) and a type: http hook.
func (h *Hook) Unfound() string {
	if h.Type != "" {
		return ""
	}
	dir := h.workDir(RunOptions{})
	if h.Dialect == "" {
		r, err := command.Resolve(h.Command, dir)
		if err != nil {
			return ""
		}
		return r.Missing()
	}
	if len(h.Args) > 0 {
		vars := h.agentEnv(dir, "")
		argv := make([]string, len(h.Argv))
		for i, a := range h.Argv {
			argv[i] = command.ExpandVars(a, vars)
		}
		line := quoteWord(argv[0])
		for _, a := range argv[1:] {
			line += " " + quoteWord(a)
		}
		r, err := command.Resolve(line, dir)
		if err != nil {
			return ""
		}
		return r.Missing()
	}
	sh := command.ResolveShellFor(h.Command, dir, h.Dialect)
	for _, r := range sh.Commands {
		if why := r.Missing(); why != "" {
			return why
		}
	}
	return ""
}

// Unfound says which command of the entry's hook cannot be found as it would run in its
// project now (see Hook.Unfound); "" when all can or it cannot be told.
func (e ImportEntry) Unfound() string {
	if e.HTTP != nil {
		return ""
	}
	h := &Hook{Event: e.Event, Command: e.Command, Dialect: e.dialect(), Dialected: e.Dialected}
	if len(e.Args) > 0 {
		h.Argv = append([]string{e.Command}, e.Args...)
	}
	if h.ProjectDir == "" {
		h.ProjectDir, _ = os.Getwd()
	}
	return h.Unfound()
}
