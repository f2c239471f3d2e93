package hookspec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A hook's request replaces the fields it gives, a key at a time; a field of the wrong type
// or an unknown key is an error naming it, and the request stays as it was.
func TestLLMRequestWithTable(t *testing.T) {
	t.Parallel()
	base := SampleLLMRequest()
	msgs := []any{tbl{"role": "user", "content": "hi"}}
	tests := []struct {
		name    string
		t       tbl
		want    func(r *LLMRequest)
		wantErr string
	}{
		{"nothing", tbl{}, func(*LLMRequest) {}, ""},
		{"the model alone", tbl{"model": "small"}, func(r *LLMRequest) { r.Model = "small" }, ""},
		{"messages", tbl{"messages": msgs}, func(r *LLMRequest) { r.Messages = []Message{{Role: "user", Content: "hi"}} }, ""},
		{"no tools: an empty table", tbl{"tools": tbl{}}, func(r *LLMRequest) { r.Tools = []map[string]any{} }, ""},
		{"params, an empty list", tbl{"params": []any{}}, func(r *LLMRequest) { r.Params = map[string]any{} }, ""},
		{"a message that is not a table", tbl{"messages": []any{"hi"}}, nil, `request.messages[1] must be a table, not "hi"`},
		{"a message whose role is not a string", tbl{"messages": []any{tbl{"role": true}}}, nil, `request.messages[1].role must be a string, not true`},
		{"messages that are not a list", tbl{"messages": "hi"}, nil, `request.messages must be a list of tables, not "hi"`},
		{"a model that is not a string", tbl{"model": int64(4)}, nil, `request.model must be a string, not 4`},
		{"an unknown key", tbl{"prompt": "x"}, nil, `request key "prompt" is not one of [model system messages tools params]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := base.WithTable(tt.t)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if diff := cmp.Diff(base, got); diff != "" {
					t.Errorf("a failed change changed the request (-want +got):\n%s", diff)
				}
				return
			}
			want := base
			tt.want(&want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A response is a string (its content) or a table of the response's keys; its table form
// reads back as itself.
func TestResponseFrom(t *testing.T) {
	t.Parallel()
	full := LLMResponse{Model: "m", Content: "c", ToolCalls: []ToolCall{{Name: "terminal", ToolCallID: "c1", Args: map[string]any{"command": "ls"}}}, StopReason: "end", Usage: map[string]any{"input_tokens": int64(3)}}
	tests := []struct {
		name    string
		v       any
		want    LLMResponse
		wantErr string
	}{
		{"a string", "offline", LLMResponse{Content: "offline"}, ""},
		{"the table form", full.Table(), full, ""},
		{"content alone", tbl{"content": "x"}, LLMResponse{Content: "x"}, ""},
		{"a number", int64(1), LLMResponse{}, "a response must be a string or a table, not 1"},
		{"content that is not a string", tbl{"content": true}, LLMResponse{}, "response.content must be a string, not true"},
		{"a tool call without a name", tbl{"tool_calls": []any{tbl{"id": "c1"}}}, LLMResponse{}, `response.tool_calls[1] has no name: a tool call is {id=..., name=..., args={...}}`},
		{"a tool call's args that are not a table", tbl{"tool_calls": []any{tbl{"name": "t", "args": "ls"}}}, LLMResponse{}, `response.tool_calls[1].args must be a table, not "ls"`},
		{"a tool call's unknown key", tbl{"tool_calls": []any{tbl{"name": "t", "input": tbl{}}}}, LLMResponse{}, `response.tool_calls[1]: key "input" is not one of [args id name]`},
		{"an unknown key", tbl{"text": "x"}, LLMResponse{}, `response key "text" is not one of [model content tool_calls stop_reason usage]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResponseFrom(tt.v)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
