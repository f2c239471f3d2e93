package engine

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/hermes-hooks/hermes/luabind"
)

// Status is how one hook's call ended.
type Status string

// Statuses of a hook call.
const (
	StatusOK      Status = "ok"
	StatusError   Status = "error"
	StatusTimeout Status = "timeout" // the hook ran past its own timeout and was interrupted
	StatusSkipped Status = "skipped" // matcher did not match, or the hook is disabled or unapproved
	// StatusCancelled: the host cancelled the call (its context was cancelled or passed its
	// deadline), or the engine was closed under it. Not the hook's fault.
	StatusCancelled Status = "cancelled"
	// StatusBusy: every Lua state of the hook stayed in use for its busy_timeout, so the
	// call did not run (raise states: in the manifest).
	StatusBusy Status = "busy"
)

// statusOf is the status of a Lua hook's failure.
func statusOf(err error) Status {
	var le *luabind.Error
	if errors.As(err, &le) {
		switch le.Kind {
		case luabind.KindTimeout:
			return StatusTimeout
		case luabind.KindCanceled:
			return StatusCancelled
		case luabind.KindBusy:
			return StatusBusy
		}
	}
	return StatusError
}

// StatusOf is the status a Lua hook's call gets for err, the error of a luabind call:
// StatusTimeout, StatusCancelled, StatusBusy, else StatusError (nil: StatusOK).
func StatusOf(err error) Status {
	if err == nil {
		return StatusOK
	}
	return statusOf(err)
}

// Source names the kind of hook that produced a result.
const (
	SourcePlugin  = "plugin"
	SourceShell   = "shell"
	SourceGateway = "gateway"
	SourceEngine  = "engine" // the engine itself: a closed engine's block
)

// HookResult is what one hook did for one call. A failing hook is a HookResult with a
// Status, never a Go error.
type HookResult struct {
	Source   string        // SourcePlugin, SourceShell, SourceGateway, or SourceEngine
	Name     string        // plugin name, shell command, or gateway hook name
	Status   Status        //
	Result   any           // the hook's answer in wire shape: the Lua return value, or a shell hook's parsed stdout
	Err      string        // why the call failed (file:line where known); "" when fine
	Duration time.Duration //

	// Shell hooks only.
	ExitCode *int
	Stdout   *string
	Stderr   *string

	// value is the answer the merge uses: Result for Lua, the normalised stdout for
	// shell hooks, or a block when a fail_closed hook failed.
	value any
}

// MarshalJSON renders the documented shape: source, name, status, (exit_code, stdout, stderr),
// result, error (null when fine), duration_ms.
func (r HookResult) MarshalJSON() ([]byte, error) {
	var errText *string
	if r.Err != "" {
		errText = &r.Err
	}
	return json.Marshal(struct {
		Source     string  `json:"source"`
		Name       string  `json:"name"`
		Status     Status  `json:"status"`
		ExitCode   *int    `json:"exit_code,omitempty"`
		Stdout     *string `json:"stdout,omitempty"`
		Stderr     *string `json:"stderr,omitempty"`
		Result     any     `json:"result"`
		Error      *string `json:"error"`
		DurationMS float64 `json:"duration_ms"`
	}{r.Source, r.Name, r.Status, r.ExitCode, r.Stdout, r.Stderr, r.Result, errText, durationMS(r.Duration)})
}

// durationMS rounds to microseconds, enough for people and stable for tests.
func durationMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Report is the full story of one firing: the payload, every hook's result and the merged
// outcome: {"action":"block","message":…} for pre_tool_call, {"context":…} for
// pre_llm_call, {"text":…} for transforms, the action object for pre_gateway_dispatch,
// nil when nothing applies and for observers.
type Report struct {
	Event   string         `json:"event"`
	Payload map[string]any `json:"payload"`
	Hooks   []HookResult   `json:"hooks"`
	Outcome any            `json:"outcome"`
}

// Block returns the block a pre_tool_call report decided, or nil.
func (r Report) Block() *Block { return mergeBlock(r.Hooks) }

// Context returns the context a pre_llm_call report injects ("" if none).
func (r Report) Context() string { return mergeContext(r.Hooks) }

// Text returns the replacement a transform report decided and whether there is one
// (for transform_llm_output only non-empty strings count).
func (r Report) Text() (string, bool) { return mergeTransform(r.Hooks, r.Event != TransformLLMOutput) }

// Dispatch returns the decision of a pre_gateway_dispatch report.
func (r Report) Dispatch() Dispatch { return mergeDispatch(r.Hooks) }
