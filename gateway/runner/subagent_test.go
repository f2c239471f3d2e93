package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// subagentHooks keeps a subagent going until its report ends with a verdict, and records
// what pre_verify, subagent_stop, post_tool_failure and on_session_end saw.
const subagentHooks = `
local hermes = require("hermes")
function register(ctx)
  ctx.register_hook("pre_verify", function(kw)
    local s = kw.subagent
    if s == nil then
      hermes.saw("verify agent nudges=" .. kw.nudges)
      return
    end
    hermes.saw("verify " .. s.agent_id .. " " .. s.agent_type .. " nudges=" .. kw.nudges .. " session=" .. kw.session_id)
    if not kw.response:find("VERDICT:") then
      return {action = "continue", reason = "end your report with a VERDICT: line"}
    end
  end)
  ctx.register_hook("subagent_stop", function(kw) hermes.saw("stopped " .. kw.child_role .. ": " .. kw.child_summary) end)
  ctx.register_hook("post_tool_failure", function(kw)
    hermes.saw("failure " .. kw.tool_call_id .. ": " .. kw.error .. " interrupted=" .. tostring(kw.interrupted))
  end)
  ctx.register_hook("on_session_end", function(kw)
    hermes.saw("end completed=" .. tostring(kw.completed) .. " interrupted=" .. tostring(kw.interrupted))
  end)
end`

