// Package consent decides whether a shell hook may run. Every distinct
// (event, command) pair declared under hooks: in config.yaml must be approved before the
// engine registers it. The package owns the allowlist file, the terminal prompt, the bypass
// switches, the script checks and the drift checks. It runs no hook and imports neither
// the engine nor the Lua runtime.
//
// # The allowlist file
//
// <home>/shell-hooks-allowlist.json, the original's format:
//
//	{
//	  "approvals": [
//	    {
//	      "approved_at": "2026-04-21T10:15:30.123456Z",
//	      "command": "~/.hermes/agent-hooks/block.sh",
//	      "event": "pre_tool_call",
//	      "script_mtime_at_approval": "2026-04-20T09:00:00Z",
//	      "script_sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
//	    }
//	  ]
//	}
//
// event and command are the pair exactly as configured (command unexpanded). Times are
// RFC 3339 in UTC with a "Z", with six fractional digits unless they are zero, as Python's
// isoformat writes them. script_mtime_at_approval is null when the script could not be
// stat'ed. script_sha256, the hex SHA-256 of the script's content, is this version's
// addition; entries without it (written by the original) stay valid. The script is the
// file that runs (ScriptPath: an interpreter's arguments read as it reads them, by the one
// table command.Interpreters); a command that runs no file (bash -c '...') records no
// fingerprint, and one whose file cannot be told records every file it names in "scripts". Its file is resolved by command.Resolve, the resolution the hook runner
// executes: "~" expanded the same way (quoted or not), a bare program name looked up on
// $PATH, a relative path taken against the working directory the hook runs in (the
// process's). So the file fingerprinted is the file that runs.
//
// A hook run by /bin/sh -c (dialect: claude; Target.Shell) is read as the shell runs it
// (command.ResolveShell): a quoted "~" is not expanded, $CLAUDE_PROJECT_DIR is the project,
// and every script of a compound line is fingerprinted, in the entry's "scripts" list. When
// what the line runs depends on the directory, the entry names its "project_dir" and counts
// there only, in every mode; an entry without one (written before) does not count for such a
// line, and is kept. A line that cannot be analysed ($(...), globs, other variables, ...) is
// approved by its text only, recorded in "whole_line", and every message says so.
//
// There is one entry per pair (and project): approving again replaces it. Revoke removes every entry of a
// command string, for any event. Fields and top-level keys this version does not know are
// kept when the file is rewritten; keys are written sorted, indented by two spaces.
//
// # Writing and locking
//
// Every change is one read-modify-write cycle under an exclusive flock(2) on the sibling
// file <path>.lock (created with mode 0600 and left in place), the lock the original takes
// too. Under the lock the file is re-read, changed, written to a temporary file in the same
// directory (mode 0600), synced, and renamed over the allowlist; then the directory is
// synced. Readers take no lock: a rename is atomic, so they see the old file or the new one,
// never a mix. So concurrent approvals from goroutines and from separate processes lose no
// entry. Within one Store a mutex also serialises cycles. Waiting for the lock is bounded
// by the caller's context.
//
// # Missing and corrupt files
//
// A missing, empty or corrupt file reads as no approvals, or as the entries that could be
// parsed, and the Store logs one warning naming the file and the problem (once per Store
// and problem). "Could be parsed" is generous: in a file that is not valid JSON, the
// complete entries before the error are recovered; an entry whose event or command is not
// a non-empty string is skipped; other fields of a wrong type read as empty.
//
// Before a corrupt file is rewritten, its exact bytes are copied to
// <path>.corrupt-<UTC time> (mode 0600, never replacing a file); if that copy fails the
// file is left alone and the change fails. The rewrite keeps every parsable entry.
//
// When the file cannot be written (a read-only home, a full disk), Approve returns an error
// naming the file and the cause and logs a warning, and the approval still counts for that
// Store until the process ends, so a running gateway still registers the hook it just
// approved; the next process asks again.
//
// # Modes and drift
//
// Check compares the script's current mtime and SHA-256 with those recorded. In the default
// ModeCommand (hooks_consent: command) the approval is of the command string, as in the
// original: an edited script stays approved and the drift is reported (Status.MtimeDrift,
// Status.ContentDrift, Status.Reason) for `hermesctl hooks list` and `doctor`. In ModePinned
// (hooks_consent: pinned) the approval is of the content: a changed, vanished or never
// hashed script is not approved until it is approved again. An mtime change alone never
// revokes anything. A pair approved once whose approval no longer holds is
// Status.Drifted, and its Reason ends with the command that re-approves it: the engine
// keeps such a hook on a point that can block as a guard that blocks every call it would
// match, and skips it elsewhere (Decider.Blocks words the warning).
//
// # Deciding
//
// Decider.Decide applies this order: an approved pair runs; otherwise any bypass
// (--accept-hooks, HERMES_ACCEPT_HOOKS=1/true/yes/on, hooks_auto_accept: true) approves it
// and records the approval; otherwise, on a terminal, Prompt asks and only y/yes approves;
// otherwise the hook is refused with one warning that says how to approve it
// (`hermesctl hooks allow <event> '<command>'`, or one of the bypasses).
//
// # Concurrency and lifecycle
//
// Store and Decider are safe for concurrent use; a Store holds no open file between calls
// and needs no closing. Several Stores, in one process or many, may share a file. The
// package writes only the allowlist, its lock file and corrupt-file copies, prints only the
// prompt to the writer it is given, and logs to the *slog.Logger it is given (nil discards).
package consent
