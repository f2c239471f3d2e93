package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// Help is wrapped to the width of the terminal: $COLUMNS when set, else the terminal's
// width when stdout is one, else 80 columns.

const defaultWidth = 80

// helpWidth is the number of columns help printed to w may use.
func helpWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return defaultWidth
}

// exitCodes are the exit codes of doc.go, as help lists them.
var exitCodes = [][2]string{
	{"0", "ok"},
	{"1", "internal error"},
	{"2", "usage error: unknown command, event or flag, wrong arguments"},
	{"3", "a hook or check failed (hooks test, hooks doctor, replay, store get/delete: no such key, bundle verify)"},
	{"5", "invalid configuration: --payload-file, a transcript, config.yaml, a bundle or key file"},
}

// helpWriter prints help wrapped to width columns.
type helpWriter struct {
	w     io.Writer
	width int
}

func (h *helpWriter) usage() {
	h.para("", "usage: hermesctl [--home DIR] [--accept-hooks] [-v] <command> [flags]")
	fmt.Fprintln(h.w, "\ncommands:")
	h.commandList("")
	fmt.Fprintln(h.w, "\nexamples:")
	h.examples([]string{
		"hermesctl hooks list  # every hook of the home",
		"hermesctl hooks test pre_tool_call --for-tool terminal  # fire the hooks of a tool call",
		"hermesctl hooks doctor  # check every hook",
	})
	h.exitCodes()
	fmt.Fprintln(h.w)
	h.para("", "hermesctl help <command> (or <command> --help) describes a command and its flags.")
}

func (h *helpWriter) group(group string) {
	h.para("", fmt.Sprintf("usage: hermesctl %s <command> [flags]", group))
	fmt.Fprintln(h.w, "\ncommands:")
	h.commandList(group)
	fmt.Fprintln(h.w)
	h.para("", fmt.Sprintf("hermesctl help %s <command> describes a command and its flags.", group))
}

func (h *helpWriter) command(cmd *command, fs *flag.FlagSet) {
	h.wrap("usage: ", "       ", fmt.Sprintf("hermesctl %s [flags]", strings.TrimSpace(cmd.name+" "+cmd.args)))
	fmt.Fprintln(h.w)
	h.para("", cmd.help)
	if cmd.more != nil {
		for _, p := range cmd.more() {
			fmt.Fprintln(h.w)
			h.wrap("  ", "  ", p)
		}
	}
	fmt.Fprintln(h.w, "\nflags:")
	var flags [][2]string
	fs.VisitAll(func(f *flag.Flag) {
		name := flagName(f.Name)
		kind, usage := flag.UnquoteUsage(f)
		if valueFlags()[f.Name] {
			name += " " + strings.ToUpper(kind)
		}
		if f.DefValue != "" && f.DefValue != "false" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		flags = append(flags, [2]string{name, usage})
	})
	h.table(flags, 24)
	if len(cmd.examples) > 0 {
		fmt.Fprintln(h.w, "\nexamples:")
		h.examples(cmd.examples)
	}
	h.exitCodes()
}

// commandList lists the commands of group ("" for all) with what each does.
func (h *helpWriter) commandList(group string) {
	var rows [][2]string
	for _, cmd := range commands {
		if group == "" || strings.HasPrefix(cmd.name, group+" ") {
			rows = append(rows, [2]string{strings.TrimSpace(cmd.name + " " + cmd.args), cmd.help})
		}
	}
	h.table(rows, 32)
}

func (h *helpWriter) examples(examples []string) {
	for _, e := range examples {
		line, comment, ok := strings.Cut(e, "  # ")
		if ok {
			h.wrap("  # ", "  # ", comment)
		}
		h.wrap("  ", "      ", line)
	}
}

func (h *helpWriter) exitCodes() {
	fmt.Fprintln(h.w, "\nexit codes:")
	h.table(exitCodes, 1)
}

// table prints rows of a name and its text, indented by two spaces: the texts start in one
// column, after the longest name up to col characters (and a third of the width); a longer
// name has its text on the lines below it.
func (h *helpWriter) table(rows [][2]string, col int) {
	col = min(col, h.width/3)
	width := 0
	for _, r := range rows {
		if n := len(r[0]); n <= col && n > width {
			width = n
		}
	}
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range rows {
		if len(r[0]) > width {
			h.wrap("  ", "      ", r[0])
			h.wrap(indent, indent, r[1])
			continue
		}
		h.wrap(fmt.Sprintf("  %-*s  ", width, r[0]), indent, r[1])
	}
}

// para prints text wrapped to the width, its lines after the first indented by indent.
func (h *helpWriter) para(indent, text string) { h.wrap("", indent, text) }

// wrap prints first and text's words after it, breaking lines at spaces to stay within the
// width (a word wider than a line is not broken); the lines after the first start with
// indent.
func (h *helpWriter) wrap(first, indent, text string) {
	line, empty := first, true
	for _, word := range strings.Fields(text) {
		switch {
		case empty:
			line += word
		case len(line)+1+len(word) <= h.width:
			line += " " + word
		default:
			fmt.Fprintln(h.w, line)
			line = indent + word
		}
		empty = false
	}
	fmt.Fprintln(h.w, line)
}
