package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/shell"
	"github.com/hermes-hooks/hermes/store"
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
	if why := brokenGuard(eng, call.Firings[0].Hook); why != "" {
		return call.Failed(why, failOpen)
	}
	answers := make([]hookspec.Answer, len(call.Firings))
	for i, f := range call.Firings {
		if f.Hook == hooknames.PreVerify {
			answers[i] = verifyAnswer(ctx, c, eng, call, f.Kwargs)
			continue
		}
		answers[i] = answerOf(eng.Fire(ctx, hookspec.HookNamed(f.Hook), f.Kwargs))
	}
	return call.Reply(answers)
}

// brokenGuard names a plugin of the home that failed to load and may have served hook (its
// manifest lists it, or could not be read): nobody knows what it would have decided.
func brokenGuard(eng *engine.Engine, hook string) string {
	for _, p := range eng.Plugins() {
		if p.Status == "error" && (len(p.Hooks) == 0 || slices.Contains(p.Hooks, hook)) {
			return fmt.Sprintf("plugin %s, which may serve %s, did not load: %s; fix it (`hermesctl doctor`), or disable it in config.yaml", p.Name, hook, p.Error)
		}
	}
	return ""
}

// answerOf is a report's merged decision as one answer.
func answerOf(rep engine.Report) hookspec.Answer {
	d := rep.Decision
	a := hookspec.Answer{Kind: d.Kind, Message: d.Message, Text: d.Text, Args: d.Args, Remember: d.Remember, Output: d.Output}
	if b := rep.Block(); b != nil && a.Message == "" {
		a.Message = "blocked by hook " + b.Hook
	}
	return a
}

// nudgeNS is the store namespace of the nudge counts of Stop hooks: one process per call
// cannot keep them, so they live in the home's store (shared by replicas that share it).
const nudgeNS = "hermes.nudges"

// verifyAnswer fires pre_verify with the number of times hooks kept this session (or
// subagent) going since the agent last stopped, so max_verify_nudges holds across calls.
// A count that cannot be read lets the agent stop: going on is never the safe side.
func verifyAnswer(ctx context.Context, c *cli, eng *engine.Engine, call *shell.AgentCall, kw map[string]any) hookspec.Answer {
	v := hookspec.Verify{SessionID: kwString(kw, "session_id"), UserMessage: kwString(kw, "user_message"), Response: kwString(kw, "response"),
		Model: kwString(kw, "model"), Platform: kwString(kw, "platform")}
	key := v.SessionID
	if s := hookspec.SubagentOf(kw); s != nil {
		v.Subagent, key = s, key+"/"+s.ID
	}
	b, err := engineStore(eng)
	if err != nil {
		c.logger.Warn("pre_verify: the store that counts nudges cannot be opened; the agent stops", "error", err)
		return hookspec.Answer{}
	}
	if call.Nudged {
		raw, _, err := b.Get(ctx, nudgeNS, key)
		if err != nil {
			c.logger.Warn("pre_verify: the nudge count cannot be read; the agent stops", "error", err)
			return hookspec.Answer{}
		}
		v.Nudges, _ = strconv.Atoi(string(raw))
	}
	d := eng.PreVerify(ctx, v)
	if !d.Continue {
		return hookspec.Answer{}
	}
	if err := b.Set(ctx, nudgeNS, key, []byte(strconv.Itoa(v.Nudges+1)), 24*time.Hour); err != nil {
		c.logger.Warn("pre_verify: the nudge count cannot be kept; the agent stops", "error", err)
		return hookspec.Answer{}
	}
	return hookspec.Answer{Kind: hookspec.Continue, Message: d.Reason}
}

// engineStore is the store of the engine's home.
func engineStore(eng *engine.Engine) (store.Backend, error) {
	b, err := eng.Store()
	if err == nil && b == nil {
		err = errors.New("no store")
	}
	return b, err
}

func kwString(kw map[string]any, k string) string { s, _ := kw[k].(string); return s }
