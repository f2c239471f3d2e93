package hookspec

// Status is how one hook's call ended. A failing hook is a Status, never a Go error.
type Status string

// Statuses of a hook call.
const (
	StatusOK      Status = "ok"      // the hook ran and answered
	StatusError   Status = "error"   // it failed: raised an error, crashed, could not start, answered badly
	StatusTimeout Status = "timeout" // it ran past its own timeout and was interrupted
	StatusSkipped Status = "skipped" // a matcher did not match: nothing ran
	// StatusCancelled: the host gave up on the call (its context was cancelled or passed its
	// deadline), or the engine was closed under it. Not the hook's fault.
	StatusCancelled Status = "cancelled"
	// StatusBusy: every Lua state of the hook (or a persistent shell hook's process) stayed
	// busy with other calls for its busy timeout, so the call did not run.
	StatusBusy Status = "busy"
)

// Failed reports whether a call with this status did not do its job: every status but ok
// and skipped. A fail_closed hook blocks the tool call then.
func (s Status) Failed() bool { return s != StatusOK && s != StatusSkipped }

// Sources: the kind of hook that produced a result.
const (
	SourcePlugin  = "plugin"
	SourceShell   = "shell"
	SourceGateway = "gateway"
	SourceEngine  = "engine" // the engine itself: a closed engine's refusal
)
