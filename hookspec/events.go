package hookspec

import (
	"fmt"
	"slices"
	"strings"
)

// Gateway event names. Any "command:<name>" is an event too.
const (
	GatewayStartup = "gateway:startup"
	SessionStart   = "session:start"
	SessionEnd     = "session:end"
	SessionReset   = "session:reset"
	AgentStart     = "agent:start"
	AgentStep      = "agent:step"
	AgentEnd       = "agent:end"
	CommandPrefix  = "command:"
)

var knownEvents = []string{GatewayStartup, SessionStart, SessionEnd, SessionReset, AgentStart, AgentStep, AgentEnd}

// knownPrefixes are the first segments of the events a gateway emits.
var knownPrefixes = []string{"gateway", "session", "agent", "command"}

// knownSubscriptions are the names a gateway hook usually subscribes to, for hints.
var knownSubscriptions = append(slices.Clone(knownEvents), "command:*", "agent:*", "session:*", "gateway:*")

// IsEvent reports whether name looks like a gateway event: "<prefix>:<name>".
func IsEvent(name string) bool {
	prefix, rest, ok := strings.Cut(name, ":")
	return ok && prefix != "" && rest != ""
}

// CheckSubscription validates one entry of a gateway hook's events list. It returns a
// warning for a name that is not known (still subscribed: hosts may emit their own
// events) and an error for a name that cannot be subscribed to at all. closest finds the
// nearest known name for a did-you-mean ("" for none).
func CheckSubscription(name string, closest func(name string, candidates []string) string) (warning string, err error) {
	hint := func() string {
		s := closest(name, knownSubscriptions)
		if prefix, rest, ok := strings.Cut(name, ":"); s == "" && ok && !slices.Contains(knownPrefixes, prefix) {
			if p := closest(prefix, knownPrefixes); p != "" {
				s = p + ":" + rest // comand:model
			}
		}
		if s != "" {
			return fmt.Sprintf("; did you mean %q?", s)
		}
		return ""
	}
	switch {
	case name == "*" || name == "":
		return "", fmt.Errorf("event %q: there is no bare wildcard; subscribe to \"<prefix>:*\" such as \"agent:*\"", name)
	case !IsEvent(name):
		return "", fmt.Errorf("event %q is not of the form \"<prefix>:<name>\"%s", name, hint())
	}
	prefix, rest, _ := strings.Cut(name, ":")
	if rest == "*" && !slices.Contains(knownPrefixes, prefix) {
		return fmt.Sprintf("unknown event prefix %q in %q%s (still subscribed: hosts may emit their own events)", prefix, name, hint()), nil
	}
	if rest == "*" || prefix == "command" || slices.Contains(knownEvents, name) {
		return "", nil
	}
	return fmt.Sprintf("unknown event %q%s (still subscribed: hosts may emit their own events)", name, hint()), nil
}

// Event is a gateway event with its context, typed: its name and the one conversion to the
// context table gateway hooks receive.
type Event interface {
	EventName() string
	Context() map[string]any
}

// NamedEvent is any event by name, with the context table its hooks receive as is: a
// host's own events ("deploy:done"), or a documented one built by hand. Data must not be
// modified once emitted.
type NamedEvent struct {
	Name string
	Data map[string]any
}

func (e NamedEvent) EventName() string       { return e.Name }
func (e NamedEvent) Context() map[string]any { return e.Data }

// StartupEvent is gateway:startup.
type StartupEvent struct{ Platforms []string }

// SessionStartEvent is session:start.
type SessionStartEvent struct{ Platform, UserID, SessionID, SessionKey string }

// SessionEndEvent is session:end.
type SessionEndEvent struct{ Platform, UserID, SessionKey string }

// SessionResetEvent is session:reset.
type SessionResetEvent struct{ Platform, UserID, SessionKey string }

// AgentStartEvent is agent:start.
type AgentStartEvent struct{ Platform, UserID, SessionID, Message string }

// AgentStepEvent is agent:step, after a step's tool calls.
type AgentStepEvent struct {
	Platform, UserID, SessionID string
	Iteration                   int
	ToolNames                   []string
}

// AgentEndEvent is agent:end.
type AgentEndEvent struct{ Platform, UserID, SessionID, Message, Response string }

// CommandEvent is command:<Command>, a slash command.
type CommandEvent struct{ Platform, UserID, Command, Args string }

func (StartupEvent) EventName() string      { return GatewayStartup }
func (SessionStartEvent) EventName() string { return SessionStart }
func (SessionEndEvent) EventName() string   { return SessionEnd }
func (SessionResetEvent) EventName() string { return SessionReset }
func (AgentStartEvent) EventName() string   { return AgentStart }
func (AgentStepEvent) EventName() string    { return AgentStep }
func (AgentEndEvent) EventName() string     { return AgentEnd }
func (e CommandEvent) EventName() string    { return CommandPrefix + e.Command }

func (e StartupEvent) Context() map[string]any {
	return map[string]any{"platforms": strings2any(e.Platforms)}
}

func (e SessionStartEvent) Context() map[string]any {
	return map[string]any{"platform": e.Platform, "user_id": e.UserID, "session_id": e.SessionID, "session_key": e.SessionKey}
}

func (e SessionEndEvent) Context() map[string]any {
	return map[string]any{"platform": e.Platform, "user_id": e.UserID, "session_key": e.SessionKey}
}

func (e SessionResetEvent) Context() map[string]any {
	return map[string]any{"platform": e.Platform, "user_id": e.UserID, "session_key": e.SessionKey}
}

func (e AgentStartEvent) Context() map[string]any {
	return map[string]any{"platform": e.Platform, "user_id": e.UserID, "session_id": e.SessionID, "message": e.Message}
}

func (e AgentStepEvent) Context() map[string]any {
	return map[string]any{"platform": e.Platform, "user_id": e.UserID, "session_id": e.SessionID,
		"iteration": e.Iteration, "tool_names": strings2any(e.ToolNames)}
}

func (e AgentEndEvent) Context() map[string]any {
	return map[string]any{"platform": e.Platform, "user_id": e.UserID, "session_id": e.SessionID, "message": e.Message, "response": e.Response}
}

func (e CommandEvent) Context() map[string]any {
	return map[string]any{"platform": e.Platform, "user_id": e.UserID, "command": e.Command, "args": e.Args}
}

func strings2any(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
