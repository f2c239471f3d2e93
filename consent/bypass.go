package consent

import "strings"

// EnvAcceptHooks is the environment variable that approves every shell hook.
const EnvAcceptHooks = "HERMES_ACCEPT_HOOKS"

// EnvAccepts reports whether a value of HERMES_ACCEPT_HOOKS approves hooks: "1", "true",
// "yes" or "on", trimmed, in any case. Anything else, "" included, does not.
func EnvAccepts(value string) bool {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// ConfigAccepts reports whether hooks_auto_accept, as decoded from YAML into an any,
// approves hooks: the boolean true, or a string EnvAccepts accepts. Integers (even 1),
// lists, maps, nil and other strings ("false", "no", ...) do not.
func ConfigAccepts(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case string:
		return EnvAccepts(v)
	}
	return false
}
