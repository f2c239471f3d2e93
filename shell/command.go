package shell

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/hermes-hooks/hermes/internal/command"
)

// Errors of SplitCommand.
var (
	ErrEmptyCommand      = command.ErrEmpty
	ErrUnterminatedQuote = command.ErrUnterminatedQuote
	ErrTrailingBackslash = command.ErrTrailingBackslash
)

// SplitCommand splits cmd into words the way a POSIX shell splits them, without running one:
// blanks separate words, '...' and "..." quote, a backslash escapes the next character (inside
// double quotes only before $ ` " \ and newline, as in sh), and backslash-newline joins lines.
// A word that is `~` or starts with `~/` has the `~` replaced by the home directory, quoted or
// not (the user wrote `~` meaning home), and $CLAUDE_PROJECT_DIR is the working directory (the
// way commands written for Claude Code name their scripts). Nothing else is expanded: no other
// variables, globs, pipes or redirections.
//
// There are no comments: an unquoted `#` at the start of a word is kept literally (a shell would
// drop the rest of the line; silently running a different command would be worse). ParseHooks
// warns about such words.
//
// The words are those of command.Resolve, the resolution the runner executes and consent checks.
func SplitCommand(cmd string) ([]string, error) {
	r, err := resolveCommand(cmd, "")
	return r.Argv, err
}

// resolveCommand resolves a hook's command in the working directory dir ("" = the process's), with
// the errors of this package.
func resolveCommand(cmd, dir string) (command.Resolved, error) {
	r, err := command.Resolve(cmd, dir)
	if err != nil {
		return command.Resolved{}, fmt.Errorf("shell: %w", err)
	}
	return r, nil
}

// newCmd returns the process that runs h in dir: Program executed with Argv (Argv[0] as
// written), from command.Resolve, the resolution consent examined when it approved the hook.
// A program that is not found is an *exec.Error wrapping exec.ErrNotFound. session is the
// firing's session id ("" when there is none).
func (h *Hook) newCmd(ctx context.Context, dir, session string) (*exec.Cmd, error) {
	if h.py != nil {
		cmd, err := h.py.spec.hostCmd(ctx, false)
		if cmd != nil {
			cmd.Dir = dir
		}
		return cmd, err
	}
	if h.Dialect != "" {
		return h.dialectCmd(ctx, dir, session), nil
	}
	r, err := resolveCommand(h.Command, dir)
	if err != nil {
		return nil, err
	}
	if r.Program == "" {
		return nil, &exec.Error{Name: r.Argv[0], Err: exec.ErrNotFound}
	}
	cmd := exec.CommandContext(ctx, r.Program, r.Argv[1:]...)
	cmd.Args[0] = r.Argv[0]
	cmd.Dir = dir
	return cmd, nil
}
