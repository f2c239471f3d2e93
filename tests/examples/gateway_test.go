package examples

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/gateway/runner"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

// The gateway home: gateway event hooks (HOOK.yaml + handler.lua).

func TestActivityLogger(t *testing.T) {
	home := install(t, "gateway")
	gw, _ := newGateway(t, home, gateway.Options{})
	base := map[string]any{"platform": "telegram", "user_id": "u1", "session_id": "s1"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{k: v}
		for bk, bv := range base {
			m[bk] = bv
		}
		return m
	}
	// As the gateway does it: Emit never waits; Close drains the queues.
	gw.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:start", Data: with("message", "clean up /tmp")})
	gw.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:step", Data: with("iteration", 1)})
	gw.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: with("response", "done")})
	gw.Emit(context.Background(), hookspec.NamedEvent{Name: "command:model", Data: map[string]any{"platform": "telegram", "user_id": "u1", "command": "model", "args": ""}}) // not subscribed
	if err := gw.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := readJSONLines(t, filepath.Join(home, "logs", "activity.jsonl"))
	var events []string
	for _, l := range lines {
		events = append(events, fmt.Sprint(l["event"]))
		if l["session_id"] != "s1" || l["platform"] != "telegram" || l["user_id"] != "u1" || l["timestamp"] == nil {
			t.Errorf("entry without the event's context or a timestamp: %v", l)
		}
	}
	if diff := cmp.Diff([]string{"agent:start", "agent:step", "agent:end"}, events); diff != "" {
		t.Errorf("logged events (-want +got):\n%s", diff)
	}
	if len(lines) == 3 && (lines[0]["message"] != "clean up /tmp" || lines[1]["iteration"] != 1.0 || lines[2]["response"] != "done") {
		t.Errorf("entries lost their event fields: %v", lines)
	}
}

func TestLongTaskAlert(t *testing.T) {
	home := install(t, "gateway")
	telegram := newRecorder(t, nil)
	t.Setenv("TELEGRAM_BOT_TOKEN", "123:secret")
	t.Setenv("TELEGRAM_CHAT_ID", "4242")
	t.Setenv("TELEGRAM_API_BASE", telegram.URL+"/")
	gw, logs := newGateway(t, home, gateway.Options{})
	for i := 1; i <= 12; i++ {
		gw.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:step", Data: map[string]any{"platform": "telegram", "user_id": "u1", "session_id": "s1",
			"iteration": i, "tool_names": []any{"terminal", "read_file"}}})
	}
	if err := gw.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := telegram.requests()
	if len(reqs) != 1 {
		t.Fatalf("Telegram received %d requests, want exactly 1 (at step 10): %+v\nlogs:\n%s", len(reqs), reqs, logs)
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/bot123:secret/sendMessage" || r.ContentType != "application/json" {
		t.Errorf("request = %s %s (%s), want POST /bot123:secret/sendMessage (application/json)", r.Method, r.Path, r.ContentType)
	}
	if r.Body["chat_id"] != "4242" {
		t.Errorf("chat_id = %v, want 4242", r.Body["chat_id"])
	}
	if text, _ := r.Body["text"].(string); !strings.Contains(text, "running for 10 steps") || !strings.Contains(text, "terminal, read_file") {
		t.Errorf("text = %q, want the step count and the last tools", text)
	}
}

func TestLongTaskAlertWithoutToken(t *testing.T) {
	home := install(t, "gateway")
	telegram := newRecorder(t, nil)
	t.Setenv("TELEGRAM_BOT_TOKEN", "")
	t.Setenv("TELEGRAM_CHAT_ID", "4242")
	t.Setenv("TELEGRAM_API_BASE", telegram.URL)
	gw, _ := newGateway(t, home, gateway.Options{})
	got := collect(gw.EmitSync(context.Background(), hookspec.NamedEvent{Name: "agent:step", Data: map[string]any{"iteration": 10, "tool_names": []any{"terminal"}, "session_id": "s1"}}))
	if len(telegram.requests()) != 0 {
		t.Error("a request was sent without a token")
	}
	if !strings.Contains(fmt.Sprint(got), "TELEGRAM_BOT_TOKEN or TELEGRAM_CHAT_ID is not set") {
		t.Errorf("outcome = %v, want a note that the token is missing", got)
	}
}

