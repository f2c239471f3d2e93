package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/suggest"
)

// cli carries what every command needs.
type cli struct {
	cmd    *command
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	home        string
	acceptHooks bool
	json        bool
	verbose     bool
	colour      bool // colour status words on stdout (a terminal, no NO_COLOR)
	logger      *slog.Logger
}

// command is one subcommand.
type command struct {
	name string // "hooks test"
	args string // positional arguments, for usage
	help string
	// examples are command lines, each with what it does after a "#", shown by --help.
	examples []string
	// more, when not nil, returns paragraphs --help shows after help (the events of hooks test).
	more func() []string
	json bool // takes --json
	run  runFunc
	// flags, when not nil, defines the command's own flags in fs, parsed into an args value
	// of the command's own, and returns run bound to it (used instead of run).
	flags func(fs *flag.FlagSet) runFunc
}

// runFunc runs a command with its positional arguments; it returns the exit code.
type runFunc func(ctx context.Context, c *cli, args []string) int

var commands []*command

// valueFlags are the flags that take a value as the next argument, for finding the command
// words among the arguments; they are read from the commands' flag sets, at first use (most
// command lines have no flag).
var valueFlags = sync.OnceValue(func() map[string]bool {
	value := map[string]bool{}
	for _, cmd := range commands {
		fs, _ := newFlagSet(cmd, &cli{})
		fs.VisitAll(func(f *flag.Flag) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				value[f.Name] = true
			}
		})
	}
	return value
})

// takesValue says whether the flag name takes a value: the global flags are known (an
// agent's hook command gives --home, and building every command's flag set to learn it
// was a hundredth of the call), the others are read from the commands' flag sets.
func takesValue(name string) bool {
	switch name {
	case "home":
		return true
	case "accept-hooks", "v", "json":
		return false
	}
	return valueFlags()[name]
}

func init() {
	commands = []*command{
		hooksListCommand, hooksTestCommand, hooksAllowCommand, hooksRevokeCommand, hooksImportCommand, hooksDoctorCommand,
		hooksWatchCommand, hooksStatsCommand, pluginsListCommand, storeListCommand, storeGetCommand, storeDeleteCommand,
		webhooksTestCommand, replayCommand, demoCommand,
		versionCommand, completionCommand,
	}
	commands = append(commands, hookCommands...)
	commands = append(commands, bundleCommands...)
}

// newFlagSet holds the global flags, parsed into c, and cmd's own; it returns the flag set
// and the function that runs cmd with them.
func newFlagSet(cmd *command, c *cli) (*flag.FlagSet, runFunc) {
	fs := flag.NewFlagSet("hermesctl "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.home, "home", "", "the hermes home `DIR` (default $HERMES_HOME, else ~/.hermes)")
	fs.BoolVar(&c.acceptHooks, "accept-hooks", false, "approve shell hooks without asking")
	fs.BoolVar(&c.verbose, "v", false, "debug logs on stderr")
	if cmd.json {
		fs.BoolVar(&c.json, "json", false, "print JSON")
	}
	run := cmd.run
	if cmd.flags != nil {
		run = cmd.flags(fs)
	}
	return fs, run
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr}
	cmd, rest, err := findCommand(args)
	var help *helpRequest
	if errors.As(err, &help) {
		return help.print(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermesctl: %v\n", err)
		return exitUsage
	}
	fs, runCmd := newFlagSet(cmd, c)
	positional, err := parseInterleaved(fs, rest)
	if err != nil {
		fmt.Fprintf(stderr, "hermesctl %s: %v\n", cmd.name, flagError(cmd, fs, err))
		return exitUsage
	}
	c.logger = newLogger(stderr, c.verbose)
	c.colour = useColour(stdout)
	c.cmd = cmd
	return runCmd(ctx, c, positional)
}

// helpRequest is asked-for help: of everything, of a group ("hooks") or of a command.
type helpRequest struct {
	group string
	cmd   *command
}

func (h *helpRequest) Error() string { return "help" }

func (h *helpRequest) print(w io.Writer) int {
	hw := &helpWriter{w: w, width: helpWidth(w)}
	switch {
	case h.cmd != nil:
		fs, _ := newFlagSet(h.cmd, &cli{})
		hw.command(h.cmd, fs)
	case h.group != "":
		hw.group(h.group)
	default:
		hw.usage()
	}
	return exitOK
}

