package consent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// maxAnswer bounds the answer line Prompt reads; a longer line is not "yes".
const maxAnswer = 1024

// IsTerminal reports whether f is a terminal (false for nil).
func IsTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// Prompt asks the user on out whether the shell hook (event, command) may run, warning that
// it runs with the user's full credentials, and reads one line from in. Only "y" or "yes"
// (trimmed, any case) approve; any other answer, EOF, a read error or ctx being done refuse.
// Prompt reads in one byte at a time and never past the answer's newline, so successive
// prompts can share one stream. When ctx ends first, the read it started stays blocked until
// in yields a line or fails; that line is then discarded.
func Prompt(ctx context.Context, in io.Reader, out io.Writer, event, command string) bool {
	return prompt(ctx, in, out, event, command, "")
}

// prompt is Prompt with an optional note (why the pair needs approval again).
func prompt(ctx context.Context, in io.Reader, out io.Writer, event, command, note string) bool {
	if out == nil {
		out = io.Discard
	}
	fmt.Fprintf(out, "\nHermes is about to register a shell hook that will run a command on your behalf.\n\n"+
		"    Event:   %s\n    Command: %s\n\n", displayable(event), displayable(command))
	if note != "" {
		fmt.Fprintf(out, "  Note: %s\n\n", displayable(note))
	}
	fmt.Fprint(out, "  The command runs with your full user credentials. Only approve commands you trust.\n"+
		"Allow this hook to run? [y/N]: ")
	if in == nil || ctx.Err() != nil {
		fmt.Fprintln(out)
		return false
	}
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		line, err := readLine(in)
		ch <- answer{line, err}
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(out)
		return false
	case a := <-ch:
		if a.err != nil {
			fmt.Fprintln(out) // keep the terminal tidy after EOF
		}
		// A last line without its newline still counts as the answer.
		if a.err != nil && !(errors.Is(a.err, io.EOF) && a.line != "") {
			return false
		}
		return isYes(a.line)
	}
}

// readLine reads up to a newline, one byte at a time. A line longer than maxAnswer is read
// to its end and returned as "" (no answer).
func readLine(in io.Reader) (string, error) {
	var (
		b        [1]byte
		line     []byte
		overflow bool
		idle     int
	)
	for {
		n, err := in.Read(b[:])
		switch {
		case n == 1 && b[0] == '\n':
			if overflow {
				return "", nil
			}
			return strings.TrimSuffix(string(line), "\r"), nil
		case n == 1:
			idle = 0
			if len(line) == maxAnswer {
				overflow = true
			} else {
				line = append(line, b[0])
			}
			continue
		}
		if err != nil {
			if overflow {
				return "", err
			}
			return string(line), err
		}
		if idle++; idle > 100 {
			return "", io.ErrNoProgress
		}
	}
}

func isYes(answer string) bool {
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true
	}
	return false
}
