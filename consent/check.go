package consent

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Mode is the consent mode, hooks_consent in config.yaml.
type Mode string

const (
	// ModeCommand (the default) approves the command string: a script edited after approval
	// stays approved, and Check reports the drift.
	ModeCommand Mode = "command"
	// ModePinned approves the script's content: a script whose SHA-256 differs from the one
	// recorded at approval is not approved until it is approved again.
	ModePinned Mode = "pinned"
)

// ErrInvalidMode is wrapped by ParseMode's error.
var ErrInvalidMode = errors.New("consent: invalid hooks_consent")

// ParseMode reads hooks_consent as decoded from YAML: nil or "" is ModeCommand; "command"
// and "pinned" (trimmed, any case) are themselves. Anything else is an error wrapping
// ErrInvalidMode, returned with ModePinned, the stricter mode, so that a caller that warns
// and carries on never weakens what the user probably asked for.
func ParseMode(v any) (Mode, error) {
	if v == nil {
		return ModeCommand, nil
	}
	if s, ok := v.(string); ok {
		switch Mode(strings.ToLower(strings.TrimSpace(s))) {
		case "", ModeCommand:
			return ModeCommand, nil
		case ModePinned:
			return ModePinned, nil
		}
	}
	return ModePinned, fmt.Errorf("%w %#v: want %q or %q; using %q", ErrInvalidMode, v, ModeCommand, ModePinned, ModePinned)
}

// Status is the consent state of one (event, command) pair, for registration, `hooks list`
// and `hooks doctor`.
type Status struct {
	// Approved is the decision after applying the mode.
	Approved bool `json:"approved"`
	// Approval is the recorded approval; nil when the pair was never approved.
	Approval *Approval `json:"approval"`
	// Script is ScriptPath(command), "~" expanded.
	Script string `json:"script"`
	// Resolved is the file examined, the one the runner uses: Script taken against the
	// working directory, or for a bare program name the file found on $PATH; "" when a
	// bare name is not on $PATH or the command does not split.
	Resolved string `json:"resolved"`
	// Exists reports that Resolved can be stat'ed.
	Exists bool `json:"exists"`
	// Executable reports that the script can run as configured: as the command's first
	// word it must be a regular file with an execute bit; as an interpreter's argument it
	// must be a readable regular file.
	Executable bool `json:"executable"`
	// MtimeDrift reports that the script's mtime differs from the one recorded (false when
	// none was recorded).
	MtimeDrift bool `json:"mtime_drift"`
	// ContentDrift reports that the script's SHA-256 differs from the one recorded,
	// including a script that can no longer be read (false when none was recorded).
	ContentDrift bool `json:"content_drift"`
	// Reason is one line for people when the pair is not approved or has drifted; "" when
	// all is well.
	Reason string `json:"reason,omitempty"`
}

// AllowHint is the command that approves (event, command) non-interactively, quoted for a
// POSIX shell: hermesctl hooks allow pre_tool_call '~/x.sh'.
func AllowHint(event, command string) string {
	return "hermesctl hooks allow " + quoteForShell(event) + " " + singleQuote(command)
}

// Check returns the consent status of (event, command) under mode (the zero Mode is
// ModeCommand). In ModePinned a script whose content changed since approval, or whose
// approval recorded no hash while the script is now readable, is not approved; in
// ModeCommand it stays approved and the drift is reported.
func (s *Store) Check(event, command string, mode Mode) Status {
	script, resolved, first := resolveScript(command)
	st := Status{Script: script, Resolved: resolved}
	var curMtime, curSHA string
	if resolved != "" {
		curMtime, curSHA, _ = Fingerprint(resolved)
		st.Exists, st.Executable = scriptState(resolved, first)
	}
	list, err := s.Approvals()
	a, ok := find(list, event, command)
	if !ok {
		st.Reason = "not approved; approve it with `" + AllowHint(event, command) + "`"
		if err != nil {
			st.Reason = "not approved (" + err.Error() + "); approve it with `" + AllowHint(event, command) + "`"
		}
		return st
	}
	st.Approval = &a
	st.Approved = true
	st.MtimeDrift = a.ScriptMtime != "" && (curMtime == "" || !sameInstant(a.ScriptMtime, curMtime))
	st.ContentDrift = a.ScriptSHA256 != "" && !strings.EqualFold(a.ScriptSHA256, curSHA)
	reapprove := "re-approve it with `" + AllowHint(event, command) + "`"
	switch {
	case mode == ModePinned && st.ContentDrift:
		st.Approved = false
		st.Reason = "script " + describeChange(curSHA) + " since approval (hooks_consent: pinned); review it and " + reapprove
	case mode == ModePinned && a.ScriptSHA256 == "" && curSHA != "":
		st.Approved = false
		st.Reason = "approval recorded no script hash (hooks_consent: pinned); review the script and " + reapprove
	case st.ContentDrift:
		st.Reason = "script " + describeChange(curSHA) + " since approval; review it and " + reapprove
	case st.MtimeDrift && a.ScriptSHA256 == "":
		st.Reason = "script modification time changed since approval; the approval recorded no content hash, so the content may have changed too: review it and " + reapprove
	case st.MtimeDrift:
		st.Reason = "script modification time changed since approval (content unchanged)"
	}
	return st
}

func describeChange(curSHA string) string {
	if curSHA == "" {
		return "missing or unreadable"
	}
	return "content changed"
}

// scriptState reports whether path exists and whether it can run as configured (first:
// the command's program; otherwise an interpreter's argument).
func scriptState(path string, first bool) (exists, executable bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, false
	}
	if !fi.Mode().IsRegular() {
		return true, false
	}
	if first {
		return true, fi.Mode().Perm()&0o111 != 0
	}
	f, err := os.Open(path)
	if err != nil {
		return true, false
	}
	f.Close()
	return true, true
}
