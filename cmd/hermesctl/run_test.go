package main

import (
	"flag"
	"slices"
	"testing"
)

// The global flags' kinds are written out in takesValue, so that finding the command words
// of an agent's hook call builds no flag set: they must be those of newFlagSet.
func TestTakesValueKnowsTheGlobalFlags(t *testing.T) {
	fs, _ := newFlagSet(&command{name: "x", json: true}, &cli{})
	fs.VisitAll(func(f *flag.Flag) {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		if value := !ok || !b.IsBoolFlag(); takesValue(f.Name) != value {
			t.Errorf("--%s: takesValue says %v", f.Name, !value)
		}
	})
	// A command's own flag still comes from its flag set: the value after it is not a word.
	cmd, rest, err := findCommand([]string{"hook", "claude", "--server", "unix:/s", "--home", "h"})
	if err != nil || cmd.name != "hook claude" || !slices.Equal(rest, []string{"--server", "unix:/s", "--home", "h"}) {
		t.Errorf("findCommand: %v %v %v", cmd, rest, err)
	}
}
