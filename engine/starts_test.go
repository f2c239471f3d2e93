package engine

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// Sessions that start and never reach a first turn cannot grow memory without bound: past
// maxStartContexts the oldest context is dropped, with a warning, and the others stay.
func TestStartContextsAreBounded(t *testing.T) {
	var s startContexts
	logs := &testutil.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	for i := range maxStartContexts + 2 {
		s.put(fmt.Sprintf("s%d", i), "ctx", log)
	}
	if c := s.take("s0"); c != "" {
		t.Errorf("the oldest session kept its context: %q", c)
	}
	if c := s.take("s1"); c != "" {
		t.Errorf("the second oldest kept its context: %q", c)
	}
	if c := s.take(fmt.Sprintf("s%d", maxStartContexts+1)); c != "ctx" {
		t.Errorf("the newest lost its context: %q", c)
	}
	if n := strings.Count(logs.String(), "session start context dropped"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, logs)
	}
	if s.take("s2") != "ctx" || s.take("s2") != "" {
		t.Error("a context is not taken exactly once")
	}
}
