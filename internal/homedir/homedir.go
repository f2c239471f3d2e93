// Package homedir says where a hermes home and the managed home are when the caller does not.
package homedir

import (
	"os"
	"path/filepath"
)

// DefaultManaged is the managed home when neither the host nor $HERMES_MANAGED_HOME names
// one.
const DefaultManaged = "/etc/hermes"

// Resolve returns dir, else $HERMES_HOME, else ~/.hermes.
func Resolve(dir string) string {
	if dir != "" {
		return dir
	}
	if h := os.Getenv("HERMES_HOME"); h != "" {
		return h
	}
	if u, err := os.UserHomeDir(); err == nil {
		return filepath.Join(u, ".hermes")
	}
	return ".hermes"
}

// ResolveManaged returns dir, else $HERMES_MANAGED_HOME, else DefaultManaged.
func ResolveManaged(dir string) string {
	if dir != "" {
		return dir
	}
	if h := os.Getenv("HERMES_MANAGED_HOME"); h != "" {
		return h
	}
	return DefaultManaged
}
