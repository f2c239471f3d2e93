package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/engine"
)

// cli carries what every command needs.
type cli struct {
	ctx    context.Context
	cmd    *command
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	home        string
	acceptHooks bool
	json        bool
	verbose     bool
	logger      *slog.Logger

	// command-specific flags
	forTool     string
	payloadFile string
	prometheus  bool
}

// command is one subcommand.
type command struct {
	name  string // "hooks test"
	args  string // positional arguments, for usage
	help  string
	flags func(fs *flag.FlagSet, c *cli) // command-specific flags
	run   func(c *cli, args []string) int
}

var commands []*command

func init() {
	commands = []*command{
		hooksListCommand, hooksTestCommand, hooksAllowCommand, hooksRevokeCommand, hooksDoctorCommand,
		hooksWatchCommand, hooksStatsCommand, pluginsListCommand, replayCommand, demoCommand,
	}
}

// valueFlags take a value as the next argument.
var valueFlags = map[string]bool{"home": true, "for-tool": true, "payload-file": true}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	cmd, rest, err := findCommand(args)
	if err != nil {
		fmt.Fprintf(stderr, "hermesctl: %v\n\n", err)
		usage(stderr)
		return exitUsage
	}
	if cmd == nil {
		usage(stdout)
		return exitOK
	}
	fs := flag.NewFlagSet("hermesctl "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.home, "home", "", "hermes home directory (default $HERMES_HOME, else ~/.hermes)")
	fs.BoolVar(&c.acceptHooks, "accept-hooks", false, "approve shell hooks without asking")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	fs.BoolVar(&c.verbose, "v", false, "debug logs")
	if cmd.flags != nil {
		cmd.flags(fs, c)
	}
	positional, err := parseInterleaved(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(stdout, cmd, fs)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermesctl %s: %v\n", cmd.name, err)
		commandUsage(stderr, cmd, fs)
		return exitUsage
	}
	c.logger = newLogger(stderr, c.verbose)
	c.cmd = cmd
	return cmd.run(c, positional)
}

// findCommand picks the command named by the first positional words of args and returns
// the other arguments. A nil command with no error means help was asked for.
func findCommand(args []string) (*command, []string, error) {
	var words []string
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && a != "-" {
			rest = append(rest, a)
			name := strings.TrimLeft(a, "-")
			if valueFlags[name] && !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
			continue
		}
		if len(words) < 2 && (len(words) == 0 || words[0] == "hooks" || words[0] == "plugins") {
			words = append(words, a)
			continue
		}
		rest = append(rest, a)
	}
	if len(words) == 0 || words[0] == "help" {
		for _, a := range rest {
			if a == "-h" || a == "--help" || a == "-help" {
				return nil, nil, nil
			}
		}
		if len(words) > 0 {
			return nil, nil, nil
		}
		return nil, nil, errors.New("no command given")
	}
	name := strings.Join(words, " ")
	var subs []string
	for _, cmd := range commands {
		if cmd.name == name {
			return cmd, rest, nil
		}
		if group, sub, ok := strings.Cut(cmd.name, " "); ok && group == words[0] {
			subs = append(subs, sub)
		}
	}
	if len(words) == 1 && len(subs) > 0 {
		return nil, nil, fmt.Errorf("%q needs a subcommand: %s", name, strings.Join(subs, ", "))
	}
	return nil, nil, fmt.Errorf("unknown command %q", name)
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

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hermesctl [--home DIR] [--accept-hooks] [-v] <command> [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, cmd := range commands {
		fmt.Fprintf(w, "  %-40s %s\n", strings.TrimSpace(cmd.name+" "+cmd.args), cmd.help)
	}
}

func commandUsage(w io.Writer, cmd *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: hermesctl %s\n\n%s\n\nflags:\n", strings.TrimSpace(cmd.name+" "+cmd.args), cmd.help)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// wantArgs checks the number of positional arguments.
func (c *cli) wantArgs(args []string, n int) bool {
	if len(args) == n {
		return true
	}
	fmt.Fprintf(c.stderr, "hermesctl %s: want %d argument(s) %s, got %d\n", c.cmd.name, n, c.cmd.args, len(args))
	return false
}

// fail prints a one-line error, made printable (it may quote a hook or a file), and returns
// code.
func (c *cli) fail(code int, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "hermesctl: %s\n", printable(fmt.Sprintf(format, args...)))
	return code
}

// openEngine loads the home; a config error is reported (exit code 5) with the file and line.
func (c *cli) openEngine(opts engine.Options) (*engine.Engine, int) {
	opts.Home = c.home
	opts.Logger = c.logger
	if c.home != "" {
		if _, err := os.Stat(c.home); err != nil {
			c.logger.Warn("the home given with --home does not exist (nothing to load)", "home", c.home)
		}
	}
	opts.AcceptHooks = opts.AcceptHooks || c.acceptHooks
	if f, ok := c.stdin.(*os.File); ok && !opts.IgnoreConsent && consent.IsTerminal(f) {
		opts.Prompt = &engine.Prompt{In: f, Out: c.stderr}
	}
	eng, err := engine.New(c.ctx, opts)
	if err != nil {
		return nil, c.fail(exitConfig, "cannot load %s: %v", engine.ResolveHome(c.home), err)
	}
	return eng, exitOK
}
