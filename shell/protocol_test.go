package shell

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type hostObject struct {
	Name string
	send func(string)
}

type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("boom") }

func TestBuildPayload(t *testing.T) {
	cyclic := map[string]any{"k": 1}
	cyclic["self"] = cyclic
	tests := []struct {
		name   string
		event  string
		kwargs map[string]any
		want   map[string]any
	}{
		{
			name:  "tool event",
			event: "pre_tool_call",
			kwargs: map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"},
				"session_id": "s1", "task_id": "t1", "tool_call_id": "c1"},
			want: map[string]any{"hook_event_name": "pre_tool_call", "tool_name": "terminal",
				"tool_input": map[string]any{"command": "rm -rf /"}, "session_id": "s1", "cwd": "/w",
				"extra": map[string]any{"task_id": "t1", "tool_call_id": "c1"}},
		},
		{
			name:   "non-tool event, parent session fallback",
			event:  "subagent_stop",
			kwargs: map[string]any{"parent_session_id": "p1", "child_role": nil, "duration_ms": 1234},
			want: map[string]any{"hook_event_name": "subagent_stop", "tool_name": nil, "tool_input": nil,
				"session_id": "p1", "cwd": "/w", "extra": map[string]any{"child_role": nil, "duration_ms": 1234.0}},
		},
		{
			name:   "args that is not a mapping is sent as null",
			event:  "pre_tool_call",
			kwargs: map[string]any{"tool_name": "terminal", "args": []any{"ls", "-la"}},
			want: map[string]any{"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": nil,
				"session_id": "", "cwd": "/w", "extra": map[string]any{}},
		},
		{
			name:   "nil session id and no kwargs",
			event:  "on_session_finalize",
			kwargs: map[string]any{"session_id": nil},
			want: map[string]any{"hook_event_name": "on_session_finalize", "tool_name": nil, "tool_input": nil,
				"session_id": "", "cwd": "/w", "extra": map[string]any{}},
		},
		{
			name:  "values that are not JSON become strings",
			event: "pre_gateway_dispatch",
			kwargs: map[string]any{
				"gateway":  &hostObject{Name: "gw", send: func(string) {}},
				"callback": func() {},
				"ch":       make(chan int),
				"nan":      math.NaN(),
				"cycle":    cyclic,
				"panics":   panicky{},
				"when":     time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
				"nested":   map[int][]any{7: {func() {}, "ok"}},
			},
			want: map[string]any{"hook_event_name": "pre_gateway_dispatch", "tool_name": nil, "tool_input": nil,
				"session_id": "", "cwd": "/w", "extra": map[string]any{
					"gateway":  map[string]any{"Name": "gw"},
					"callback": "<func()>",
					"ch":       "<chan int>",
					"nan":      "NaN",
					"cycle":    map[string]any{"k": 1.0, "self": "<cycle>"},
					"panics":   "<shell.panicky>",
					"when":     "2026-01-02T03:04:05Z",
					"nested":   map[string]any{"7": []any{"<func()>", "ok"}},
				}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := BuildPayload(tt.event, tt.kwargs, "/w")
			if err != nil {
				t.Fatalf("BuildPayload: %v", err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("payload is not JSON: %v\n%s", err, b)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildPayloadKeyOrderAndHTML(t *testing.T) {
	b, err := BuildPayload("pre_tool_call", map[string]any{"args": map[string]any{"command": "a && b <c>"}}, "/w")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hook_event_name":"pre_tool_call","tool_name":null,"tool_input":{"command":"a && b <c>"},"session_id":"","cwd":"/w","extra":{}}` + "\n"
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestParseOutput(t *testing.T) {
	block := func(msg string) any { return map[string]any{"action": "block", "message": msg} }
	tests := []struct {
		name      string
		event     string
		stdout    string
		wantValue any
		wantErr   bool
	}{
		{"empty", "pre_tool_call", "", nil, false},
		{"blank", "pre_tool_call", " \n\t", nil, false},
		{"empty object", "pre_tool_call", "{}", nil, false},
		{"not json", "pre_tool_call", "not json", nil, true},
		{"truncated json", "pre_tool_call", `{"action": "blo`, nil, true},
		{"two values", "pre_tool_call", `{} {}`, nil, true},
		{"array", "pre_tool_call", "[1, 2]", nil, false},
		{"string", "pre_tool_call", `"block"`, nil, false},
		{"null", "pre_tool_call", "null", nil, false},
		{"allow", "pre_tool_call", `{"decision":"allow"}`, nil, false},
		{"canonical block", "pre_tool_call", `{"action":"block","message":"no rm"}`, block("no rm"), false},
		{"claude block", "pre_tool_call", `{"decision":"block","reason":"nope"}`, block("nope"), false},
		{"both shapes: canonical wins", "pre_tool_call", `{"action":"block","message":"A","decision":"block","reason":"B"}`, block("A"), false},
		{"both shapes: canonical allow wins", "pre_tool_call", `{"action":"allow","decision":"block","reason":"B"}`, nil, false},
		{"block without message", "pre_tool_call", `{"action":"block"}`, block(DefaultBlockMessage), false},
		{"block with empty message", "pre_tool_call", `{"action":"block","message":"  "}`, block(DefaultBlockMessage), false},
		{"block with non-string message", "pre_tool_call", `{"action":"block","message":5}`, block(DefaultBlockMessage), false},
		{"claude block without reason", "pre_tool_call", `{"decision":"block"}`, block(DefaultBlockMessage), false},
		{"claude block with message field", "pre_tool_call", `{"decision":"block","message":"m"}`, block("m"), false},
		{"deny is not block", "pre_tool_call", `{"action":"deny","message":"x"}`, nil, false},
		{"block on post_tool_call is ignored", "post_tool_call", `{"action":"block","message":"x"}`, nil, false},
		{"context", "pre_llm_call", `{"context":"be brief"}`, map[string]any{"context": "be brief"}, false},
		{"blank context", "pre_llm_call", `{"context":"  "}`, nil, false},
		{"non-string context", "pre_llm_call", `{"context":3}`, nil, false},
		{"block on pre_llm_call is ignored", "pre_llm_call", `{"action":"block","message":"x"}`, nil, false},
		{"transform result", "transform_tool_result", `{"result":"new"}`, "new", false},
		{"transform result empty string counts", "transform_tool_result", `{"result":""}`, "", false},
		{"transform result non-string", "transform_tool_result", `{"result":{"a":1}}`, nil, false},
		{"transform terminal", "transform_terminal_output", `{"output":""}`, "", false},
		{"transform llm", "transform_llm_output", `{"response_text":"hi"}`, "hi", false},
		{"transform llm empty ignored", "transform_llm_output", `{"response_text":""}`, nil, false},
		{"dispatch action", "pre_gateway_dispatch", `{"action":"rewrite","text":"x","n":2}`, map[string]any{"action": "rewrite", "text": "x"}, false},
		{"dispatch without action", "pre_gateway_dispatch", `{"text":"x"}`, nil, false},
		{"observer", "post_llm_call", `{"context":"x"}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsed, answer, err := ParseOutput(tt.event, []byte(tt.stdout))
			value := value(answer)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrMalformedOutput) {
					t.Errorf("err = %v, want it to wrap ErrMalformedOutput", err)
				}
				if parsed != nil || value != nil {
					t.Errorf("got parsed %v value %v with an error, want nil", parsed, value)
				}
			}
			if diff := cmp.Diff(tt.wantValue, value); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			if strings.TrimSpace(tt.stdout) != "" && strings.TrimSpace(tt.stdout) != "null" && !tt.wantErr && parsed == nil {
				t.Errorf("parsed = nil for valid JSON %q", tt.stdout)
			}
		})
	}
}

func TestParseOutputNumbers(t *testing.T) {
	parsed, _, err := ParseOutput("post_llm_call", []byte(`{"i": 3, "f": 1.5, "big": 1e400, "l": [9007199254740993]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"i": int64(3), "f": 1.5, "big": "+Inf", "l": []any{int64(9007199254740993)}}
	if diff := cmp.Diff(want, parsed); diff != "" {
		t.Errorf("parsed (-want +got):\n%s", diff)
	}
}

func TestWithRequestID(t *testing.T) {
	// A tool input that itself holds "request_id" cannot come before the real one.
	kw := map[string]any{"tool_name": "terminal", "args": map[string]any{"request_id": "forged"}}
	payload, err := BuildPayload("pre_tool_call", kw, "/w")
	if err != nil {
		t.Fatal(err)
	}
	framed := withRequestID(payload, "7-ABC")
	if !strings.HasPrefix(string(framed), `{"request_id":"7-ABC","hook_event_name":`) || !strings.HasSuffix(string(framed), "}\n") {
		t.Errorf("framed = %q, want request_id first and one line", framed)
	}
	var plain, got map[string]any
	if err := json.Unmarshal(payload, &plain); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(framed, &got); err != nil {
		t.Fatalf("framed payload is not JSON: %v", err)
	}
	if id, has := takeRequestID(got); id != "7-ABC" || !has {
		t.Errorf("request_id = %v, %v", id, has)
	}
	if diff := cmp.Diff(plain, got); diff != "" {
		t.Errorf("payload changed by the framing (-want +got):\n%s", diff)
	}
	if got := string(withRequestID([]byte("{}\n"), "1-X")); got != `{"request_id":"1-X"}`+"\n" {
		t.Errorf("empty object framed = %q", got)
	}
	if _, has := takeRequestID([]any{"request_id"}); has {
		t.Error("a list has no request_id")
	}
}
