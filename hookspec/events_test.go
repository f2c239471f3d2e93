package hookspec

import (
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/internal/suggest"
)

// TestCheckSubscriptionPrefix holds a misspelled prefix to a warning with the name meant:
// "comand:*" subscribes to nothing a gateway emits.
func TestCheckSubscriptionPrefix(t *testing.T) {
	tests := []struct{ name, want string }{
		{"comand:*", `unknown event prefix "comand" in "comand:*"; did you mean "command:*"?`},
		{"agnet:*", `unknown event prefix "agnet" in "agnet:*"; did you mean "agent:*"?`},
		{"comand:model", `unknown event "comand:model"; did you mean "command:model"?`},
		{"myhost:*", `unknown event prefix "myhost" in "myhost:*" (still subscribed`},
		{"command:*", ""},
		{"agent:*", ""},
		{"command:model", ""},
		{"agent:step", ""},
	}
	for _, tt := range tests {
		w, err := CheckSubscription(tt.name, suggest.Closest)
		if err != nil || (tt.want == "") != (w == "") || !strings.HasPrefix(w, tt.want) {
			t.Errorf("CheckSubscription(%q) = %q, %v; want %q...", tt.name, w, err, tt.want)
		}
	}
}
