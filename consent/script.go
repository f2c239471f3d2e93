package consent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/hermes-hooks/hermes/internal/command"
)

// ScriptPath returns the script a command runs, for mtime, hash and executable checks: the
// file that runs, read as its interpreter reads its arguments (command.Interpreters):
//
//	python3 -u /p/hook.py       -> /p/hook.py
//	/usr/bin/env bash /p/h.sh   -> /p/h.sh
//	bash /p/payload /p/decoy.sh -> /p/payload
//	my-binary --verbose         -> my-binary
//
// For a command that runs no file of its own (bash -c '...') or whose file cannot be told
// (python3 -m mod, a program given files), it is the program, and what is pinned is
// respectively nothing but the command line, or every file the command names (see
// command.Resolved.Files). Words are split and "~" expanded by command.Resolve, exactly as
// the hook runner splits and expands them: a word "~" or starting with "~/" is expanded to
// the home directory, quoted or not. A command that is empty or cannot be split (an
// unterminated quote) runs nothing and has no script: ScriptPath returns "".
func ScriptPath(command string) string {
	script, _, _ := resolveScript(command)
	return script
}

// resolveScript returns the script word of a command and the file the script checks
// examine, resolved in the process's working directory the way the hook runner resolves
// them (command.Resolve): for a program, the file executed (found on $PATH for a bare
// name, "" when it is not there); for an interpreter's argument, that path. first
// reports whether the script is executed as a program (it needs an execute bit).
func resolveScript(line string) (script, resolved string, first bool) {
	r, err := command.Resolve(line, "")
	if err != nil {
		return "", "", false
	}
	return r.Script, r.ScriptFile, r.ScriptIsProgram
}

// Fingerprint returns a file's modification time (RFC 3339, UTC, microseconds as the
// original writes them) and the hex SHA-256 of its content. It follows symbolic links. When
// the file cannot be stat'ed both are ""; when it is not a regular file or cannot be read,
// sha256hex is "" and mtime is still set. err says what failed.
func Fingerprint(path string) (mtime string, sha256hex string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", fmt.Errorf("consent: fingerprint: %w", err)
	}
	mtime = formatTime(fi.ModTime())
	if !fi.Mode().IsRegular() {
		return mtime, "", fmt.Errorf("consent: fingerprint %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return mtime, "", fmt.Errorf("consent: fingerprint: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return mtime, "", fmt.Errorf("consent: fingerprint %s: %w", path, err)
	}
	return mtime, hex.EncodeToString(h.Sum(nil)), nil
}
