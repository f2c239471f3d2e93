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
		if s := closest(name, knownSubscriptions); s != "" {
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
	if rest == "*" || prefix == "command" || slices.Contains(knownEvents, name) {
		return "", nil
	}
	return fmt.Sprintf("unknown event %q%s (still subscribed: hosts may emit their own events)", name, hint()), nil
}