func TestCommandLogger(t *testing.T) {
	home := install(t, "gateway")
	gw, _ := newGateway(t, home, gateway.Options{})
	ctx := context.Background()
	gw.EmitSync(ctx, hookspec.NamedEvent{Name: "command:model", Data: map[string]any{"platform": "telegram", "user_id": "u1", "command": "model", "args": "gpt-4o"}})
	gw.EmitSync(ctx, hookspec.NamedEvent{Name: "command:reset", Data: map[string]any{"platform": "discord", "user_id": "u2", "command": "reset", "args": ""}})
	gw.EmitSync(ctx, hookspec.NamedEvent{Name: "agent:start", Data: map[string]any{"platform": "telegram", "user_id": "u1", "session_id": "s1", "message": "hi"}})
	lines := readJSONLines(t, filepath.Join(home, "logs", "command_usage.jsonl"))
	for _, l := range lines {
		if l["ts"] == nil {
			t.Errorf("entry without ts: %v", l)
		}
		delete(l, "ts")
	}
	want := []map[string]any{
		{"command": "model", "args": "gpt-4o", "platform": "telegram", "user": "u1"},
		{"command": "reset", "args": "", "platform": "discord", "user": "u2"},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("command_usage.jsonl (-want +got):\n%s", diff)
	}
}

func TestSessionWebhook(t *testing.T) {
	home := install(t, "gateway")
	service := newRecorder(t, nil)
	t.Setenv("SESSION_WEBHOOK_URL", service.URL+"/hermes-events")
	gw, _ := newGateway(t, home, gateway.Options{})
	ctx := context.Background()
	start := map[string]any{"platform": "telegram", "user_id": "u1", "session_id": "s1", "session_key": "telegram:u1:c1"}
	reset := map[string]any{"platform": "telegram", "user_id": "u1", "session_key": "telegram:u1:c1"}
	gw.EmitSync(ctx, hookspec.NamedEvent{Name: "session:start", Data: start})
	gw.EmitSync(ctx, hookspec.NamedEvent{Name: "session:end", Data: reset}) // not subscribed
	out := collect(gw.EmitSync(ctx, hookspec.NamedEvent{Name: "session:reset", Data: reset}))
	if diff := cmp.Diff([]any{"posted session:reset to the webhook: HTTP 200"}, out); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	want := []request{
		{Method: "POST", Path: "/hermes-events", ContentType: "application/json",
			Body: map[string]any{"event": "session:start", "platform": "telegram", "user_id": "u1", "session_id": "s1", "session_key": "telegram:u1:c1"}},
		{Method: "POST", Path: "/hermes-events", ContentType: "application/json",
			Body: map[string]any{"event": "session:reset", "platform": "telegram", "user_id": "u1", "session_key": "telegram:u1:c1"}},
	}
	if diff := cmp.Diff(want, service.requests()); diff != "" {
		t.Errorf("webhook requests (-want +got):\n%s", diff)
	}
}

