package examples

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/gateway/runner"
	"github.com/hermes-hooks/hermes/hookspec"
)

// The middleware home: retry with backoff, a store-backed tool cache and a timing wrapper
// around the tools; a history trimmer and redactor, a tool-list narrower and a canned
// responder on the requests to the model.

// wrapEntries are the timeline's wrap_tool_call entries, in order.
func wrapEntries(tl runner.Timeline) []runner.Entry {
	var out []runner.Entry
	for _, e := range tl.Events {
		if e.Event == hookspec.WrapToolCall.String() {
			out = append(out, e)
		}
	}
	return out
}

// hookRuns are the name, status and nexts of every wrap hook run of an entry, in the order
// entered.
func hookRuns(e runner.Entry) []string {
	var out []string
	for _, h := range e.Hooks {
		n := -1
		if h.Nexts != nil {
			n = *h.Nexts
		}
		out = append(out, h.Name+":"+h.Status.String()+":"+string(rune('0'+n)))
	}
	return out
}

// flows are the timeline's flow lines.
func flows(tl runner.Timeline) []string {
	var out []string
	for _, e := range tl.Events {
		if e.Event == "flow" {
			out = append(out, e.Flow)
		}
	}
	return out
}

// TestMiddlewareReplay replays the home's transcript: a flaky web search retried after a
// pause, a file read twice (the second time answered from the store, the tool not run),
// every request to the model redacted and narrowed before it leaves, and a question the
// canned responder answers without the model.
func TestMiddlewareReplay(t *testing.T) {
	home := install(t, "middleware")
	tl, err := replayFile(context.Background(), filepath.Join(exampleDir("middleware"), "transcript.jsonl"), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	wraps := wrapEntries(tl)
	if len(wraps) != 3 {
		t.Fatalf("%d wrap_tool_call entries, want 3 (call-1, call-2, call-3)", len(wraps))
	}

	// call-1: the search fails once; retry-backoff calls next twice, and the cache and the
	// timing wrapper inside it run once per attempt.
	retried := wraps[0]
	if o, _ := retried.Outcome.(map[string]any); o["runs"] != 2 || o["result"] != `{"results":["sunny"]}` {
		t.Errorf("call-1 outcome %v, want the tool run twice and its second result", retried.Outcome)
	}
	want := []string{"retry-backoff:ok:2", "tool-cache:ok:1", "tool-timing:ok:1", "tool-cache:ok:1", "tool-timing:ok:1"}
	if got := hookRuns(retried); !slices.Equal(got, want) {
		t.Errorf("call-1 wrap hooks %v, want %v", got, want)
	}

	// call-3: the same read as call-2, answered from the store: the tool does not run.
	hit := wraps[2]
	if o, _ := hit.Outcome.(map[string]any); o["runs"] != 0 || o["result"] != "127.0.0.1 localhost" {
		t.Errorf("call-3 outcome %v, want the cached result and no run of the tool", hit.Outcome)
	}
	if got, want := hookRuns(hit), []string{"retry-backoff:ok:1", "tool-cache:ok:0"}; !slices.Equal(got, want) {
		t.Errorf("call-3 wrap hooks %v, want %v (the cache answered without calling next)", got, want)
	}

	// Every request that reached the model was rewritten: the key redacted, the terminal
	// tool not offered on telegram.
	var sent []string
	for _, f := range flows(tl) {
		if strings.HasPrefix(f, "request to the model as sent") {
			sent = append(sent, f)
		}
	}
	if len(sent) != 4 {
		t.Fatalf("%d requests sent after a rewrite, want 4 (two steps in each of two turns):\n%s", len(sent), strings.Join(flows(tl), "\n"))
	}
	for _, s := range sent {
		if strings.Contains(s, "sk-test-123") || !strings.Contains(s, "[REDACTED]") || !strings.Contains(s, "tools [web_search read_file]") {
			t.Errorf("request as sent: %s\nwant the key redacted and only web_search and read_file offered", s)
		}
	}

	// "status?" is answered by the canned responder: no llm line is taken for it.
	var respond *runner.Entry
	for i, e := range tl.Events {
		if e.Event == hookspec.PreAPIRequest.String() {
			if o, _ := e.Outcome.(map[string]any); o["action"] == "respond" {
				respond = &tl.Events[i]
			}
		}
	}
	if respond == nil {
		t.Fatal("no pre_api_request answered with a response")
	}
	fl := strings.Join(flows(tl), "\n")
	for _, w := range []string{
		`response from canned-responder, the model was not called: "All systems normal."`,
		`reply out to u1: "All systems normal."`,
		`reply out to u1: "Still 127.0.0.1 localhost."`,
	} {
		if !strings.Contains(fl, w) {
			t.Errorf("flow lacks %q:\n%s", w, fl)
		}
	}

	// The timing wrapper wrote one line per run of a tool: two for call-1 (the first one
	// failed), one for call-2, none for the cached call-3.
	f, err := os.Open(filepath.Join(home, "logs", "tool-timing.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var line struct {
			ToolCallID string `json:"tool_call_id"`
			OK         bool   `json:"ok"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		status := "ok"
		if !line.OK {
			status = "failed"
		}
		runs = append(runs, line.ToolCallID+":"+status)
	}
	if want := []string{"call-1:failed", "call-1:ok", "call-2:ok"}; !slices.Equal(runs, want) {
		t.Errorf("timing log %v, want %v", runs, want)
	}
}

// TestMiddlewareOffline: with offline: true, every request is answered by the canned
// responder, and the model (the transcript's llm lines) is never asked.
func TestMiddlewareOffline(t *testing.T) {
	home := install(t, "middleware")
	manifest := filepath.Join(home, "plugins", "canned-responder", "plugin.yaml")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(data), "offline: false", "offline: true", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	transcript := `{"type":"message","platform":"cli","user_id":"u1","chat_id":"c1","text":"hello"}` + "\n"
	tl, err := runner.Replay(context.Background(), "offline.jsonl", strings.NewReader(transcript), gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatalf("replay with no llm line: %v (the model must not be asked)", err)
	}
	if fl := strings.Join(flows(tl), "\n"); !strings.Contains(fl, "The assistant is offline for maintenance") {
		t.Errorf("flow:\n%s", fl)
	}
}
