package hookspec

import (
	"fmt"
	"maps"
	"slices"
)

// LLMRequest is one request to the model, whole: pre_api_request's request, what
// wrap_llm_call's next takes, and what the host's model call receives. Hooks see the
// messages (Message, with whatever else the host's API carries in Extra) and the tools (in
// the host's API shape: {name=..., description=..., parameters=...}) as they leave, never a
// summary.
type LLMRequest struct {
	SessionID    string
	Platform     string
	APICallCount int // how many model calls this turn has made, this one included

	Model    string
	System   string           // the system prompt
	Messages []Message        // the conversation, oldest first
	Tools    []map[string]any // the tools the model may call
	Params   map[string]any   // the model's parameters (temperature, max_tokens, ...)
}

// Table is the request as hooks see it: {model, system, messages, tools, params}. The
// messages and tools are the request's own lists, not copied: a hook that reads neither
// costs nothing for them however long the conversation (a Lua hook that never looks them
// up does not get them converted).
func (r LLMRequest) Table() map[string]any {
	return map[string]any{"model": r.Model, "system": r.System, "messages": messagesOrEmpty(r.Messages),
		"tools": tablesOrEmpty(r.Tools), "params": ArgsOrEmpty(r.Params)}
}

// messagesOrEmpty is l, or an empty list for nil.
func messagesOrEmpty(l []Message) []Message {
	if l == nil {
		return []Message{}
	}
	return l
}

// tablesOrEmpty is l, or an empty list for nil: a request always has its lists.
func tablesOrEmpty(l []map[string]any) []map[string]any {
	if l == nil {
		return []map[string]any{}
	}
	return l
}

// Kwargs are pre_api_request's and wrap_llm_call's arguments: the request's identity and
// the whole request.
func (r LLMRequest) Kwargs() map[string]any {
	return map[string]any{"session_id": r.SessionID, "platform": r.Platform, "model": r.Model,
		"api_call_count": r.APICallCount, "request": r.Table()}
}

// APIRequest is r as the API request hooks' identity (post_api_request's arguments).
func (r LLMRequest) APIRequest() APIRequest {
	return APIRequest{SessionID: r.SessionID, Model: r.Model, Platform: r.Platform, APICallCount: r.APICallCount}
}

// RequestKeys are the keys of a request table a hook may give.
var RequestKeys = []string{"model", "system", "messages", "tools", "params"}

// WithTable is r with the fields t gives replaced, a key at a time: a hook that gives only
// tools narrows the tools and keeps the rest. A field of the wrong type, or a key that is
// not a request's, is an error naming it, and r is returned unchanged.
func (r LLMRequest) WithTable(t map[string]any) (LLMRequest, error) {
	out := r
	for _, k := range slices.Sorted(maps.Keys(t)) {
		v := t[k]
		var ok bool
		switch k {
		case "model":
			out.Model, ok = v.(string)
		case "system":
			out.System, ok = v.(string)
		case "messages":
			var err error
			if out.Messages, err = messagesFrom("request.messages", v); err != nil {
				return r, err
			}
			ok = true
		case "tools":
			out.Tools, ok = listOfTables(v)
		case "params":
			out.Params, ok = tableOrEmpty(v)
		default:
			return r, fmt.Errorf("request key %q is not one of %v", k, RequestKeys)
		}
		if !ok {
			return r, fmt.Errorf("request.%s must be %s, not %s", k, requestKeyType(k), show(v))
		}
	}
	return out, nil
}

func requestKeyType(k string) string {
	switch k {
	case "messages", "tools":
		return "a list of tables"
	case "params":
		return "a table"
	}
	return "a string"
}

// LLMResponse is the model's answer to one request: what the host's model call returns,
// what wrap_llm_call's next returns, and what pre_api_request's respond gives instead.
type LLMResponse struct {
	Model      string
	Content    string     // the text of the answer
	ToolCalls  []ToolCall // the tools the model calls (Name, Args, ToolCallID); hooks see {id=..., name=..., args={...}}
	StopReason string
	Usage      map[string]any // the API's token counts, as it gives them
}

// Table is the response as hooks see it: {model, content, tool_calls, stop_reason, usage}.
func (r LLMResponse) Table() map[string]any {
	return map[string]any{"model": r.Model, "content": r.Content, "tool_calls": toolCallsList(r.ToolCalls),
		"stop_reason": r.StopReason, "usage": ArgsOrEmpty(r.Usage)}
}

// ResponseKeys are the keys of a response table a hook may give.
var ResponseKeys = []string{"model", "content", "tool_calls", "stop_reason", "usage"}

// ResponseFrom reads a response a hook gave: a string is the content alone; a table has
// the keys of Table, each optional. A value of the wrong type, or a key that is not a
// response's, is an error naming it.
func ResponseFrom(v any) (LLMResponse, error) {
	if s, ok := v.(string); ok {
		return LLMResponse{Content: s}, nil
	}
	t, ok := tableOrEmpty(v)
	if !ok {
		return LLMResponse{}, fmt.Errorf("a response must be a string or a table, not %s", show(v))
	}
	var r LLMResponse
	for _, k := range slices.Sorted(maps.Keys(t)) {
		v := t[k]
		switch k {
		case "model":
			r.Model, ok = v.(string)
		case "content":
			r.Content, ok = v.(string)
		case "stop_reason":
			r.StopReason, ok = v.(string)
		case "tool_calls":
			var err error
			if r.ToolCalls, err = toolCallsFrom("response.tool_calls", v); err != nil {
				return LLMResponse{}, err
			}
		case "usage":
			r.Usage, ok = tableOrEmpty(v)
		default:
			return LLMResponse{}, fmt.Errorf("response key %q is not one of %v", k, ResponseKeys)
		}
		if !ok {
			return LLMResponse{}, fmt.Errorf("response.%s must be %s, not %s", k, responseKeyType(k), show(v))
		}
	}
	return r, nil
}

func responseKeyType(k string) string {
	switch k {
	case "tool_calls":
		return "a list of tables"
	case "usage":
		return "a table"
	}
	return "a string"
}

// listOfTables reads a list of tables; an empty table (Lua cannot tell {} from []) is the
// empty list.
func listOfTables(v any) ([]map[string]any, bool) {
	switch x := v.(type) {
	case []map[string]any:
		return x, true
	case []any:
		out := make([]map[string]any, len(x))
		for i, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			out[i] = m
		}
		return out, true
	case map[string]any:
		return []map[string]any{}, len(x) == 0
	}
	return nil, false
}

// tableOrEmpty reads a table; an empty list (Lua's {} may come as one) is the empty table.
func tableOrEmpty(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case []any:
		return map[string]any{}, len(x) == 0
	}
	return nil, false
}
