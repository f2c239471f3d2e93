package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/server"
	"github.com/hermes-hooks/hermes/shell"
)

// `hermesctl hook claude|codex|gemini`: the command an agent runs as its command hook. It
// reads the agent's payload on stdin, fires the home's hooks for that point and answers as
// the agent reads a command hook: exit code, stderr, JSON on stdout. Its output is the
// agent's protocol, not this tool's: no --json, no colour, logs only when nothing blocks.

var hookCommands = []*command{hookAgentCommand(shell.DialectClaude), hookAgentCommand(shell.DialectCodex), hookAgentCommand(shell.DialectGemini),
	hookInstallCommand, hookUninstallCommand}

func hookAgentCommand(dialect string) *command {
	agent := agentTitle(dialect)
	return &command{
		name: "hook " + dialect,
		help: "run as " + agent + "'s command hook: its payload on stdin, the home's hooks fired for its event, the answer as " + agent + " reads it",
		flags: func(fs *flag.FlagSet) runFunc {
			var failOpen bool
			fs.BoolVar(&failOpen, "fail-open", false, "when the hooks cannot run (a home that does not load), let the call through instead of blocking it")
			return func(ctx context.Context, c *cli, args []string) int {
				if !c.wantArgs(args, 0) {
					return exitUsage
				}
				return runAgentHook(ctx, c, dialect, failOpen)
			}
		},
	}
}

func runAgentHook(ctx context.Context, c *cli, dialect string, failOpen bool) int {
	var logs bytes.Buffer // printed unless the answer blocks: then stderr is the reason the agent shows
	c.logger = newLogger(&logs, c.verbose)
	reply := agentReply(ctx, c, dialect, failOpen)
	io.WriteString(c.stdout, reply.Stdout)
	if reply.Exit != 2 {
		c.stderr.Write(logs.Bytes())
	}
	io.WriteString(c.stderr, reply.Stderr)
	return reply.Exit
}

// agentReply reads the call, fires its hooks and builds the answer.
func agentReply(ctx context.Context, c *cli, dialect string, failOpen bool) shell.Reply {
	payload, err := io.ReadAll(io.LimitReader(c.stdin, shell.MaxAgentPayload+1))
	if err == nil && len(payload) > shell.MaxAgentPayload {
		err = fmt.Errorf("the payload is over %d bytes", shell.MaxAgentPayload)
	}
	var call *shell.AgentCall
	if err == nil {
		call, err = shell.ReadAgentCall(dialect, payload, nil)
	}
	if err != nil { // which event it is cannot be known: block, the safe side of every event
		return shell.Reply{Exit: 2, Stderr: "blocked: hermesctl hook " + dialect + ": " + err.Error() + "\n"}
	}
	if len(call.Firings) == 0 {
		return shell.Reply{}
	}
	home := homedir.Resolve(c.home)
	if _, err := os.Stat(home); err != nil {
		return call.Failed(fmt.Sprintf("the hermes home %s cannot be read (%v); create it, or set HERMES_HOME or --home to the one to use", home, err), failOpen)
	}
	eng, err := engine.New(ctx, engine.Options{Home: c.home, Logger: c.logger, DisableWebhooks: true, AcceptHooks: c.acceptHooks})
	if err != nil {
		return call.Failed(fmt.Sprintf("%v; fix it, then `hermesctl doctor` says what else is wrong", err), failOpen)
	}
	defer eng.Close(context.WithoutCancel(ctx))
	return server.AnswerAgent(ctx, eng, call, failOpen, c.logger)
}
