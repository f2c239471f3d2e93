package gateway

import (
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
)

// Gateway event names (those of package hookspec). Any "command:<name>" is an event too.
const (
	GatewayStartup = hookspec.GatewayStartup
	SessionStart   = hookspec.SessionStart
	SessionEnd     = hookspec.SessionEnd
	SessionReset   = hookspec.SessionReset
	AgentStart     = hookspec.AgentStart
	AgentStep      = hookspec.AgentStep
	AgentEnd       = hookspec.AgentEnd
	CommandPrefix  = hookspec.CommandPrefix
)

// The typed gateway events (package hookspec), for EmitEvent and EmitEventSync.
type (
	Event             = hookspec.Event
	StartupEvent      = hookspec.StartupEvent
	SessionStartEvent = hookspec.SessionStartEvent
	SessionEndEvent   = hookspec.SessionEndEvent
	SessionResetEvent = hookspec.SessionResetEvent
	AgentStartEvent   = hookspec.AgentStartEvent
	AgentStepEvent    = hookspec.AgentStepEvent
	AgentEndEvent     = hookspec.AgentEndEvent
	CommandEvent      = hookspec.CommandEvent
)

// IsEvent reports whether name looks like a gateway event: "<prefix>:<name>".
func IsEvent(name string) bool { return hookspec.IsEvent(name) }

// DefaultContext returns the sample context `hermesctl hooks test` uses for a gateway
// event: the documented context keys with test values.
func DefaultContext(event string) map[string]any {
	base := map[string]any{"platform": "cli", "user_id": "test-user", "session_id": "test-session"}
	switch {
	case event == GatewayStartup:
		return map[string]any{"platforms": []any{"cli"}}
	case event == SessionStart:
		base["session_key"] = "cli:test-user"
		return base
	case event == SessionEnd || event == SessionReset:
		delete(base, "session_id")
		base["session_key"] = "cli:test-user"
		return base
	case event == AgentStart:
		base["message"] = "hello"
	case event == AgentStep:
		base["iteration"] = 1
		base["tool_names"] = []any{"terminal"}
	case event == AgentEnd:
		base["message"] = "hello"
		base["response"] = "Sunny."
	case strings.HasPrefix(event, CommandPrefix):
		return map[string]any{"platform": "cli", "user_id": "test-user", "command": strings.TrimPrefix(event, CommandPrefix), "args": ""}
	}
	return base
}
