package consent

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
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

// State is s as hooks' descriptions carry it (hookspec.GatewayHookInfo, tools); nil for nil.
func (s *Status) State() *hookspec.ConsentState {
	if s == nil {
		return nil
	}
	return &hookspec.ConsentState{Approved: s.Approved, Drifted: s.Drifted, ContentDrift: s.ContentDrift, MtimeDrift: s.MtimeDrift, Reason: s.Reason}
}

// Status is the consent state of one (event, command) pair, for registration, `hooks list`
// and `hooks doctor`.
type Status struct {
	// Approved is the decision after applying the mode.
	Approved bool `json:"approved"`
	// Approval is the recorded approval; nil when the pair was never approved (in this
	// project, for a command bound to one).
	Approval *Approval `json:"approval"`
	// Script is ScriptPath(command), "~" expanded; for a line run by /bin/sh, the script
	// of its first command that runs something.
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
	// none was recorded); for a line run by /bin/sh, any of its files'.
	MtimeDrift bool `json:"mtime_drift"`
	// ContentDrift reports that the script's SHA-256 differs from the one recorded,
	// including a script that can no longer be read (false when none was recorded); for a
	// line run by /bin/sh, any of its files'.
	ContentDrift bool `json:"content_drift"`
	// Project is the project directory the approval is bound to: set for a line run by
	// /bin/sh whose files depend on the directory it runs in, "" otherwise.
	Project string `json:"project,omitempty"`
	// Scripts are the files a line run by /bin/sh runs, fingerprinted now.
	Scripts []Pin `json:"scripts,omitempty"`
	// Unanalysable says what of a line run by /bin/sh cannot be analysed, so that its
	// approval is of the line's text only; "" otherwise.
	Unanalysable string `json:"unanalysable,omitempty"`
	// Reason is one line for people when the pair is not approved or has drifted; "" when
	// all is well. When the pair was approved once, it ends with the command that
	// re-approves it.
	Reason string `json:"reason,omitempty"`
	// Drifted reports that the pair was approved, but what it runs changed since in a way
	// that withdraws the approval (hooks_consent: pinned, or for a line run by /bin/sh, other
	// files or a line that can no longer be analysed): it must not run, and a hook on a
	// point that can block blocks every call it would match until it is approved again
	// (Reason says how), so that a guard never silently vanishes.
	Drifted bool `json:"drifted,omitempty"`
}

// AllowHint is the command that approves (event, command) non-interactively, quoted for a
// POSIX shell: hermesctl hooks allow pre_tool_call '~/x.sh'.
func AllowHint(event, command string) string {
	return "hermesctl hooks allow " + quoteForShell(event) + " " + singleQuote(command)
}

// Check returns the consent status of (event, command) under mode (the zero Mode is
// ModeCommand), for a command run without a shell in the process's working directory: see
// CheckTarget.
func (s *Store) Check(event, command string, mode Mode) Status {
	return s.CheckTarget(Target{Event: event, Command: command}, mode)
}

// CheckTarget returns the consent status of t under mode (the zero Mode is ModeCommand). In
// ModePinned a script whose content changed since approval, or whose approval recorded no
// hash while the script is now readable, is not approved; in ModeCommand it stays approved
// and the drift is reported.
//
// For a line run by /bin/sh (t.Shell), in either mode: an approval counts only in the
// project it was given in when what the line runs depends on the project (an entry that
// names no project, written before approvals did, counts nowhere for such a line); it
// counts only while the line runs the same files (the same paths); and a line that cannot be
// analysed counts only when it was approved as a whole line. Every file of the line is
// compared with its fingerprint as for a single script.
func (s *Store) CheckTarget(t Target, mode Mode) Status {
	st := s.checkTarget(t, mode)
	st.Drifted = st.Approval != nil && !st.Approved
	return st
}

func (s *Store) checkTarget(t Target, mode Mode) Status {
	event, command := t.Event, t.Command
	p := t.plan()
	st := Status{Script: p.script, Resolved: p.resolved, Project: p.project, Scripts: p.recorded(), Unanalysable: p.whole}
	cur := p.pins
	if p.resolved != "" {
		st.Exists, st.Executable = scriptState(p.resolved, p.first)
	}
	hint := "`" + allowHint(t, p.project) + "`"
	list, err := s.Approvals()
	a, ok := find(list, event, command, p.project)
	if !ok {
		st.Reason = notApproved(list, t, p, hint)
		if err != nil {
			st.Reason = "not approved (" + err.Error() + "); approve it with " + hint
		}
		return st
	}
	st.Approval = &a
	st.Approved = true
	reapprove := "re-approve it with " + hint
	if p.whole != "" {
		if a.WholeLine == "" {
			st.Approved = false
			st.Reason = "the command now uses " + p.whole + ", which cannot be analysed, so an approval pins only its text, not the files it runs; review what it runs and " + reapprove
		}
		return st
	}
	recorded := a.Scripts
	switch {
	case recorded == nil: // one fingerprint: of the file that runs, or the first one's
		recorded = legacyPins(a, cur)
	case !samePaths(recorded, cur):
		st.Reason = "the command now runs other files (" + pinPaths(cur) + ") than when it was approved (" + pinPaths(recorded) + "); review them and " + reapprove
		if !t.Shell && mode != ModePinned { // the approval is of the command string
			st.ContentDrift = true
			return st
		}
		st.Approved = false
		return st
	}
	st.drift(recorded, cur, mode, reapprove)
	return st
}

