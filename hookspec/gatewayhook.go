package hookspec

// ConsentState is the consent of a hook that is not sandboxed (a Python hook): the
// consent package's decision, as tools show it.
type ConsentState struct {
	Approved     bool   `json:"approved"`      // the decision after the mode: it runs
	Drifted      bool   `json:"drifted"`       // its files changed since approval, and that counts
	ContentDrift bool   `json:"content_drift"` // a file's content changed since approval
	MtimeDrift   bool   `json:"mtime_drift"`   // a file's modification time changed since approval
	Reason       string `json:"reason,omitempty"`
}

// GatewayHookInfo describes one directory under <home>/hooks, loaded or not: what the
// engine read from its HOOK.yaml and whether its handler runs.
type GatewayHookInfo struct {
	Name        string      `json:"name"`
	Dir         string      `json:"dir"`
	Layer       string      `json:"layer"` // "managed" (the managed home's: loads first, cannot be disabled or replaced) or "user"
	Description string      `json:"description,omitempty"`
	Events      []string    `json:"events"`
	Timeout     float64     `json:"timeout_s"`
	Memory      int64       `json:"memory_bytes"` // each Lua state may hold (memory:; default 256 MiB)
	Enabled     bool        `json:"enabled"`
	Status      string      `json:"status"` // "loaded", "disabled", "error", or "unapproved" (a Python hook not approved: Error says how to approve it)
	Error       string      `json:"error,omitempty"`
	Permissions Permissions `json:"permissions"`
	// Runtime is "lua" (handler.lua) or "python" (handler.py, SPEC §5.8).
	Runtime string `json:"runtime"`
	// Python is the interpreter of a Python hook (python: in HOOK.yaml; "" = python3 on
	// $PATH), PythonVersion the version it reported when the hook loaded.
	Python        string `json:"python,omitempty"`
	PythonVersion string `json:"python_version,omitempty"`
	// Consent and ApprovedBy are a Python hook's consent ("" when it is not approved:
	// Status is "unapproved"); nil and "" for a Lua hook, which is sandboxed.
	Consent    *ConsentState `json:"consent,omitempty"`
	ApprovedBy string        `json:"approved_by,omitempty"`
}