func TestBootMD(t *testing.T) {
	home := install(t, "gateway")
	var prompts []string
	reply := "2 cron jobs failed overnight; summary sent to #ops."
	runAgent := hookspec.Func(func(_ context.Context, args []any) (any, error) {
		prompts = append(prompts, fmt.Sprint(args...))
		return reply, nil
	})
	gw, _ := newGateway(t, home, gateway.Options{HostFuncs: map[string]hookspec.Func{"run_agent": runAgent}})
	ctx := context.Background()
	startup := map[string]any{"platforms": []any{"telegram", "discord"}}

	if diff := cmp.Diff([]any{reply}, collect(gw.EmitSync(ctx, hookspec.NamedEvent{Name: "gateway:startup", Data: startup}))); diff != "" {
		t.Errorf("startup outcome (-want +got):\n%s", diff)
	}
	boot, err := os.ReadFile(filepath.Join(home, "BOOT.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 1 || !strings.Contains(prompts[0], strings.TrimSpace(string(boot))) || !strings.Contains(prompts[0], "reply with ONLY: [SILENT]") {
		t.Fatalf("run_agent prompts = %q, want one holding BOOT.md and the [SILENT] convention", prompts)
	}

	reply = "Nothing to report. [SILENT]"
	if out := collect(gw.EmitSync(ctx, hookspec.NamedEvent{Name: "gateway:startup", Data: startup})); len(out) != 0 {
		t.Errorf("a [SILENT] reply produced %v, want nothing", out)
	}

	if err := os.Remove(filepath.Join(home, "BOOT.md")); err != nil {
		t.Fatal(err)
	}
	if out := collect(gw.EmitSync(ctx, hookspec.NamedEvent{Name: "gateway:startup", Data: startup})); len(out) != 0 || len(prompts) != 2 {
		t.Errorf("without BOOT.md: outcome %v, %d agent runs; want nothing and no run", out, len(prompts)-2)
	}
}

// TestBootMDReplay runs the hook in the reference gateway runner, which offers run_agent.
func TestBootMDReplay(t *testing.T) {
	home := install(t, "gateway")
	transcript := `{"type":"prompt_reply","text":"Disk is 91% full on /var."}
{"type":"startup","platforms":["telegram"]}
{"type":"startup","platforms":["telegram"]}
`
	tl, err := runner.Replay(context.Background(), "boot.jsonl", strings.NewReader(transcript), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []any
	for _, e := range tl.Events {
		if e.Event == "gateway:startup" {
			outcomes = append(outcomes, e.Outcome)
		}
	}
	// The second start has no prompt_reply left: the transcript agent answers [SILENT].
	if diff := cmp.Diff([]any{[]any{"Disk is 91% full on /var."}, []any(nil)}, outcomes); diff != "" {
		t.Errorf("gateway:startup outcomes (-want +got):\n%s", diff)
	}
}

// TestGatewayTranscript replays scripts/examples/gateway/transcript.jsonl (the README's
// example) against the installed home: every hook's file and the BOOT.md report.
func TestGatewayTranscript(t *testing.T) {
	home := install(t, "gateway")
	t.Setenv("SESSION_WEBHOOK_URL", "")
	tl, err := replayFile(context.Background(), filepath.Join(exampleDir("gateway"), "transcript.jsonl"), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	var boot any
	for _, e := range tl.Events {
		if e.Event == "gateway:startup" {
			boot = e.Outcome
		}
		for _, h := range e.Hooks {
			if h.Status != hookspec.StatusOK {
				t.Errorf("%s: %s %s: %s", e.Event, h.Name, h.Status, h.Err)
			}
		}
	}
	if diff := cmp.Diff([]any{"2 cron jobs failed overnight; summary sent to Discord #ops."}, boot); diff != "" {
		t.Errorf("BOOT.md report (-want +got):\n%s", diff)
	}
	var events []any
	for _, l := range readJSONLines(t, filepath.Join(home, "logs", "activity.jsonl")) {
		events = append(events, l["event"])
	}
	if diff := cmp.Diff([]any{"agent:start", "agent:step", "agent:step", "agent:end"}, events); diff != "" {
		t.Errorf("activity.jsonl events (-want +got):\n%s", diff)
	}
	var commands []any
	for _, l := range readJSONLines(t, filepath.Join(home, "logs", "command_usage.jsonl")) {
		commands = append(commands, l["command"])
	}
	if diff := cmp.Diff([]any{"model", "reset"}, commands); diff != "" {
		t.Errorf("command_usage.jsonl commands (-want +got):\n%s", diff)
	}
}

// replayFile replays the transcript file at path.
func replayFile(ctx context.Context, path string, opts gateway.Options) (runner.Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return runner.Timeline{}, err
	}
	defer f.Close()
	return runner.Replay(ctx, path, f, opts)
}

// collect is the non-nil values the handlers returned.
func collect(rs []hookspec.Result) []any {
	var out []any
	for _, r := range rs {
		if r.Result != nil {
			out = append(out, r.Result)
		}
	}
	return out
}
