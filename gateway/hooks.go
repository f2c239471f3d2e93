package gateway

import (
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/enginelink"
)

// HookInfo describes one directory under <home>/hooks, loaded or not.
type HookInfo struct {
	Name        string               `json:"name"`
	Dir         string               `json:"dir"`
	Description string               `json:"description,omitempty"`
	Events      []string             `json:"events"`
	Timeout     float64              `json:"timeout_s"`
	Memory      int64                `json:"memory_bytes"` // each Lua state may hold (memory:; default 256 MiB)
	Enabled     bool                 `json:"enabled"`
	Status      string               `json:"status"` // "loaded", "disabled" or "error"
	Error       string               `json:"error,omitempty"`
	Permissions hookspec.Permissions `json:"permissions"`
}

// hook is a loaded gateway hook and the worker that calls it.
type hook struct {
	enginelink.GatewayHook
	info   *HookInfo
	worker *worker
}
