//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// Every answer shape gives the same outcome whether a Lua plugin returns it or a shell
// hook prints it: the two sources share one set of rules (hookspec.Normalise and Merge).
// The first shape listed for each merging event decides something; a shape that does
// nothing where it surely meant something is an error from both.
func TestAnswerShapesAgreeAcrossSources(t *testing.T) {
	shapes := map[string][]string{
		hooknames.PreToolCall: {`{"action":"block","message":"no"}`, `{"action":"block"}`, `{"action":"block","message":"  "}`,
			`{"decision":"block","reason":"r"}`, `{"decision":"block"}`, `{"decision":"block","message":"m"}`,
			`{"action":"block","message":"m","decision":"block","reason":"r"}`, `{"action":"allow","decision":"block"}`,
			`{"action":"deny","message":"x"}`, `{"message":"x"}`, `"block"`, `5`, `[1]`,
			`{"action":"modify","args":{"command":"ls -la"}}`, `{"action":"modify"}`, `{"action":"approve"}`,
			`{"action":"approve","args":{"command":"ls"}}`, `{"decision":"approve"}`, `{"action":"ask","message":"sure?"}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
			`{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`,
			`{"hookSpecificOutput":{"permissionDecision":"ask"}}`, `{"hookSpecificOutput":{"updatedInput":{"command":"pwd"}}}`},
		hooknames.PreLLMCall:              {`{"context":"c"}`, `{"context":"   "}`, `{"context":""}`, `{"context":5}`, `"plain"`, `"  "`},
		hooknames.TransformToolResult:     {`""`, `"x"`, `{"result":"r"}`, `{"result":""}`, `{"result":5}`, `{"output":"o"}`},
		hooknames.TransformTerminalOutput: {`{"output":"o"}`, `"x"`, `{"result":"r"}`},
		hooknames.TransformLLMOutput:      {`"x"`, `""`, `{"response_text":""}`, `{"response_text":"r"}`},
		hooknames.PreGatewayDispatch: {`{"action":"skip","reason":"r"}`, `{"action":"skip"}`, `{"action":"rewrite","text":"t"}`,
			`{"action":"rewrite"}`, `{"action":"allow"}`, `{"action":"drop"}`, `"skip"`},
		hooknames.PostToolCall: {`{"action":"block","message":"x"}`},
	}
	for event, answers := range shapes {
		for i, answer := range answers {
			t.Run(event+" "+answer, func(t *testing.T) {
				lua := fire(t, event, pluginFiles("p", "", one(event, "return require('json').decode([==["+answer+"]==])")))
				script := "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '" + answer + "'\n"
				sh := fire(t, event, map[string]string{
					"hook.sh":     script,
					"config.yaml": "hooks:\n  " + event + ":\n    - command: ./hook.sh\n",
				})
				// An answer in no accepted shape is an error from either source.
				if lua.Hooks[0].Status != sh.Hooks[0].Status || (lua.Hooks[0].Status == hookspec.StatusError) != (lua.Outcome == nil && lua.Hooks[0].Err != "") {
					t.Fatalf("statuses: lua %s (%s), shell %s (%s)", lua.Hooks[0].Status, lua.Hooks[0].Err, sh.Hooks[0].Status, sh.Hooks[0].Err)
				}
				if i == 0 && event != hooknames.PostToolCall && lua.Outcome == nil { // the first shape of each event decides
					t.Fatalf("no outcome from %s", answer)
				}
				want := sameSource(lua.Outcome)
				if diff := cmp.Diff(want, sameSource(sh.Outcome)); diff != "" {
					t.Errorf("outcome from Lua %v, from shell (-lua +shell):\n%s", lua.Outcome, diff)
				}
			})
		}
	}
}

// fire loads a home of files and fires event once, with the shell hook's directory as
// the working directory.
func fire(t *testing.T, event string, files map[string]string) Report {
	t.Helper()
	home := testutil.Home(t, files)
	if _, err := os.Stat(filepath.Join(home, "hook.sh")); err == nil {
		os.Chmod(filepath.Join(home, "hook.sh"), 0o755)
		t.Chdir(home)
	}
	e := engineWith(t, home, Options{IgnoreConsent: true})
	return e.Fire(context.Background(), hookspec.HookNamed(event), hookspec.SampleKwargs(event, home))
}

// sameSource writes a default block message without its source, which differs by design.
func sameSource(outcome any) any {
	if m, ok := outcome.(map[string]any); ok {
		if msg, ok := m["message"].(string); ok {
			m["message"] = strings.Replace(msg, "Blocked by shell hook.", "Blocked by plugin hook.", 1)
		}
	}
	return outcome
}

// A fail_closed guard whose answer does nothing (a misspelled key, a list) blocks, and says
// why with status error, whether a Lua plugin returns it or a shell hook prints it; a shell
// hook that blocks with exit code 2 is told too, when its stdout does nothing.
func TestFailClosedAnswerThatDoesNothing(t *testing.T) {
	for _, answer := range []string{`{"decison":"block","message":"no"}`, `[1]`} {
		script := "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '" + answer + "'\n"
		reports := map[string]Report{
			"lua": fire(t, hooknames.PreToolCall, pluginFiles("p", "fail_closed: true\n", one(hooknames.PreToolCall, "return require('json').decode([==["+answer+"]==])"))),
			"shell": fire(t, hooknames.PreToolCall, map[string]string{
				"hook.sh":     script,
				"config.yaml": "hooks:\n  pre_tool_call:\n    - command: ./hook.sh\n      fail_closed: true\n",
			}),
			"shell exit 2": fire(t, hooknames.PreToolCall, map[string]string{
				"hook.sh":     script + "exit 2\n",
				"config.yaml": "hooks:\n  pre_tool_call:\n    - command: ./hook.sh\n",
			}),
		}
		for source, rep := range reports {
			if h := rep.Hooks[0]; h.Status != hookspec.StatusError || h.Err == "" {
				t.Errorf("%s %s: status %s (%q), want an error saying the answer does nothing", source, answer, h.Status, h.Err)
			}
			if rep.Block() == nil {
				t.Errorf("%s %s: let the call through, want a block", source, answer)
			}
		}
	}
}
