package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/server"
	"github.com/hermes-hooks/hermes/shell"
)

// `hermesctl hook claude|codex|gemini`: the command an agent runs as its command hook. It
// reads the agent's payload on stdin, fires the home's hooks for that point and answers as
// the agent reads a command hook: exit code, stderr, JSON on stdout. Its output is the
// agent's protocol, not this tool's: no --json, no colour, logs only when nothing blocks.

var hookCommands = []*command{hookAgentCommand(shell.DialectClaude), hookAgentCommand(shell.DialectCodex), hookAgentCommand(shell.DialectGemini),
	hookInstallCommand, hookUninstallCommand, serveCommand}

func hookAgentCommand(dialect string) *command {
	agent := agentTitle(dialect)
	return &command{
		name: "hook " + dialect,
		examples: []string{"hermesctl hook " + dialect + " < payload.json  # what " + agent + " runs: the answer on stdout, the exit code",
			"hermesctl hook " + dialect + " --server http://127.0.0.1:8787  # ask a hook server instead of loading the home"},
		help: "run as " + agent + "'s command hook: its payload on stdin, the home's hooks fired for its event, the answer as " + agent + " reads it",
		flags: func(fs *flag.FlagSet) runFunc {
			var a agentHookArgs
			fs.BoolVar(&a.failOpen, "fail-open", false, "when the hooks cannot run (a home that does not load, a server out of reach), let the call through instead of blocking it")
			fs.StringVar(&a.server, "server", "", "ask the hook server at `URL` (hermesctl serve; http://HOST:PORT, https://..., unix:PATH) instead of loading the home; a token comes from $HERMES_SERVER_TOKEN")
			return func(ctx context.Context, c *cli, args []string) int {
				if !c.wantArgs(args, 0) {
					return exitUsage
				}
				return runAgentHook(ctx, c, dialect, a)
			}
		},
	}
}

// agentHookArgs are the flags of hook claude|codex|gemini.
type agentHookArgs struct {
	failOpen bool
	server   string
}

func runAgentHook(ctx context.Context, c *cli, dialect string, a agentHookArgs) int {
	var logs bytes.Buffer // printed unless the answer blocks: then stderr is the reason the agent shows
	c.logger = newLogger(&logs, c.verbose)
	reply := agentReply(ctx, c, dialect, a)
	io.WriteString(c.stdout, reply.Stdout)
	if reply.Exit != 2 {
		c.stderr.Write(logs.Bytes())
	}
	io.WriteString(c.stderr, reply.Stderr)
	return reply.Exit
}

// agentReply reads the call, fires its hooks and builds the answer.
func agentReply(ctx context.Context, c *cli, dialect string, a agentHookArgs) shell.Reply {
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
	if a.server != "" {
		return askServer(ctx, a.server, dialect, payload, call, a.failOpen)
	}
	home := homedir.Resolve(c.home)
	if _, err := os.Stat(home); err != nil {
		return call.Failed(fmt.Sprintf("the hermes home %s cannot be read (%v); create it, or set HERMES_HOME or --home to the one to use", home, err), a.failOpen)
	}
	var fires []hookspec.Hook // a process per call loads only the plugins that may serve its points
	for _, f := range call.Firings {
		if h := hookspec.HookNamed(f.Hook); !slices.Contains(fires, h) {
			fires = append(fires, h)
		}
	}
	eng, err := engine.New(ctx, engine.Options{Home: c.home, Logger: c.logger, DisableWebhooks: true, AcceptHooks: c.acceptHooks, Fires: fires})
	if err != nil {
		return call.Failed(fmt.Sprintf("%v; fix it, then `hermesctl hooks doctor` says what else is wrong", err), a.failOpen)
	}
	defer func() { // the call is answered: its decisions go to the decision log, if any, for at most closeWait
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeWait)
		defer cancel()
		eng.Close(ctx)
	}()
	return server.AnswerAgent(engine.WithCaller(ctx, dialect), eng, call, a.failOpen, c.logger)
}

// closeWait bounds how long `hermesctl hook` waits, once it answered, to send its decisions
// to the managed home's decision log: an endpoint that is down never holds up the agent more.
const closeWait = 2 * time.Second

// askServer forwards the agent's payload to a hook server (POST /v1/agents/{agent}) and
// returns its answer; a server out of reach fails the call as a home that does not load
// does. It connects within 2 s.
func askServer(ctx context.Context, url, dialect string, payload []byte, call *shell.AgentCall, failOpen bool) shell.Reply {
	client, base := serverClient(url)
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/agents/"+dialect, bytes.NewReader(payload))
	if err != nil {
		return call.Failed(fmt.Sprintf("--server %s: %v", url, err), failOpen)
	}
	req.Header.Set("Content-Type", "application/json")
	if tok := os.Getenv("HERMES_SERVER_TOKEN"); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := client.Do(req)
	if err != nil {
		return call.Failed(fmt.Sprintf("the hook server %s cannot be reached (%v); start it (hermesctl serve) or fix --server", url, err), failOpen)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, shell.MaxAgentPayload))
	var r struct {
		Exit           int
		Stdout, Stderr string
		Error          string
	}
	if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != http.StatusOK {
		why := strings.TrimSpace(firstNonEmpty(r.Error, string(body)))
		return call.Failed(fmt.Sprintf("the hook server %s answered %s: %s", url, resp.Status, why), failOpen)
	}
	return shell.Reply{Exit: r.Exit, Stdout: r.Stdout, Stderr: r.Stderr}
}

// serverClient is the client and base URL of --server: a unix socket (unix:PATH) or HTTP(S).
func serverClient(url string) (*http.Client, string) {
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: 2 * time.Second}
	base := strings.TrimSuffix(url, "/")
	if path, ok := strings.CutPrefix(url, "unix:"); ok {
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) { return dialer.DialContext(ctx, "unix", path) }
		base = "http://unix"
	}
	return &http.Client{Transport: tr, Timeout: 5 * time.Minute}, base
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
