package hookspec

import "fmt"

// DropReason is why an event (a gateway event for a gateway hook, a delivery for a webhook)
// was not delivered. It reads as its name in metrics labels, logs and JSON.
type DropReason int

// Reasons an event was dropped.
const (
	DropQueueFull DropReason = iota + 1 // the hook's or endpoint's queue was full
	DropClosed                          // emitted after Close, or still queued when Close gave up waiting
	DropFailed                          // a webhook delivery: every attempt failed
	DropNoSecret                        // a webhook delivery: the endpoint's signing secret is not set
)

var dropNames = [...]string{"", "queue_full", "closed", "failed", "no_secret"}

// String is the reason's name: "queue_full", "closed", "failed" or "no_secret".
func (r DropReason) String() string {
	if r >= 0 && int(r) < len(dropNames) {
		return dropNames[r]
	}
	return fmt.Sprintf("drop(%d)", int(r))
}

// MarshalText writes the reason's name.
func (r DropReason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }
