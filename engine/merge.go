package engine

// Block is a vetoed tool call.
type Block struct {
	Message string // why, shown to the model as the tool's error
	Source  string // SourcePlugin, SourceShell, or SourceEngine for a closed engine
	Hook    string // the plugin name or shell command that blocked
}

// Dispatch is the decision of pre_gateway_dispatch.
type Dispatch struct {
	Action string // "allow" (the default), "skip" or "rewrite"
	Reason string // skip only, may be empty
	Text   string // rewrite only: the new message text
	Hook   string // who decided; "" for the default
}

// Dispatch actions.
const (
	DispatchAllow   = "allow"
	DispatchSkip    = "skip"
	DispatchRewrite = "rewrite"
)
