package examples

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// The dispatch home: pre_gateway_dispatch plugins.

func dm(user, text string) hookspec.DispatchEvent {
	return hookspec.DispatchEvent{Text: text, Platform: "telegram", UserID: user, ChatID: "dm-" + user, ChatType: "dm", MessageID: "1"}
}

func group(chat, user, text string) hookspec.DispatchEvent {
	return hookspec.DispatchEvent{Text: text, Platform: "telegram", UserID: user, ChatID: chat, ChatType: "group", MessageID: "1"}
}

func TestDMAllowlist(t *testing.T) {
	home := install(t, "dispatch")
	eng, logs := newEngine(t, home)
	ctx := context.Background()
	tests := []struct {
		ev   hookspec.DispatchEvent
		want engine.Dispatch
	}{
		{dm("stranger", "let me in"), engine.Dispatch{Action: engine.DispatchSkip, Reason: "unauthorized-dm", Hook: "dm-allowlist"}},
		{dm("ada", "hello"), engine.Dispatch{Action: engine.DispatchAllow}},
		{dm("123456789", "hello"), engine.Dispatch{Action: engine.DispatchAllow}}, // a numeric id in the config
		// Group chats are not the allowlist's business (ambient-buffer takes them).
		{group("team", "stranger", "hi all"), engine.Dispatch{Action: engine.DispatchSkip, Reason: "ambient-buffered", Hook: "ambient-buffer"}},
	}
	for _, tt := range tests {
		got := eng.PreGatewayDispatch(ctx, tt.ev, engine.DispatchHost{})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s from %s (-want +got):\n%s", tt.ev.ChatType, tt.ev.UserID, diff)
		}
	}
	if len(logLines(logs, "dropped a DM from an unauthorised user")) != 1 {
		t.Errorf("want one log line for the dropped DM:\n%s", logs)
	}
}

func TestAmbientBuffer(t *testing.T) {
	home := install(t, "dispatch")
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	dispatch := func(ev hookspec.DispatchEvent) engine.Dispatch {
		return eng.PreGatewayDispatch(ctx, ev, engine.DispatchHost{})
	}
	ambient := engine.Dispatch{Action: engine.DispatchSkip, Reason: "ambient-buffered", Hook: "ambient-buffer"}
	for _, ev := range []hookspec.DispatchEvent{
		group("team", "ada", "the deploy failed again"),
		group("other", "eve", "lunch?"),
		group("team", "bob", "disk full on /var"),
	} {
		if diff := cmp.Diff(ambient, dispatch(ev)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", ev.Text, diff)
		}
	}
	want := engine.Dispatch{Action: engine.DispatchRewrite, Hook: "ambient-buffer",
		Text: "Messages in this chat since I was last mentioned:\nada: the deploy failed again\nbob: disk full on /var\nada: @Hermes what went wrong?"}
	if diff := cmp.Diff(want, dispatch(group("team", "ada", "@Hermes what went wrong?"))); diff != "" {
		t.Errorf("mention (-want +got):\n%s", diff)
	}
	// The buffer was released: a second mention goes through as it is.
	if diff := cmp.Diff(engine.Dispatch{Action: engine.DispatchAllow}, dispatch(group("team", "ada", "@hermes_bot and now?"))); diff != "" {
		t.Errorf("mention with an empty buffer (-want +got):\n%s", diff)
	}
	// The other chat kept its own buffer; @hermesbot is not a mention of @hermes.
	if diff := cmp.Diff(ambient, dispatch(group("other", "eve", "@hermesbot is a different bot"))); diff != "" {
		t.Errorf("not a mention (-want +got):\n%s", diff)
	}
	got := dispatch(group("other", "eve", "@hermes thoughts?"))
	if got.Action != engine.DispatchRewrite || got.Text != "Messages in this chat since I was last mentioned:\neve: lunch?\neve: @hermesbot is a different bot\neve: @hermes thoughts?" {
		t.Errorf("other chat = %+v", got)
	}
}

// TestDispatchTranscript replays scripts/examples/dispatch/transcript.jsonl (the README's
// `hermesctl replay` example) and checks what the agent was asked.
func TestDispatchTranscript(t *testing.T) {
	home := install(t, "dispatch")
	tl, err := replayFile(context.Background(), filepath.Join(exampleDir("dispatch"), "transcript.jsonl"), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []any
	for _, e := range tl.Events {
		if e.Event == hooknames.PreGatewayDispatch {
			outcomes = append(outcomes, e.Outcome)
		}
	}
	want := []any{
		map[string]any{"action": "skip", "reason": "unauthorized-dm"},
		map[string]any{"action": "skip", "reason": "ambient-buffered"},
		map[string]any{"action": "skip", "reason": "ambient-buffered"},
		map[string]any{"action": "rewrite", "text": "Messages in this chat since I was last mentioned:\nada: the deploy failed again\nbob: same error as yesterday: disk full on /var\nada: @hermes what went wrong?"},
		nil,
	}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Errorf("dispatch outcomes (-want +got):\n%s", diff)
	}
}
