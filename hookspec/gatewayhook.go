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
	Status      string      `json:"status"` // "loaded", "disabled" or "error"
	Error       string      `json:"error,omitempty"`
	Permissions Permissions `json:"permissions"`
}
