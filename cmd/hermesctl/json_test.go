package main

import "testing"

// TestEveryResultHasJSON holds that every command that prints a result takes --json; the
// others print a script, a stream of changes or of requests (serve), or an agent's protocol.
func TestEveryResultHasJSON(t *testing.T) {
	noResult := map[string]bool{"completion": true, "hooks watch": true, "serve": true,
		"hook claude": true, "hook codex": true, "hook gemini": true}
	for _, cmd := range commands {
		if !cmd.json && !noResult[cmd.name] {
			t.Errorf("%s prints a result but takes no --json", cmd.name)
		}
	}
}
