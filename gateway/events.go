package gateway

import (
	"fmt"
	"strings"

	"github.com/hermes-hooks/hermes/internal/suggest"
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

// known subscription names, for "did you mean" hints.
var knownSubscriptions = append(append([]string{}, knownEvents...), "command:*", "agent:*", "session:*", "gateway:*")

// IsEvent reports whether name looks like a gateway event: "<prefix>:<name>".
func IsEvent(name string) bool {
	prefix, rest, ok := strings.Cut(name, ":")
	return ok && prefix != "" && rest != ""
}

// checkSubscription validates one entry of a manifest's events list. It returns a
// warning for names that are not known (still subscribed) and an error for names that
// cannot be subscribed at all.
func checkSubscription(name string) (warning string, err error) {
	switch {
	case name == "*" || name == "":
		return "", fmt.Errorf("event %q: there is no bare wildcard; subscribe to \"<prefix>:*\" such as \"agent:*\"", name)
	case !IsEvent(name):
		return "", fmt.Errorf("event %q is not of the form \"<prefix>:<name>\"%s", name, hint(name))
	}
	prefix, rest, _ := strings.Cut(name, ":")
	if rest == "*" || prefix == "command" {
		return "", nil
	}
	for _, k := range knownEvents {
		if k == name {
			return "", nil
		}
	}
	return fmt.Sprintf("unknown event %q%s (still subscribed: hosts may emit their own events)", name, hint(name)), nil
}

func hint(name string) string {
	if s := suggest.Closest(name, knownSubscriptions); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

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
