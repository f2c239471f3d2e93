// Package command resolves the command line of a shell hook, once, for everyone: the words
// that run, the program file executed and the script file whose mtime, hash and execute bit
// consent checks. The runner (package shell) and consent (package consent) both call
// Resolve, so the file consent approved is the file that runs, whatever the quoting.
//
// # Model
//
// A command line is split into words the way a POSIX shell splits them before expansion
// (blanks, '...', "...", backslashes, backslash-newline), without running a shell. A '#'
// is an ordinary character: there are no comments; the words that began with an unquoted
// '#' are reported so that callers can warn about them.
//
// After splitting, a word that is "~" or starts with "~/" has the "~" replaced by the home
// directory, whether it was quoted or not: '~/x.sh' and "~/x.sh" run $HOME/x.sh, as ~/x.sh
// does; $CLAUDE_PROJECT_DIR and ${CLAUDE_PROJECT_DIR} are replaced by ProjectDir, the way
// hooks written for Claude Code name their scripts. Nothing else is expanded: no other
// variables, "~user", globs, pipes or redirections. A
// file whose name really starts with "~" is written ./~/x.sh.
//
// The program is the first word: when it contains a "/" it is that path, relative to the
// working directory; otherwise it is the executable file found on $PATH (absolute entries
// only). The script is the first word ending in a script extension, else the first word
// containing "/" or starting with "~", else the first word; when the script is the program
// its file is the program's file, otherwise it is the script word taken relative to the
// working directory, where the interpreter that receives it will look for it.
//
// # Lines run by /bin/sh
//
// Hooks written for Claude Code run as /bin/sh -c line. ResolveShell analyses such a line as
// the shell runs it, for consent: quotes are the shell's (a quoted "~" is not expanded),
// $CLAUDE_PROJECT_DIR is the project, and each simple command of a compound line (; && || |
// & newline) is resolved by the rules above. Anything whose effect on what runs cannot be
// known without running it (other variables, $(...), backticks, globs, redirections to
// files, cd, eval, nested shells, ...) makes the line unanalysable, and says what it was.
//
// # Concurrency
//
// Resolve reads the environment ($HOME, $PATH), the working directory and the file system,
// keeps no state and is safe for concurrent use.
package command
