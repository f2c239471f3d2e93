package engine

import "fmt"

// Block is a vetoed tool call.
type Block struct {
	Message string // why, shown to the model as the tool's error
	Source  string // SourcePlugin, SourceShell, or SourceEngine for a closed engine
	Hook    string // the plugin name or shell command that blocked
}

// Dispatch is the decision of pre_gateway_dispatch.
type Dispatch struct {
	Action DispatchAction // DispatchAllow (the default), DispatchSkip or DispatchRewrite
	Reason string         // skip only, may be empty
	Text   string         // rewrite only: the new message text
	Hook   string         // who decided; "" for the default
}

// DispatchAction is what pre_gateway_dispatch decided to do with a message. It reads as
// its name ("allow", "skip", "rewrite") in logs and JSON.
type DispatchAction int

// Dispatch actions.
const (
	DispatchAllow   DispatchAction = iota // handle the message as it is (the default)
	DispatchSkip                          // drop the message: no session, no turn
	DispatchRewrite                       // handle Dispatch.Text instead
)

var dispatchNames = [...]string{"allow", "skip", "rewrite"}

// String is the action's name.
func (a DispatchAction) String() string {
	if a >= 0 && int(a) < len(dispatchNames) {
		return dispatchNames[a]
	}
	return fmt.Sprintf("dispatch(%d)", int(a))
}

// MarshalText writes the action's name.
func (a DispatchAction) MarshalText() ([]byte, error) { return []byte(a.String()), nil }
