package engine

import (
	"errors"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/luabind"
)

// Status is how one hook's call ended (hookspec.Status).
type Status = hookspec.Status

// Statuses of a hook call; see hookspec.
const (
	StatusOK        = hookspec.StatusOK
	StatusError     = hookspec.StatusError
	StatusTimeout   = hookspec.StatusTimeout
	StatusSkipped   = hookspec.StatusSkipped
	StatusCancelled = hookspec.StatusCancelled
	StatusBusy      = hookspec.StatusBusy
)

// Sources of a result; see hookspec.
const (
	SourcePlugin  = hookspec.SourcePlugin
	SourceShell   = hookspec.SourceShell
	SourceGateway = hookspec.SourceGateway
	SourceEngine  = hookspec.SourceEngine
)

// HookResult is what one hook did for one call (hookspec.Result). A failing hook is a
// HookResult with a Status, never a Go error.
type HookResult = hookspec.Result

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

// Report is the full story of one firing: the payload, every hook's result, the decision
// they made together (computed once), and that decision in its wire shape:
// {"action":"block","message":…} for pre_tool_call, {"context":…} for pre_llm_call,
// {"text":…} for transforms, the action object for pre_gateway_dispatch, nil when nothing
// applies and for observers.
type Report struct {
	Event    string            `json:"event"`
	Payload  map[string]any    `json:"payload"`
	Hooks    []HookResult      `json:"hooks"`
	Outcome  any               `json:"outcome"`
	Decision hookspec.Decision `json:"-"`
}

// decider is the result whose answer decided, or nil.
func (r Report) decider() *HookResult {
	if r.Decision.By < 0 || r.Decision.By >= len(r.Hooks) {
		return nil
	}
	return &r.Hooks[r.Decision.By]
}

// Block returns the block a pre_tool_call report decided, or nil.
func (r Report) Block() *Block {
	h := r.decider()
	if r.Decision.Kind != hookspec.Block || h == nil {
		return nil
	}
	return &Block{Message: r.Decision.Message, Source: h.Source, Hook: h.Name}
}

// Context returns the context a pre_llm_call report injects ("" if none).
func (r Report) Context() string {
	if r.Decision.Kind != hookspec.Context {
		return ""
	}
	return r.Decision.Text
}

// Text returns the replacement a transform report decided and whether there is one.
func (r Report) Text() (string, bool) {
	return r.Decision.Text, r.Decision.Kind == hookspec.Replace
}

// Dispatch returns the decision of a pre_gateway_dispatch report.
func (r Report) Dispatch() Dispatch {
	d := Dispatch{Action: DispatchAllow}
	if h := r.decider(); h != nil {
		d.Hook = h.Name
	}
	switch r.Decision.Kind {
	case hookspec.Skip:
		d.Action, d.Reason = DispatchSkip, r.Decision.Message
	case hookspec.Rewrite:
		d.Action, d.Text = DispatchRewrite, r.Decision.Text
	}
	return d
}
