package gateway

import (
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
)

// hook is a loaded gateway hook and the worker that calls it.
type hook struct {
	gatewayhook.Hook
	info   *hookspec.GatewayHookInfo
	worker *worker
}
