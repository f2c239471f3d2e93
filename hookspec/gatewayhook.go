package hookspec

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
	// ApprovedBy says how a Python hook was approved ("" when it is not: Status is
	// "unapproved"), and Drifted that its .py files changed since; both unset for a Lua hook,
	// which is sandboxed and needs no consent.
	ApprovedBy string `json:"approved_by,omitempty"`
	Drifted    bool   `json:"drifted,omitempty"`
}
