package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
)

var completionCommand = &command{
	name:     "completion",
	args:     "bash|zsh|fish",
	help:     "print a shell completion script: source <(hermesctl completion bash), or add it to your shell's startup file",
	examples: []string{"source <(hermesctl completion bash)  # in ~/.bashrc"},
	run:      runCompletion,
}

func runCompletion(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	words := completionWords()
	switch args[0] {
	case "bash":
		bashCompletion(c.stdout, words)
	case "zsh":
		fmt.Fprintln(c.stdout, "#compdef hermesctl\nautoload -U +X bashcompinit && bashcompinit")
		bashCompletion(c.stdout, words)
	case "fish":
		fishCompletion(c.stdout, words)
	default:
		return c.fail(exitUsage, "completion: unknown shell %q: bash, zsh or fish", args[0])
	}
	return exitOK
}

// completions are the words that may follow each command prefix: "" (the first word),
// "hooks", and each command's name for its flags (and events for hooks test).
type completions map[string][]string

func completionWords() completions {
	w := completions{}
	add := func(after string, ws ...string) {
		for _, x := range ws {
			if !contains(w[after], x) {
				w[after] = append(w[after], x)
			}
		}
	}
	for _, cmd := range commands {
		first, sub, grouped := strings.Cut(cmd.name, " ")
		add("", first)
		if grouped {
			add(first, sub)
		}
		fs, _ := newFlagSet(cmd, &cli{})
		fs.VisitAll(func(f *flag.Flag) { add(cmd.name, "--"+f.Name) })
	}
	add("", "help", "--help", "--version")
	add("hooks test", hookspec.Names()...)
	add("hooks test", hookspec.GatewayStartup, hookspec.SessionStart, hookspec.SessionEnd, hookspec.SessionReset,
		hookspec.AgentStart, hookspec.AgentStep, hookspec.AgentEnd, "command:")
	add("completion", "bash", "zsh", "fish")
	return w
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// keys are the prefixes, longest first, so that "hooks test" is tried before "hooks".
func (w completions) keys() []string {
	var ks []string
	for k := range w {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return len(ks[i]) > len(ks[j]) || len(ks[i]) == len(ks[j]) && ks[i] < ks[j] })
	return ks
}

func bashCompletion(out io.Writer, w completions) {
	fmt.Fprint(out, `# bash completion for hermesctl
_hermesctl() {
  local cur="${COMP_WORDS[COMP_CWORD]}" words="" cmd="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${COMP_WORDS[i]}" in -*) continue ;; esac
    cmd="${cmd:+$cmd }${COMP_WORDS[i]}"
  done
  case "$cmd" in
`)
	for _, k := range w.keys() {
		if k == "" {
			continue
		}
		fmt.Fprintf(out, "    %q*) words=%q ;;\n", k, strings.Join(w[k], " "))
	}
	fmt.Fprintf(out, "    *) words=%q ;;\n  esac\n", strings.Join(w[""], " "))
	fmt.Fprint(out, `  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _hermesctl hermesctl
`)
}

func fishCompletion(out io.Writer, w completions) {
	fmt.Fprintln(out, "# fish completion for hermesctl")
	for _, word := range w[""] {
		fmt.Fprintf(out, "complete -c hermesctl -n '__fish_use_subcommand' -a %q\n", word)
	}
	for _, k := range w.keys() {
		if k == "" {
			continue
		}
		cond := "__fish_seen_subcommand_from " + strings.Fields(k)[len(strings.Fields(k))-1]
		for _, word := range w[k] {
			if name, ok := strings.CutPrefix(word, "--"); ok {
				fmt.Fprintf(out, "complete -c hermesctl -n %q -l %s\n", cond, name)
			} else {
				fmt.Fprintf(out, "complete -c hermesctl -n %q -a %q\n", cond, word)
			}
		}
	}
}
