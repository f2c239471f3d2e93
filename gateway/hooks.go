package gateway

import "github.com/hermes-hooks/hermes/engine"

// HookInfo describes one directory under <home>/hooks, loaded or not.
type HookInfo = engine.GatewayHookInfo

// hook is a loaded gateway hook and the worker that calls it.
type hook struct {
	*engine.GatewayHook
	info   *HookInfo
	worker *worker
}
