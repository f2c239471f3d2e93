package gateway

import "github.com/hermes-hooks/hermes/hookspec"

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
