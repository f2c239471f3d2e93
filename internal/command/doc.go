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
// only).
//
// # The file that runs
//
// What runs is read as the program reads its arguments (Resolved.Runs, Resolved.Files):
//
//   - a known interpreter (sh, bash, dash, python, node, ruby, perl: the table
//     Interpreters, named bare or by an absolute path) runs its first operand, after its
//     options as it reads them: bash /p/payload /p/decoy.sh runs /p/payload;
//   - an interpreter given its program's text (bash -c, python3 -c, node -e, ruby -e,
//     perl -e) or reading it from standard input runs no file: its line is all there is;
//   - env is skipped, with its options, and what it runs is read the same way;
//   - any other program is the file that runs, unless an argument names an existing file,
//     which it may run;
//   - when which file runs cannot be told (an option the table does not know, an option
//     that loads a file by another name such as python3 -m or node -r, env -S, env NAME=VALUE,
//     a program given files), Files are every file the command names, programs included.
//
// The script file is taken relative to the working directory, where the interpreter that
// receives it will look for it.
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
