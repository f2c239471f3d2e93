package hookspec

import "fmt"

// Status is how one hook's call ended. A failing hook is a Status, never a Go error. Its
// zero value is no status (a call that was not made); it reads and writes as its name
// ("ok", "timeout", ...) in JSON and logs.
type Status int

// Statuses of a hook call.
const (
	StatusOK      Status = iota + 1 // the hook ran and answered
	StatusError                     // it failed: raised an error, crashed, could not start, answered badly
	StatusTimeout                   // it ran past its own timeout and was interrupted
	StatusSkipped                   // a matcher did not match: nothing ran
	// StatusCancelled: the host gave up on the call (its context was cancelled or passed its
	// deadline), or the engine was closed under it. Not the hook's fault.
	StatusCancelled
	// StatusBusy: every Lua state of the hook (or a persistent shell hook's process) stayed
	// busy with other calls for its busy timeout, so the call did not run.
	StatusBusy
)

var statusNames = [...]string{"", "ok", "error", "timeout", "skipped", "cancelled", "busy"}

// String is the status's name: "ok", "error", "timeout", "skipped", "cancelled", "busy"
// ("" for no status).
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// MarshalText writes the status's name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status's name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("hookspec: unknown status %q (want ok, error, timeout, skipped, cancelled or busy)", b)
}

// Failed reports whether a call with this status did not do its job: every status but ok
// and skipped. A fail_closed hook blocks the tool call then.
func (s Status) Failed() bool { return s != StatusOK && s != StatusSkipped }

// Sources: the kind of hook that produced a result.
const (
	SourcePlugin  = "plugin"
	SourceShell   = "shell"
	SourceGateway = "gateway"
	SourceEngine  = "engine"  // the engine itself: a closed engine's refusal
	SourceWebhook = "webhook" // the outbound webhooks an event was queued for (their delivery happens later)
)