// findCommand picks the command named by the first positional words of args and returns
// the other arguments. Help (`help [command]`, `--help`, `<group> --help`) and `--version`
// come back as a *helpRequest error or the version command.
func findCommand(args []string) (*command, []string, error) {
	var words, rest []string
	wantHelp := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help" || a == "-help":
			wantHelp = true
		case a == "--version" || a == "-version":
			return versionCommand, nil, nil
		case strings.HasPrefix(a, "-") && a != "-":
			rest = append(rest, a)
			if takesValue(strings.TrimLeft(a, "-")) && !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
		case len(words) < 2 && (len(words) == 0 || isGroup(words[0]) || words[0] == "help"),
			len(words) == 2 && words[0] == "help" && isGroup(words[1]):
			words = append(words, a)
		default:
			rest = append(rest, a)
		}
	}
	if len(words) > 0 && words[0] == "help" {
		words, wantHelp = words[1:], true
	}
	if len(words) == 0 {
		if wantHelp {
			return nil, nil, &helpRequest{}
		}
		return nil, nil, errors.New("no command given (see hermesctl help)")
	}
	name := strings.Join(words, " ")
	for _, cmd := range commands {
		if cmd.name == name {
			if wantHelp {
				return nil, nil, &helpRequest{cmd: cmd}
			}
			return cmd, rest, nil
		}
	}
	if len(words) == 1 && isGroup(name) {
		if wantHelp {
			return nil, nil, &helpRequest{group: name}
		}
		return nil, nil, fmt.Errorf("%q needs a subcommand: %s (see hermesctl %s --help)", name, strings.Join(subcommands(name), ", "), name)
	}
	if s := suggest.Closest(name, commandNames(words)); s != "" {
		return nil, nil, fmt.Errorf("unknown command %q (did you mean %q?)", name, s)
	}
	return nil, nil, fmt.Errorf("unknown command %q (see hermesctl help)", name)
}

// commandNames are what an unknown command of words may have meant: a command of the group
// it names ("hooks lst"), else the commands and groups as their first word is typed ("hoks").
func commandNames(words []string) []string {
	if len(words) == 2 && isGroup(words[0]) {
		var names []string
		for _, sub := range subcommands(words[0]) {
			names = append(names, words[0]+" "+sub)
		}
		return names
	}
	names := []string{"help"}
	for _, cmd := range commands {
		first, _, _ := strings.Cut(cmd.name, " ")
		if !slices.Contains(names, first) {
			names = append(names, first)
		}
	}
	return names
}

// flagError is a parse error of cmd's flags fs as it reads on the command line, in one
// line: flags written --name, an unknown flag with the closest flag of the command, else a
// pointer to the command's help.
func flagError(cmd *command, fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := suggest.Closest(name, names); s != "" {
			return fmt.Errorf("unknown flag --%s (did you mean %s?)", name, flagName(s))
		}
		msg = "unknown flag --" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "flag needs an argument: " + flagName(name)
	}
	msg = strings.Replace(msg, " for flag -", " for flag --", 1)
	return fmt.Errorf("%s (see hermesctl %s --help)", msg, cmd.name)
}

// flagName is a flag as it is written: -v, -o, else --name.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// isGroup reports whether name is a group of commands ("hooks", "plugins").
func isGroup(name string) bool { return len(subcommands(name)) > 0 }

// subcommands are the commands of a group, by their second word.
func subcommands(group string) []string {
	var subs []string
	for _, cmd := range commands {
		if g, sub, ok := strings.Cut(cmd.name, " "); ok && g == group {
			subs = append(subs, sub)
		}
	}
	return subs
}

// parseInterleaved parses flags that may appear before, between or after positional
// arguments; "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// wantArgs checks the number of positional arguments.
func (c *cli) wantArgs(args []string, n int) bool {
	if len(args) == n {
		return true
	}
	if c.cmd.args == "" {
		fmt.Fprintf(c.stderr, "hermesctl %s: takes no arguments, got %d\n", c.cmd.name, len(args))
	} else {
		fmt.Fprintf(c.stderr, "hermesctl %s: want %d argument(s) %s, got %d\n", c.cmd.name, n, c.cmd.args, len(args))
	}
	return false
}

// fail prints a one-line error, made printable (it may quote a hook or a file), and returns
// code.
func (c *cli) fail(code int, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "hermesctl: %s\n", printable(fmt.Sprintf(format, args...)))
	return code
}

// openEngine loads the home; a config error is reported (exit code 5) with the file and line.
func (c *cli) openEngine(ctx context.Context, opts engine.Options) (*engine.Engine, int) {
	opts = c.engineOptions(opts)
	eng, err := engine.New(ctx, opts)
	c.loaded()
	if err != nil {
		return nil, c.fail(exitConfig, "cannot load %s: %v", homedir.Resolve(c.home), err)
	}
	return eng, exitOK
}

// openGateway is openEngine with the gateway hooks of the home.
func (c *cli) openGateway(ctx context.Context, opts gateway.Options) (*gateway.Gateway, int) {
	opts.Engine = c.engineOptions(opts.Engine)
	gw, err := gateway.New(ctx, opts)
	c.loaded()
	if err != nil {
		return nil, c.fail(exitConfig, "cannot load %s: %v", homedir.Resolve(c.home), err)
	}
	return gw, exitOK
}

// engineOptions are opts with what the command line says: the home, the logger, consent.
func (c *cli) engineOptions(opts engine.Options) engine.Options {
	opts.Home = c.home
	opts.Logger = c.logger
	opts.DisableWebhooks = true // inspecting or replaying a home notifies nobody (webhooks test sends its sample itself)
	if c.home != "" {
		if _, err := os.Stat(c.home); err != nil {
			c.logger.Warn("the home given with --home does not exist (nothing to load)", "home", c.home)
		}
	}
	opts.AcceptHooks = opts.AcceptHooks || c.acceptHooks
	if f, ok := c.stdin.(*os.File); ok && !opts.IgnoreConsent && consent.IsTerminal(f) {
		opts.Prompt = &engine.Prompt{In: f, Out: c.stderr}
	}
	return opts
}