// drift compares the pins of an approval with the files' current ones and says what
// changed: in pinned mode a changed (or never hashed) file undoes the approval.
func (st *Status) drift(recorded, cur []Pin, mode Mode, reapprove string) {
	var changed, touched, unhashed *Pin
	var changedSHA string
	for i := range cur {
		r, c := &recorded[i], cur[i]
		if r.Mtime != "" && (c.Mtime == "" || !sameInstant(r.Mtime, c.Mtime)) {
			st.MtimeDrift = true
			if touched == nil {
				touched = r
			}
		}
		if r.SHA256 != "" && !strings.EqualFold(r.SHA256, c.SHA256) {
			st.ContentDrift = true
			if changed == nil {
				changed, changedSHA = r, c.SHA256
			}
		}
		if r.SHA256 == "" && c.SHA256 != "" && unhashed == nil {
			unhashed = r
		}
	}
	name := func(p *Pin) string {
		if len(cur) > 1 {
			return "script " + displayPath(p.Path)
		}
		return "script"
	}
	switch {
	case mode == ModePinned && changed != nil:
		st.Approved = false
		st.Reason = name(changed) + " " + describeChange(changedSHA) + " since approval (hooks_consent: pinned); review it and " + reapprove
	case mode == ModePinned && unhashed != nil:
		st.Approved = false
		if len(cur) > 1 {
			st.Reason = "approval recorded no hash of " + name(unhashed) + " (hooks_consent: pinned); review it and " + reapprove
		} else {
			st.Reason = "approval recorded no script hash (hooks_consent: pinned); review the script and " + reapprove
		}
	case changed != nil:
		st.Reason = name(changed) + " " + describeChange(changedSHA) + " since approval; review it and " + reapprove
	case touched != nil && touched.SHA256 == "":
		st.Reason = name(touched) + " modification time changed since approval; the approval recorded no content hash, so the content may have changed too: review it and " + reapprove
	case touched != nil:
		st.Reason = name(touched) + " modification time changed since approval (content unchanged)"
	}
}

// notApproved is the reason of a target with no approval (in its project).
func notApproved(list []Approval, t Target, p plan, hint string) string {
	if p.whole != "" {
		return "not approved; the command uses " + p.whole + ", which cannot be analysed, so an approval pins only its text, not the files it runs: review what it runs, then approve it with " + hint
	}
	if p.project == "" {
		return "not approved; approve it with " + hint
	}
	var other, legacy bool
	for _, a := range list {
		if a.Event == t.Event && a.Command == t.Command {
			other = other || a.Project != ""
			legacy = legacy || a.Project == ""
		}
	}
	switch {
	case legacy:
		return "not approved in project " + displayPath(p.project) + ": the allowlist entry names no project (it was written before approvals recorded one), and this command runs the project's files; review them, then approve it with " + hint
	case other:
		return "not approved in project " + displayPath(p.project) + " (only in another project), and this command runs the project's files; review them, then approve it with " + hint
	}
	return "not approved; approve it with " + hint
}

// legacyPins are the files of cur as an entry without a "scripts" list recorded them: one
// fingerprint (script_sha256 and script_mtime_at_approval), of the file that runs, or of the
// first file of a line. It is the file of cur with that content, else the first; the others
// have no fingerprint recorded.
func legacyPins(a Approval, cur []Pin) []Pin {
	at := 0
	for i, c := range cur {
		if a.ScriptSHA256 != "" && strings.EqualFold(c.SHA256, a.ScriptSHA256) {
			at = i
			break
		}
	}
	recorded := make([]Pin, len(cur))
	for i, c := range cur {
		recorded[i].Path = c.Path
		if i == at {
			recorded[i].SHA256, recorded[i].Mtime = a.ScriptSHA256, a.ScriptMtime
		}
	}
	return recorded
}

func samePaths(a, b []Pin) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path {
			return false
		}
	}
	return true
}

// pinPaths lists the pins' paths for a message.
func pinPaths(pins []Pin) string {
	if len(pins) == 0 {
		return "none"
	}
	out := make([]string, len(pins))
	for i, p := range pins {
		out[i] = displayPath(p.Path)
	}
	return strings.Join(out, ", ")
}

// displayPath is a path for a message: "a program not on $PATH" for "".
func displayPath(p string) string {
	if p == "" {
		return "a program not on $PATH"
	}
	return displayable(p)
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
