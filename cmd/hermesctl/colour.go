package main

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// Text output colours a few status words (the state of hooks list, the marks of hooks
// doctor) when stdout is a terminal. NO_COLOR (any non-empty value) turns colour off;
// CLICOLOR_FORCE (non-empty, not "0") turns it on when stdout is not a terminal.

// ANSI colours of the status words.
const (
	green  = "32"
	yellow = "33"
	red    = "31"
)

// useColour reports whether text written to w is coloured.
func useColour(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	if v := os.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// paint returns s in colour when c colours its output ("" leaves s as it is). s must be
// printable already.
func (c *cli) paint(colour, s string) string {
	if !c.colour || colour == "" {
		return s
	}
	return "\x1b[" + colour + "m" + s + "\x1b[0m"
}

// stateColour is the colour of a hook's state in hooks list: red when it does not run as
// declared (an error, a drifted approval that blocks), yellow when it needs a look (not
// approved, load warnings), green when it runs, none when disabled.
func stateColour(e listEntry) string {
	switch {
	case e.Error != "" || e.Status == "error" || strings.HasPrefix(e.Consent, "drifted: block"):
		return red
	case e.Status == "disabled":
		return ""
	case e.Consent == "not approved", strings.HasPrefix(e.Consent, "drifted"), len(e.Warnings) > 0:
		return yellow
	}
	return green
}
