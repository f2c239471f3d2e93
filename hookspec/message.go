package hookspec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Message is one message of a conversation, the one shape of it everywhere: what a host
// stores, what pre_llm_call's conversation_history and pre_compact's messages hold, and
// what a request to the model carries. Hooks see it as a table {role=..., content=...,
// tool_calls=..., tool_call_id=...} with the host API's other keys beside them.
type Message struct {
	Role       string     // "user", "assistant", "system", "tool", as the host's API names them
	Content    string     // the text; a content that is not text (a list of blocks) is in Extra["content"]
	ToolCalls  []ToolCall // an assistant message's tool calls (Name, Args, ToolCallID)
	ToolCallID string     // a tool message: the call it answers
	// Extra holds the other keys of the host API's message, kept as they are (a
	// provider's own fields, a content given as blocks). Hooks see them as keys of the
	// message; the typed fields above win over a key of the same name.
	Extra map[string]any
}

// Table is m as hooks see it: role and content always (Extra's content when Content is ""
// and Extra has one), tool_calls and tool_call_id when set, and Extra's other keys.
func (m Message) Table() map[string]any {
	t := make(map[string]any, len(m.Extra)+4)
	maps.Copy(t, m.Extra)
	t["role"] = m.Role
	if _, blocks := m.Extra["content"]; m.Content != "" || !blocks {
		t["content"] = m.Content
	}
	if len(m.ToolCalls) > 0 {
		t["tool_calls"] = toolCallsList(m.ToolCalls)
	} else {
		delete(t, "tool_calls")
	}
	if m.ToolCallID != "" {
		t["tool_call_id"] = m.ToolCallID
	} else {
		delete(t, "tool_call_id")
	}
	return t
}

// MessageFrom reads a message a hook or a host's JSON gave: a table with role (a string),
// content (a string, or anything else kept in Extra), tool_calls (a list of {id, name,
// args}), tool_call_id, and any other key kept in Extra. A typed key of the wrong type is
// an error naming it.
func MessageFrom(v any) (Message, error) { return messageFrom("message", v) }

// messageFrom is MessageFrom with what naming the message in errors.
func messageFrom(what string, v any) (Message, error) {
	if m, ok := v.(Message); ok {
		return m, nil
	}
	t, ok := tableOrEmpty(v)
	if !ok {
		return Message{}, fmt.Errorf("%s must be a table, not %s", what, show(v))
	}
	var m Message
	for _, k := range slices.Sorted(maps.Keys(t)) {
		v := t[k]
		var err error
		switch k {
		case "role":
			if m.Role, ok = v.(string); !ok {
				err = fmt.Errorf("%s.role must be a string, not %s", what, show(v))
			}
		case "content":
			if s, isText := v.(string); isText {
				m.Content = s
			} else {
				m.Extra = withKey(m.Extra, k, v)
			}
		default:
			m.Extra = withKey(m.Extra, k, v)
		case "tool_calls":
			m.ToolCalls, err = toolCallsFrom(what+".tool_calls", v)
		case "tool_call_id":
			if m.ToolCallID, ok = v.(string); !ok {
				err = fmt.Errorf("%s.tool_call_id must be a string, not %s", what, show(v))
			}
		}
		if err != nil {
			return Message{}, err
		}
	}
	return m, nil
}

// withKey is e with k set to v, made when nil.
func withKey(e map[string]any, k string, v any) map[string]any {
	if e == nil {
		e = map[string]any{}
	}
	e[k] = v
	return e
}

// MarshalJSON writes m as its Table: the host API's JSON shape.
func (m Message) MarshalJSON() ([]byte, error) { return json.Marshal(m.Table()) }

// UnmarshalJSON reads a message as MessageFrom does.
func (m *Message) UnmarshalJSON(data []byte) error {
	var t map[string]any
	if err := json.Unmarshal(data, &t); err != nil {
		return err
	}
	got, err := MessageFrom(t)
	if err != nil {
		return err
	}
	*m = got
	return nil
}

// MessagesFrom reads a list of messages (a hook's table or a host's JSON); an empty table
// is the empty list. An element that is not a message is an error naming its position.
func MessagesFrom(v any) ([]Message, error) { return messagesFrom("messages", v) }

// messagesFrom is MessagesFrom with what naming the list in errors.
func messagesFrom(what string, v any) ([]Message, error) {
	var l []any
	switch x := v.(type) {
	case []Message:
		return x, nil
	case map[string]any:
		if len(x) == 0 {
			return []Message{}, nil
		}
	case []map[string]any:
		l = make([]any, len(x))
		for i, e := range x {
			l[i] = e
		}
	case []any:
		l = x
	}
	if l == nil {
		return nil, fmt.Errorf("%s must be a list of tables, not %s", what, show(v))
	}
	out := make([]Message, len(l))
	for i, e := range l {
		m, err := messageFrom(fmt.Sprintf("%s[%d]", what, i+1), e)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

// Table is c as a model's tool call, the shape of a response's tool_calls and a message's:
// {id=..., name=..., args={...}}.
func (c ToolCall) Table() map[string]any {
	return map[string]any{"id": c.ToolCallID, "name": c.Name, "args": ArgsOrEmpty(c.Args)}
}

// toolCallsList is l as hooks see it, [] for nil.
func toolCallsList(l []ToolCall) []any {
	out := make([]any, len(l))
	for i, c := range l {
		out[i] = c.Table()
	}
	return out
}

// toolCallsFrom reads a list of {id, name, args} tables (an empty table is the empty
// list): name must be a non-empty string, id a string, args a table.
func toolCallsFrom(what string, v any) ([]ToolCall, error) {
	l, ok := listOfTables(v)
	if !ok {
		return nil, fmt.Errorf("%s must be a list of tables {id=..., name=..., args={...}}, not %s", what, show(v))
	}
	out := make([]ToolCall, len(l))
	for i, t := range l {
		c := &out[i]
		for k, v := range t {
			switch k {
			case "id":
				c.ToolCallID, ok = v.(string)
			case "name":
				c.Name, ok = v.(string)
			case "args":
				c.Args, ok = tableOrEmpty(v)
			default:
				return nil, fmt.Errorf("%s[%d]: key %q is not one of [args id name]", what, i+1, k)
			}
			if !ok {
				return nil, fmt.Errorf("%s[%d].%s must be a %s, not %s", what, i+1, k, map[bool]string{true: "table", false: "string"}[k == "args"], show(v))
			}
		}
		if c.Name == "" {
			return nil, fmt.Errorf("%s[%d] has no name: a tool call is {id=..., name=..., args={...}}", what, i+1)
		}
	}
	return out, nil
}
