package shell

import "github.com/hermes-hooks/hermes/hookspec"

// value renders an answer in the shape a Lua callback would return, for comparisons.
func value(a hookspec.Answer) any {
	switch a.Kind {
	case hookspec.Block:
		return map[string]any{"action": "block", "message": a.Message}
	case hookspec.Context:
		return map[string]any{"context": a.Text}
	case hookspec.Replace:
		return a.Text
	case hookspec.Skip:
		return map[string]any{"action": "skip", "reason": a.Message}
	case hookspec.Rewrite:
		return map[string]any{"action": "rewrite", "text": a.Text}
	case hookspec.Allow:
		return map[string]any{"action": "allow"}
	}
	return nil
}
