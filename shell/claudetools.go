package shell

import (
	"encoding/json"

	"github.com/hermes-hooks/hermes/internal/jsonvalue"
)

// claudeToolResponse is a tool's result as Claude Code's tool_response for its tool (name
// and input in Claude Code's vocabulary), so that hooks reading `.tool_response.stdout`
// find it: Bash gets {stdout, stderr, interrupted, isImage}; Write, Edit and Read the
// fields Claude Code's own tools return; any other tool the result's JSON value (or the
// string when it is not JSON). The result's own fields stay beside the ones added.
func claudeToolResponse(name string, input map[string]any, result any) any {
	v := toolResponse(result)
	obj, isObj := v.(map[string]any)
	if !isObj {
		obj = map[string]any{}
		if s, ok := v.(string); ok && name == "Bash" {
			obj["output"] = s
		} else if name != "Bash" {
			return v
		}
	}
	out := make(map[string]any, len(obj)+4)
	for k, x := range obj {
		out[k] = x
	}
	errText, failed := obj["error"].(string)
	switch name {
	case "Bash": // our terminal result: {"output": ..., "exit_code": n} or {"error": ...}
		out["stdout"] = firstString(obj["output"], obj["stdout"])
		out["stderr"] = firstString(obj["stderr"], errText)
		out["interrupted"] = obj["interrupted"] == true
		out["isImage"] = false
	case "Write":
		out["type"] = "create"
		out["filePath"], out["content"] = firstString(input["file_path"]), firstString(input["content"])
		out["success"] = !failed
	case "Edit", "MultiEdit":
		out["filePath"] = firstString(input["file_path"])
		out["oldString"], out["newString"] = firstString(input["old_string"]), firstString(input["new_string"])
		out["replaceAll"] = input["replace_all"] == true
		out["success"] = !failed
	case "Read":
		content := firstString(obj["content"], obj["output"])
		out["type"] = "text"
		out["file"] = map[string]any{"filePath": firstString(input["file_path"]), "content": content}
	}
	return out
}

// toolResponse is a tool's result as JSON: the value when the result is JSON, else the
// string.
func toolResponse(result any) any {
	s, ok := result.(string)
	if !ok {
		return nil
	}
	if v, err := jsonvalue.Decode([]byte(s)); err == nil {
		return v
	}
	return s
}

// updatedToolOutput is the result a PostToolUse answer gives the model instead of the
// tool's: hookSpecificOutput.updatedToolOutput (or the older updatedMCPToolOutput), a
// string as it is and any other JSON value encoded; nil when there is none.
func updatedToolOutput(obj map[string]any) *string {
	spec, _ := obj["hookSpecificOutput"].(map[string]any)
	for _, k := range []string{"updatedToolOutput", "updatedMCPToolOutput"} {
		v, ok := spec[k]
		if !ok || v == nil {
			continue
		}
		if s, isStr := v.(string); isStr {
			return &s
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		s := string(b)
		return &s
	}
	return nil
}
