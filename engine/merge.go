package engine

import "strings"

// Block is a vetoed tool call.
type Block struct {
	Message string // why, shown to the model as the tool's error
	Source  string // SourcePlugin or SourceShell
	Hook    string // the plugin name or shell command that blocked
}

// Dispatch is the decision of pre_gateway_dispatch.
type Dispatch struct {
	Action string // "allow" (the default), "skip" or "rewrite"
	Reason string // skip only, may be empty
	Text   string // rewrite only: the new message text
	Hook   string // who decided; "" for the default
}

// Dispatch actions.
const (
	DispatchAllow   = "allow"
	DispatchSkip    = "skip"
	DispatchRewrite = "rewrite"
)

// mergeBlock: the first result of the exact form {action="block", message=<non-empty
// string>} wins; anything else is ignored.
func mergeBlock(rs []HookResult) *Block {
	i := blockIndex(rs)
	if i < 0 {
		return nil
	}
	return &Block{Message: rs[i].value.(map[string]any)["message"].(string), Source: rs[i].Source, Hook: rs[i].Name}
}

// blockIndex is the index of the winning block, or -1.
func blockIndex(rs []HookResult) int {
	for i, r := range rs {
		m, ok := r.value.(map[string]any)
		if !ok || m["action"] != "block" {
			continue
		}
		if msg, ok := m["message"].(string); ok && msg != "" {
			return i
		}
	}
	return -1
}

// mergeContext joins, in order, every table with a non-empty string context and every
// non-blank string, with a blank line between them.
func mergeContext(rs []HookResult) string {
	var parts []string
	for _, r := range rs {
		switch v := r.value.(type) {
		case string:
			if strings.TrimSpace(v) != "" {
				parts = append(parts, v)
			}
		case map[string]any:
			if c, ok := v["context"].(string); ok && c != "" {
				parts = append(parts, c)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// mergeTransform returns the first string result (the first non-empty one when
// allowEmpty is false) and whether there was one.
func mergeTransform(rs []HookResult, allowEmpty bool) (string, bool) {
	for _, r := range rs {
		if s, ok := r.value.(string); ok && (allowEmpty || s != "") {
			return s, true
		}
	}
	return "", false
}

// mergeDispatch: the first result whose action is recognised decides; rewrite without a
// string text ends the scan with a normal dispatch.
func mergeDispatch(rs []HookResult) Dispatch {
	for _, r := range rs {
		m, ok := r.value.(map[string]any)
		if !ok {
			continue
		}
		switch m["action"] {
		case DispatchSkip:
			reason, _ := m["reason"].(string)
			return Dispatch{Action: DispatchSkip, Reason: reason, Hook: r.Name}
		case DispatchRewrite:
			if text, ok := m["text"].(string); ok {
				return Dispatch{Action: DispatchRewrite, Text: text, Hook: r.Name}
			}
			return Dispatch{Action: DispatchAllow, Hook: r.Name}
		case DispatchAllow:
			return Dispatch{Action: DispatchAllow, Hook: r.Name}
		}
	}
	return Dispatch{Action: DispatchAllow}
}

// outcome is the merged result of hook in its wire shape.
func outcome(hook string, rs []HookResult) any {
	switch hook {
	case PreToolCall:
		if b := mergeBlock(rs); b != nil {
			return map[string]any{"action": "block", "message": b.Message}
		}
	case PreLLMCall:
		if c := mergeContext(rs); c != "" {
			return map[string]any{"context": c}
		}
	case TransformToolResult, TransformTerminalOutput, TransformLLMOutput:
		if s, ok := mergeTransform(rs, hook != TransformLLMOutput); ok {
			return map[string]any{"text": s}
		}
	case PreGatewayDispatch:
		d := mergeDispatch(rs)
		if d.Hook == "" {
			return nil
		}
		switch d.Action {
		case DispatchSkip:
			return map[string]any{"action": d.Action, "reason": d.Reason}
		case DispatchRewrite:
			return map[string]any{"action": d.Action, "text": d.Text}
		}
		return map[string]any{"action": d.Action}
	}
	return nil
}
