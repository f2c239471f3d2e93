package engine

import "context"

// ShellHookInfo describes one shell hook declared in config.yaml.
type ShellHookInfo struct {
	Event   string `json:"event"`
	Command string `json:"command"`
}

type loadedShellHook struct {
	info *ShellHookInfo
	cb   callback // nil when not registered (not approved)
}

func (e *Engine) loadShellHooks(ctx context.Context, cfg *config) ([]loadedShellHook, []Warning) {
	return nil, nil
}
