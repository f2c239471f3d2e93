package engine

import (
	"errors"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/luabind"
)

// statusOf is the status of a Lua hook's failure.
func statusOf(err error) hookspec.Status {
	var le *luabind.Error
	if errors.As(err, &le) {
		switch le.Kind {
		case luabind.KindTimeout:
			return hookspec.StatusTimeout
		case luabind.KindCanceled:
			return hookspec.StatusCancelled
		case luabind.KindBusy:
			return hookspec.StatusBusy
		}
	}
	return hookspec.StatusError
}

// Report is the full story of one firing: the payload, every hook's result, the decision
// they made together (computed once), and that decision in its wire shape:
// {"action":"block","message":…} for pre_tool_call, {"context":…} for pre_llm_call,
// {"text":…} for transforms, the action object for pre_gateway_dispatch, nil when nothing
// applies and for observers.
type Report struct {
	Event    hookspec.Hook     `json:"event"` // the hook point, or a gateway event's name (hookspec.HookNamed)
	Payload  map[string]any    `json:"payload"`
	Hooks    []hookspec.Result `json:"hooks"`
	Outcome  any               `json:"outcome"`
	Decision hookspec.Decision `json:"-"`
}

// refused reports that the engine refused the call (its last result is the engine's
// refusal): Close ended hooks of a withholding point while they ran, so their answer is
// unknown and the call must not go on as if they had run.
func (r Report) refused() bool {
	n := len(r.Hooks)
	return n > 0 && r.Hooks[n-1].Source == hookspec.SourceEngine
}

// decider is the result whose answer decided, or nil.
func (r Report) decider() *hookspec.Result {
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
