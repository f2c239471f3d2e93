package hookspec

import (
	"encoding/json"
	"time"
)

// Result is what one hook did for one call. A failing hook is a Result with a Status,
// never a Go error.
type Result struct {
	Source   string        // SourcePlugin, SourceShell, SourceGateway or SourceEngine
	Name     string        // plugin name, shell command, or gateway hook name
	Status   Status        //
	Result   any           // the hook's answer in wire shape: the Lua return value, or a shell hook's parsed stdout
	Err      string        // why the call failed (file:line where known); "" when fine
	Duration time.Duration // how long the hook ran: never the wait for a free Lua state or process
	// Wait is how long the call waited for a free Lua state of the hook, or a persistent
	// shell hook's firing for a free process, before it ran (or, busy or cancelled, instead
	// of running); 0 when one was free at once.
	Wait time.Duration

	// Shell hooks only.
	// StatusMessage is what a hook written for another agent says while it runs
	// (statusMessage); "" for none.
	StatusMessage string
	ExitCode      *int
	Stdout        *string
	Stderr        *string

	// Answer is what the merge uses: Result read by Normalise, or a block when a
	// fail_closed hook failed.
	Answer Answer

	// Rechecked: a later hook changed the tool's arguments, so this hook was asked again
	// with them; this is its second answer (Duration and Wait cover both calls).
	Rechecked bool

	// Nexts, for a wrap hook, is how many times the callback called next (0: it answered
	// without running the call); nil for every other hook.
	Nexts *int
}

// MarshalJSON renders the documented shape: source, name, status, (exit_code, stdout, stderr),
// result, error (null when fine), duration_ms, (wait_ms, when the call waited for a Lua
// state or a persistent hook's process), (nexts, for a wrap hook).
func (r Result) MarshalJSON() ([]byte, error) {
	var errText *string
	if r.Err != "" {
		errText = &r.Err
	}
	return json.Marshal(struct {
		Source     string  `json:"source"`
		Name       string  `json:"name"`
		StatusMsg  string  `json:"status_message,omitempty"`
		Status     Status  `json:"status"`
		ExitCode   *int    `json:"exit_code,omitempty"`
		Stdout     *string `json:"stdout,omitempty"`
		Stderr     *string `json:"stderr,omitempty"`
		Result     any     `json:"result"`
		Error      *string `json:"error"`
		DurationMS float64 `json:"duration_ms"`
		WaitMS     float64 `json:"wait_ms,omitempty"`
		Rechecked  bool    `json:"rechecked,omitempty"`
		Nexts      *int    `json:"nexts,omitempty"`
	}{r.Source, r.Name, r.StatusMessage, r.Status, r.ExitCode, r.Stdout, r.Stderr, r.Result, errText, DurationMS(r.Duration), DurationMS(r.Wait), r.Rechecked, r.Nexts})
}

// DurationMS rounds to microseconds, enough for people and stable for tests.
func DurationMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Answered is the result of a hook that ran and answered v (its answer in wire shape, nil
// for none), read for event by Normalise.
func Answered(source, name, event string, v any, d time.Duration) Result {
	return Result{Source: source, Name: name, Status: StatusOK, Result: v, Duration: d, Answer: Normalise(event, v)}
}

// Failed is the result of a hook whose call failed (status is not ok or skipped): it has no
// answer, unless FailClosed gives it one.
func Failed(source, name string, status Status, err string, d time.Duration) Result {
	return Result{Source: source, Name: name, Status: status, Err: err, Duration: d}
}

// FailClosed makes a failed pre_tool_call hook's result a block saying why.
func (r *Result) FailClosed(message string) {
	r.Answer = Answer{Kind: Block, Message: message}
}