// replaySubagents replays transcript against subagentHooks and config and returns the
// timeline's notes and flows and what the hooks saw.
func replaySubagents(t *testing.T, config, transcript string) (lines, saw []string, err error) {
	t.Helper()
	home := testutil.Home(t, map[string]string{
		"plugins/sub/plugin.yaml": "name: sub\n", "plugins/sub/handler.lua": subagentHooks, "config.yaml": config,
	})
	seen := func(_ context.Context, a []any) (any, error) {
		saw = append(saw, a[0].(string))
		return nil, nil
	}
	tl, err := Replay(context.Background(), "t.jsonl", strings.NewReader(transcript),
		gateway.Options{Engine: engine.Options{Home: home, HostFuncs: map[string]hookspec.Func{"saw": seen}, IgnoreConsent: true}})
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

// A subagent about to stop fires pre_verify naming it; a hook keeps it going until its
// report holds a verdict (the next subagent line is its next stop), and another one that
// never does is stopped by max_verify_nudges, counted for each subagent apart from the
// agent's own.
func TestReplaySubagentVerify(t *testing.T) {
	lines, saw, err := replaySubagents(t, "max_verify_nudges: 2\n", `
{"type":"message","platform":"cli","user_id":"ada","text":"review the fix"}
{"type":"llm","response":"I asked two reviewers."}
{"type":"subagent","agent_id":"agent-1","role":"reviewer","summary":"looks fine","status":"completed"}
{"type":"subagent","agent_id":"agent-1","role":"reviewer","summary":"add is right.\nVERDICT: approve","status":"completed"}
{"type":"subagent","agent_id":"agent-2","role":"reviewer","summary":"hmm","status":"completed"}
{"type":"subagent","role":"reviewer","summary":"still hmm","status":"completed"}
{"type":"subagent","agent_id":"agent-2","role":"reviewer","summary":"no idea","status":"completed"}
{"type":"subagent","role":"explorer","summary":"crashed","status":"failed"}
`)
	if err != nil {
		t.Fatal(err)
	}
	wantSaw := []string{
		"verify agent nudges=0",
		"end completed=true interrupted=false",
		"verify agent-1 reviewer nudges=0 session=sess-1",
		"verify agent-1 reviewer nudges=1 session=sess-1",
		"stopped reviewer: add is right.\nVERDICT: approve",
		"verify agent-2 reviewer nudges=0 session=sess-1",
		"verify agent-2 reviewer nudges=1 session=sess-1",
		"verify agent-2 reviewer nudges=2 session=sess-1",
		"stopped reviewer: no idea",
		"stopped explorer: crashed", // a subagent that failed is not asked to go on
	}
	if diff := cmp.Diff(wantSaw, saw); diff != "" {
		t.Errorf("hooks saw (-want +got):\n%s", diff)
	}
	wantLines := []string{
		`flow: message in from ada on cli: "review the fix"`,
		`flow: reply out to ada: "I asked two reviewers."`,
		"pre_verify: subagent agent-1 (reviewer) keeps going: sub asked (1 of at most max_verify_nudges for it)",
		`flow: next instruction to subagent agent-1, from sub: "end your report with a VERDICT: line"`,
		`flow: subagent agent-1 (reviewer) about to stop again: "add is right.\nVERDICT: approve"`,
		"pre_verify: subagent agent-2 (reviewer) keeps going: sub asked (1 of at most max_verify_nudges for it)",
		`flow: next instruction to subagent agent-2, from sub: "end your report with a VERDICT: line"`,
		`flow: subagent agent-2 (reviewer) about to stop again: "still hmm"`,
		"pre_verify: subagent agent-2 (reviewer) keeps going: sub asked (2 of at most max_verify_nudges for it)",
		`flow: next instruction to subagent agent-2, from sub: "end your report with a VERDICT: line"`,
		`flow: subagent agent-2 (reviewer) about to stop again: "no idea"`,
		"pre_verify: sub asked to keep going (end your report with a VERDICT: line), but subagent agent-2 already kept going 2 times (max_verify_nudges); it stops",
	}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}

// A subagent a hook keeps going needs its next stop in the transcript: without one, or with
// another subagent's, the replay says which line and why.
func TestReplaySubagentKeptGoingNeedsItsNextStop(t *testing.T) {
	cases := []struct{ name, transcript, want string }{
		{"no next stop", `{"type":"subagent","agent_id":"a1","role":"reviewer","summary":"hmm"}
{"type":"message","platform":"cli","user_id":"ada","text":"hi"}`,
			"t.jsonl: line 1: a hook kept subagent a1 going: the transcript needs its next stop, a subagent line, after line 1"},
		{"another subagent's", `{"type":"subagent","agent_id":"a1","role":"reviewer","summary":"hmm"}
{"type":"subagent","agent_id":"a2","role":"reviewer","summary":"VERDICT: approve"}`,
			"t.jsonl: line 1: a hook kept subagent a1 going: line 2 is a stop of subagent a2, not of a1"},
	}
	for _, c := range cases {
		_, _, err := replaySubagents(t, "", c.transcript)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// A tool call the user interrupted fails as interrupted, the step's later calls do not
// run, and the turn ends interrupted: no reply, on_session_end with interrupted=true, and a
// hook written for Codex on its Interrupt event fires (for that turn only) with Codex's
// payload. An llm line can interrupt a turn while the model answers, too.
func TestReplayInterrupted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "interrupts.jsonl")
	config := "hooks:\n  on_session_end:\n    - command: cat >> '" + out + "'; echo >> '" + out + "'\n      dialect: codex\n"
	lines, saw, err := replaySubagents(t, config, `
{"type":"message","platform":"cli","user_id":"ada","text":"run the slow tests"}
{"type":"llm","model":"gpt-5","tool_calls":[{"id":"c1","name":"terminal","args":{"command":"go test ./slow"},"interrupted":true},{"id":"c2","name":"terminal","args":{"command":"echo never"},"result":"{}"}]}
{"type":"message","platform":"cli","user_id":"ada","text":"never mind, say hi"}
{"type":"llm","model":"gpt-5","response":"hi"}
{"type":"message","platform":"cli","user_id":"ada","text":"write a novel"}
{"type":"llm","interrupted":true}
`)
	if err != nil {
		t.Fatal(err)
	}
	wantSaw := []string{
		"failure c1: interrupted by the user interrupted=true",
		"end completed=false interrupted=true",
		"verify agent nudges=0",
		"end completed=true interrupted=false",
		"end completed=false interrupted=true",
	}
	if diff := cmp.Diff(wantSaw, saw); diff != "" {
		t.Errorf("hooks saw (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"note: turn interrupted: tool call c1 (terminal): interrupted by the user; no reply",
		"note: turn interrupted: the user interrupted the turn (line 7); no reply",
	} {
		if !contains(lines, want) {
			t.Errorf("timeline lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "c2") || strings.Contains(l, "reply out to ada: \"\"") {
			t.Errorf("timeline: %s (the interrupted step's later call ran, or an empty reply went out)", l)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var payloads []map[string]any
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var p map[string]any
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		payloads = append(payloads, p)
	}
	if len(payloads) != 2 {
		t.Fatalf("the Interrupt hook fired %d times, want 2 (the interrupted turns):\n%s", len(payloads), data)
	}
	cwd, _ := os.Getwd()
	want := map[string]any{"session_id": "sess-1", "turn_id": "", "transcript_path": nil, "cwd": cwd,
		"hook_event_name": "Interrupt", "model": "gpt-5", "permission_mode": "default"}
	if diff := cmp.Diff(want, payloads[0]); diff != "" {
		t.Errorf("Interrupt payload (-want +got):\n%s", diff)
	}
}

// An interrupted llm line carries nothing else.
func TestParseTranscriptInterrupted(t *testing.T) {
	_, err := ParseTranscript("t.jsonl", strings.NewReader(`{"type":"llm","interrupted":true,"response":"x"}`))
	want := `t.jsonl:1: an interrupted llm line has no tool_calls, response or error (to interrupt a tool call, set its own "interrupted": true)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
