package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// pointsHooks answers every lifecycle point of SPEC §4.5.
const pointsHooks = `
local hermes = require("hermes")
function register(ctx)
  ctx.register_hook("pre_verify", function(kw)
    if not kw.response:find("tests pass") then
      return {action = "continue", reason = "the tests fail; fix them"}
    end
  end)
  ctx.register_hook("pre_llm_call", function(kw)
    if kw.user_message:find("sk%-") then return {action = "block", message = "no API keys in prompts"} end
  end)
  ctx.register_hook("pre_approval_request", function(kw)
    if kw.command:find("^rm %-rf /tmp/") then return {action = "allow", remember = true} end
    if kw.command:find("^rm %-rf /$") then return {action = "deny", message = "never"} end
  end)
  ctx.register_hook("post_tool_failure", function(kw) hermes.saw("failure " .. kw.tool_name .. ": " .. kw.error) end)
  ctx.register_hook("pre_compact", function(kw) return "keep the file names (" .. #kw.messages .. " messages)" end)
  ctx.register_hook("post_compact", function(kw) hermes.saw("summary: " .. kw.summary) end)
  ctx.register_hook("on_notification", function(kw) hermes.saw(kw.notification_type .. ": " .. kw.message) end)
  ctx.register_hook("post_approval_response", function(kw) hermes.saw("approval " .. kw.command .. ": " .. kw.choice) end)
end`

// replayPoints replays transcript against pointsHooks (and config.yaml) and returns the
// timeline's notes and flows and what the hooks saw.
func replayPoints(t *testing.T, config, transcript string) (lines, saw []string, err error) {
	t.Helper()
	home := testutil.Home(t, map[string]string{
		"plugins/points/plugin.yaml": "name: points\n", "plugins/points/handler.lua": pointsHooks, "config.yaml": config,
	})
	seen := func(_ context.Context, a []any) (any, error) {
		saw = append(saw, a[0].(string))
		return nil, nil
	}
	tl, err := Replay(context.Background(), "t.jsonl", strings.NewReader(transcript), gateway.Options{Engine: engine.Options{Home: home, HostFuncs: map[string]hookspec.Func{"saw": seen}}})
	for _, e := range tl.Events {
		switch {
		case e.Flow != "":
			lines = append(lines, "flow: "+e.Flow)
		case e.Note != "":
			lines = append(lines, e.Event+": "+e.Note)
		}
	}
	return lines, saw, err
}

// A pre_verify hook keeps the agent going until the tests pass: its reason is the agent's
// next user turn.
func TestReplayPreVerifyKeepsGoing(t *testing.T) {
	lines, _, err := replayPoints(t, "", `
{"type":"message","platform":"cli","user_id":"ada","text":"fix the bug"}
{"type":"llm","response":"fixed, I think"}
{"type":"llm","tool_calls":[{"id":"c1","name":"terminal","args":{"command":"go test ./..."},"result":"{\"output\":\"ok\"}"}]}
{"type":"llm","response":"fixed; the tests pass"}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`flow: message in from ada on cli: "fix the bug"`,
		"pre_verify: the agent keeps going: points asked (1 of at most max_verify_nudges this turn)",
		`flow: next user turn, from points: "the tests fail; fix them"`,
		`flow: tool call c1: terminal {"command":"go test ./..."}`,
		`flow: tool result c1, as the model sees it: {"output":"ok"}`,
		`flow: reply out to ada: "fixed; the tests pass"`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}

// max_verify_nudges caps the hook: after that many continues in one turn the agent stops.
func TestReplayPreVerifyCap(t *testing.T) {
	lines, _, err := replayPoints(t, "max_verify_nudges: 2\n", `
{"type":"message","platform":"cli","user_id":"ada","text":"fix the bug"}
{"type":"llm","response":"try 1"}
{"type":"llm","response":"try 2"}
{"type":"llm","response":"try 3"}
{"type":"message","platform":"cli","user_id":"ada","text":"again"}
{"type":"llm","response":"the tests pass"}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`flow: message in from ada on cli: "fix the bug"`,
		"pre_verify: the agent keeps going: points asked (1 of at most max_verify_nudges this turn)",
		`flow: next user turn, from points: "the tests fail; fix them"`,
		"pre_verify: the agent keeps going: points asked (2 of at most max_verify_nudges this turn)",
		`flow: next user turn, from points: "the tests fail; fix them"`,
		"pre_verify: points asked to keep going (the tests fail; fix them), but this turn already kept going 2 times (max_verify_nudges); the agent stops",
		`flow: reply out to ada: "try 3"`,
		`flow: message in from ada on cli: "again"`, // a new turn starts counting again
		`flow: reply out to ada: "the tests pass"`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}

// A blocked prompt is not sent: no llm line is consumed, the user gets the message.
func TestReplayPromptBlock(t *testing.T) {
	lines, _, err := replayPoints(t, "", `
{"type":"message","platform":"cli","user_id":"ada","text":"my key is sk-123"}
{"type":"message","platform":"cli","user_id":"ada","text":"hello"}
{"type":"llm","response":"hi; the tests pass"}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`flow: message in from ada on cli: "my key is sk-123"`,
		"pre_llm_call: prompt blocked by points: no API keys in prompts",
		`flow: reply out to ada (the prompt was not sent): "no API keys in prompts"`,
		`flow: message in from ada on cli: "hello"`,
		`flow: reply out to ada: "hi; the tests pass"`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}

// pre_approval_request answers approvals itself; the person (the transcript's choice) is
// asked only when no hook answers. A failed tool fires post_tool_failure; a compact line
// fires pre_compact with the history and post_compact with the summary; a notification
// line fires on_notification.
func TestReplayApprovalFailureCompactNotification(t *testing.T) {
	lines, saw, err := replayPoints(t, "", `
{"type":"message","platform":"cli","user_id":"ada","text":"clean up"}
{"type":"llm","tool_calls":[{"id":"c1","name":"terminal","args":{"command":"make"},"error":"exit status 2"}]}
{"type":"llm","response":"done; the tests pass"}
{"type":"approval","command":"rm -rf /tmp/build","choice":"deny"}
{"type":"approval","command":"rm -rf /","choice":"always"}
{"type":"approval","command":"chmod 777 .","choice":"once"}
{"type":"compact","trigger":"manual","summary":"ada asked to clean up; done"}
{"type":"notification","text":"waiting for input","notification_type":"idle_prompt"}
`)
	if err != nil {
		t.Fatal(err)
	}
	wantSaw := []string{
		"failure terminal: exit status 2",
		"approval rm -rf /tmp/build: always",
		"approval rm -rf /: deny",
		"approval chmod 777 .: once",
		"summary: ada asked to clean up; done",
		"idle_prompt: waiting for input",
	}
	if diff := cmp.Diff(wantSaw, saw); diff != "" {
		t.Errorf("hooks saw (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		`pre_approval_request: approval of "rm -rf /tmp/build" granted by points (always)`,
		"the person was not asked (a hook answered always); the transcript's choice deny is not used",
		`pre_approval_request: approval of "rm -rf /" denied by points: never`,
		`pre_compact: instructions for the summary from hooks: "keep the file names (2 messages)"`,
		`flow: history of sess-1 (2 messages) summarised: "ada asked to clean up; done"`,
	} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("timeline lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}
