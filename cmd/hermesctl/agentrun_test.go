package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	agentcmd "github.com/hermes-hooks/hermes/internal/command"
	"github.com/hermes-hooks/hermes/shell"
)

// agentRun runs the entries `hook install` wrote for an event as the agent runs them:
// each command line by /bin/sh -c, in the project directory, with the script's stdin as the
// payload and the variables the agent sets for its hooks; it fails unless each exits with
// the given code. Their stdout and stderr are checked by the lines after it.
//
//	agentrun 0 claude .claude/settings.json PreToolUse
func agentRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: agentrun EXIT claude|codex|gemini SETTINGS EVENT")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("agentrun: %q is not an exit code", args[0])
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[2])), &settings); err != nil {
		ts.Fatalf("agentrun: %s: %v", args[2], err)
	}
	project := ts.Getenv("PWD")
	ran := 0
	for _, g := range settings.Hooks[args[3]] {
		for _, h := range g.Hooks {
			if h.Type != "command" || shell.CallsAgentHook(h.Command) == "" {
				continue
			}
			var env []string
			for _, v := range agentcmd.AgentVars[args[1]] {
				if v.Holds == agentcmd.HoldsProject {
					env = append(env, v.Name+"="+project)
				}
			}
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				ts.Setenv(k, v)
			}
			ran++
			got := 0
			if err := ts.Exec("sh", "-c", h.Command); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					ts.Fatalf("agentrun: %v", err)
				}
				got = ee.ExitCode()
			}
			if got != want {
				ts.Fatalf("%s exited with %d, want %d", h.Command, got, want)
			}
		}
	}
	if ran == 0 {
		ts.Fatalf("agentrun: %s gives %s no entry of hermesctl hook", args[2], args[3])
	}
}
