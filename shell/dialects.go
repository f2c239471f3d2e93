package shell

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/jsonvalue"
)

// The dialects of hooks written for OpenAI Codex and Gemini CLI. Both read Claude Code's
// settings shape (event -> [{matcher, hooks: [{type, command, timeout}]}]) and much of
// its wire protocol; each follows its own agent where they differ: Codex's event and tool
// names (apply_patch, matched by Edit and Write too), turn_id and model in the payload,
// and its strict answers (what Codex rejects is a hook error here too); Gemini CLI's
// event names (BeforeTool, AfterAgent, ...), tool names (run_shell_command, replace, ...),
// millisecond timeouts, decisions (allow, deny, block) and tool_input merged into the
// arguments.

// Dialects of hooks written for other agents.
const (
	DialectCodex  = "codex"
	DialectGemini = "gemini"
)

// codexEvents maps the hooks a Codex hook can serve to Codex's event names.
var codexEvents = map[string]string{
	hooknames.PreToolCall: "PreToolUse", hooknames.PostToolCall: "PostToolUse", hooknames.PreLLMCall: "UserPromptSubmit",
	hooknames.OnSessionStart: "SessionStart", hooknames.PreVerify: "Stop", hooknames.SubagentStop: "SubagentStop",
	hooknames.PreApprovalRequest: "PermissionRequest", hooknames.PreCompact: "PreCompact", hooknames.PostCompact: "PostCompact",
	hooknames.OnSessionEnd: "Interrupt", // fires only for a turn the user interrupted
}

// geminiEvents maps the hooks a Gemini CLI hook can serve to Gemini CLI's event names.
var geminiEvents = map[string]string{
	hooknames.PreToolCall: "BeforeTool", hooknames.PostToolCall: "AfterTool", hooknames.PreLLMCall: "BeforeAgent",
	hooknames.PreVerify: "AfterAgent", hooknames.OnSessionStart: "SessionStart", hooknames.OnSessionFinalize: "SessionEnd",
	hooknames.OnNotification: "Notification", hooknames.PreCompact: "PreCompress",
}

// codexTools: Bash, and apply_patch for the file-writing tools (its input the patch).
var codexTools = &ToolTable{ours: map[string]ClaudeTool{
	"terminal":   {Name: "Bash"},
	"patch":      {Name: "apply_patch", encode: editPatch},
	"write_file": {Name: "apply_patch", encode: addPatch},
}}

// geminiTools: Gemini CLI's built-in tool names and argument names.
var geminiTools = &ToolTable{ours: map[string]ClaudeTool{
	"terminal":     {Name: "run_shell_command"},
	"read_file":    {Name: "read_file", Args: map[string]string{"path": "file_path"}},
	"write_file":   {Name: "write_file", Args: map[string]string{"path": "file_path"}},
	"patch":        {Name: "replace", Args: map[string]string{"path": "file_path"}},
	"search_files": {Name: "search_file_content", Args: map[string]string{"file_glob": "include"}},
	"web_search":   {Name: "google_web_search"},
	"web_extract":  {Name: "web_fetch"},
}}

// dialectEvents is the event table of dialect d.
func dialectEvents(d string) map[string]string {
	switch d {
	case DialectCodex:
		return codexEvents
	case DialectGemini:
		return geminiEvents
	}
	return claudeEvents
}

// DialectEvent is dialect d's name of hook ("" when a hook of that dialect cannot serve it).
func DialectEvent(d, hook string) string { return dialectEvents(d)[hook] }

// DialectHooks lists the hooks a hook of dialect d can serve, in the documented order.
func DialectHooks(d string) []string {
	var out []string
	for _, h := range hookspec.Names() {
		if dialectEvents(d)[h] != "" {
			out = append(out, h)
		}
	}
	return out
}

// agentName names the agent of dialect d for messages.
func agentName(d string) string {
	switch d {
	case DialectCodex:
		return "Codex"
	case DialectGemini:
		return "Gemini CLI"
	}
	return "Claude Code"
}

// editPatch is a patch tool call as Codex's apply_patch input: the patch, in Codex's
// format, that replaces old_string by new_string in path.
func editPatch(args map[string]any) map[string]any {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: " + firstString(args["path"]) + "\n@@\n")
	for _, l := range strings.Split(firstString(args["old_string"]), "\n") {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range strings.Split(firstString(args["new_string"]), "\n") {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString("*** End Patch\n")
	return map[string]any{"command": b.String()}
}

// addPatch is a write_file call as Codex's apply_patch input: a patch that adds the file.
func addPatch(args map[string]any) map[string]any {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: " + firstString(args["path"]) + "\n")
	for _, l := range strings.Split(strings.TrimSuffix(firstString(args["content"]), "\n"), "\n") {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString("*** End Patch\n")
	return map[string]any{"command": b.String()}
}

// dialectPayload is the stdin document of a hook of dialect d for one firing of event.
func dialectPayload(d, event string, kwargs map[string]any, cwd string, tools *ToolTable) ([]byte, error) {
	if d == DialectClaude {
		return claudePayload(event, kwargs, cwd, tools)
	}
	b, err := claudePayload(event, kwargs, cwd, tools) // the shared shape, then each agent's own fields
	if err != nil {
		return nil, err
	}
	v, err := jsonvalue.Decode(b)
	if err != nil {
		return nil, err
	}
	p := v.(map[string]any)
	p["hook_event_name"] = eventName(d, event, kwargs)
	if d == DialectCodex {
		p["turn_id"] = firstString(kwargs["turn_id"], kwargs["task_id"], kwargs["tool_call_id"])
		p["model"] = firstString(kwargs["model"])
		p["transcript_path"] = nil
		if p["agent_transcript_path"] == "" { // Codex's paths are null when there is none
			p["agent_transcript_path"] = nil
		}
		if event == hooknames.OnSessionEnd { // Interrupt: no reason, Codex has no SessionEnd
			delete(p, "reason")
		}
		return encodePayload(p)
	}
	delete(p, "permission_mode")
	p["timestamp"] = time.Now().UTC().Format(time.RFC3339)
	switch event {
	case hooknames.PostToolCall:
		result := firstString(kwargs["result"])
		p["tool_response"] = map[string]any{"llmContent": result, "returnDisplay": result}
	case hooknames.PreVerify:
		p["prompt"], p["prompt_response"] = firstString(kwargs["user_message"]), p["last_assistant_message"]
		delete(p, "last_assistant_message")
	case hooknames.OnSessionFinalize:
		p["reason"] = "exit"
	case hooknames.OnNotification:
		p["details"] = map[string]any{}
		delete(p, "title")
	case hooknames.PreCompact:
		delete(p, "custom_instructions")
	}
	return encodePayload(p)
}

// dialectOutcome reads what a hook of dialect d answered to event.
func dialectOutcome(d, event string, exit int, stdout, stderr string, tools *ToolTable, kwargs map[string]any) (any, hookspec.Answer, string) {
	switch d {
	case DialectCodex:
		if problem := codexRejects(event, exit, stdout, stderr, kwargs); problem != "" {
			v, _ := jsonvalue.Decode([]byte(strings.TrimSpace(stdout)))
			return v, hookspec.Answer{}, problem
		}
	case DialectGemini:
		return geminiOutcome(event, exit, stdout, stderr, tools, kwargs)
	}
	return outcomeOf(d, event, exit, stdout, stderr, tools, kwargs)
}

// codexRejects says why Codex would reject a hook's answer (codex-rs hooks
// output_parser.rs): then the hook failed and its answer does nothing. "" when Codex
// accepts it.
func codexRejects(event string, exit int, stdout, stderr string, kwargs map[string]any) string {
	if exit == exitBlock && strings.TrimSpace(stderr) == "" && (event == hooknames.PreToolCall || event == hooknames.PreLLMCall) {
		return "exited with code 2 but wrote no blocking reason to stderr (Codex does not block then)"
	}
	if event == hooknames.OnSessionEnd {
		return codexInterruptRejects(exit, stdout)
	}
	out := strings.TrimSpace(stdout)
	if exit != 0 || out == "" || !strings.HasPrefix(out, "{") {
		return ""
	}
	v, err := jsonvalue.Decode([]byte(out))
	if err != nil {
		return ""
	}
	obj := v.(map[string]any)
	spec, _ := obj["hookSpecificOutput"].(map[string]any)
	blank := func(k string, m map[string]any) bool { s, _ := m[k].(string); return strings.TrimSpace(s) == "" }
	has := func(k string, m map[string]any) bool { _, ok := m[k]; return ok }
	name := eventName(DialectCodex, event, kwargs)
	switch event {
	case hooknames.PreToolCall, hooknames.PreApprovalRequest:
		switch {
		case obj["continue"] == false:
			return name + " hook returned unsupported continue:false"
		case has("stopReason", obj):
			return name + " hook returned unsupported stopReason"
		case obj["suppressOutput"] == true:
			return name + " hook returned unsupported suppressOutput"
		}
	case hooknames.PostToolCall:
		if obj["suppressOutput"] == true {
			return "PostToolUse hook returned unsupported suppressOutput"
		}
	}
	switch event {
	case hooknames.PreToolCall:
		return codexPreToolRejects(obj, spec, kwargs, blank, has)
	case hooknames.PreApprovalRequest:
		if dec, _ := spec["decision"].(map[string]any); dec != nil {
			switch {
			case has("updatedInput", dec):
				return "PermissionRequest hook returned unsupported updatedInput"
			case has("updatedPermissions", dec):
				return "PermissionRequest hook returned unsupported updatedPermissions"
			case dec["interrupt"] == true:
				return "PermissionRequest hook returned unsupported interrupt:true"
			}
		}
	case hooknames.PostToolCall, hooknames.PreLLMCall, hooknames.PreVerify:
		if obj["decision"] == "block" && blank("reason", obj) {
			return name + " hook returned decision:block without a non-empty reason"
		}
		if event == hooknames.PostToolCall && obj["decision"] == nil && obj["continue"] != false && has("reason", obj) {
			return "PostToolUse hook returned reason without decision"
		}
	}
	return ""
}

// codexInterruptRejects is codexRejects for Interrupt, which only observes: an exit code 2
// is an ordinary failure, and stdout is empty or a JSON object with systemMessage alone.
func codexInterruptRejects(exit int, stdout string) string {
	out := strings.TrimSpace(stdout)
	switch {
	case exit == exitBlock:
		return "Interrupt hook exited with code 2 (a failure: an interrupted turn cannot be blocked)"
	case exit != 0 || out == "":
		return ""
	case !strings.HasPrefix(out, "{") && !strings.HasPrefix(out, "["):
		return "Interrupt hook returned non-JSON stdout"
	}
	v, err := jsonvalue.Decode([]byte(out))
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return "Interrupt hook returned invalid interrupt hook JSON output"
	}
	for k := range obj {
		if k != "systemMessage" {
			return fmt.Sprintf("Interrupt hook returned invalid interrupt hook JSON output (%q: only systemMessage is read)", k)
		}
	}
	return ""
}

// codexPreToolRejects is codexRejects for PreToolUse's decisions.
func codexPreToolRejects(obj, spec, kwargs map[string]any, blank func(string, map[string]any) bool, has func(string, map[string]any) bool) string {
	pd := spec["permissionDecision"]
	if has("permissionDecision", spec) || has("permissionDecisionReason", spec) || has("updatedInput", spec) {
		switch {
		case has("updatedInput", spec) && pd != "allow":
			return "PreToolUse hook returned updatedInput without permissionDecision:allow"
		case pd == "allow" && !has("updatedInput", spec):
			return "PreToolUse hook returned unsupported permissionDecision:allow"
		case pd == "allow" && kwargs != nil && codexTools.ours[firstString(kwargs["tool_name"])].encode != nil:
			return "PreToolUse hook rewrote an apply_patch call; a rewritten patch cannot be applied here"
		case pd == "ask":
			return "PreToolUse hook returned unsupported permissionDecision:ask"
		case pd == "defer": // not one of Codex's values: its parser refuses the answer
			return "PreToolUse hook returned unsupported permissionDecision:defer"
		case pd == "deny" && blank("permissionDecisionReason", spec):
			return "PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason"
		case pd == nil && has("permissionDecisionReason", spec):
			return "PreToolUse hook returned permissionDecisionReason without permissionDecision"
		}
		return ""
	}
	switch obj["decision"] {
	case "approve":
		return "PreToolUse hook returned unsupported decision:approve"
	case "block":
		if blank("reason", obj) {
			return "PreToolUse hook returned decision:block without a non-empty reason"
		}
	case nil:
		if has("reason", obj) {
			return "PreToolUse hook returned reason without decision"
		}
	}
	return ""
}

// geminiOutcome reads a Gemini CLI hook's answer: exit code 2 (stderr), else its stdout
// JSON (plain text is a mistake: Gemini CLI parses stdout as JSON).
func geminiOutcome(event string, exit int, stdout, stderr string, tools *ToolTable, kwargs map[string]any) (any, hookspec.Answer, string) {
	why := truncateChars(strings.TrimSpace(stderr), stderrMessageLimit)
	if exit == exitBlock {
		return nil, geminiDeny(event, firstNonBlank(why, DefaultBlockMessage)), geminiCannot(event, "exit code 2")
	}
	if exit != 0 {
		return nil, hookspec.Answer{}, fmt.Sprintf("exited with status %d (a warning in Gemini CLI): %s", exit, why)
	}
	out := strings.TrimSpace(stdout)
	if out == "" {
		return nil, hookspec.Answer{}, ""
	}
	v, err := jsonvalue.Decode([]byte(out))
	if err != nil {
		return nil, hookspec.Answer{}, notJSON(err, out)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return v, hookspec.Answer{}, "stdout is not a JSON object"
	}
	spec, _ := obj["hookSpecificOutput"].(map[string]any)
	reason := firstNonBlank(firstString(obj["reason"]), DefaultBlockMessage)
	switch d := obj["decision"]; {
	case d == "deny" || d == "block":
		return obj, geminiDeny(event, reason), geminiCannot(event, fmt.Sprintf("decision %q", d))
	case d != nil && d != "allow":
		return obj, hookspec.Answer{}, fmt.Sprintf("unknown decision %v (expected \"allow\", \"deny\" or \"block\"); answer ignored", show(d))
	}
	if obj["continue"] == false {
		switch event {
		case hooknames.PreToolCall, hooknames.PreLLMCall: // the loop stops: the call does not happen
			return obj, blockAnswer(firstNonBlank(firstString(obj["stopReason"]), reason)), ""
		case hooknames.PreVerify: // the agent stops without a retry
			return obj, hookspec.Answer{}, ""
		}
		return obj, hookspec.Answer{}, fmt.Sprintf(`"continue": false stops Gemini CLI's agent loop; from %s it cannot be stopped here, so it went on`, event)
	}
	a := hookspec.Answer{}
	if c, _ := spec["additionalContext"].(string); strings.TrimSpace(c) != "" &&
		(event == hooknames.PreLLMCall || event == hooknames.PostToolCall || event == hooknames.OnSessionStart) {
		a = hookspec.Answer{Kind: hookspec.Context, Text: c}
	}
	if event == hooknames.PostToolCall {
		if o, ok := spec["tool_output"].(string); ok {
			a.Output = &o
		}
	}
	if input, ok := spec["tool_input"].(map[string]any); ok && event == hooknames.PreToolCall {
		return obj, geminiMerge(input, tools, kwargs), ""
	}
	if spec["clearContext"] == true {
		return obj, a, "hookSpecificOutput.clearContext: the conversation history cannot be cleared from a hook here"
	}
	return obj, a, ""
}

// geminiDeny is a deny (or exit code 2) of event: the tool call is blocked, a tool's result
// replaced by the reason, the prompt blocked, the response rejected with the reason as
// the next prompt.
func geminiDeny(event, reason string) hookspec.Answer {
	switch event {
	case hooknames.PreToolCall, hooknames.PreLLMCall:
		return blockAnswer(reason)
	case hooknames.PostToolCall:
		return hookspec.Answer{Output: &reason}
	case hooknames.PreVerify:
		return hookspec.Answer{Kind: hookspec.Continue, Message: reason}
	}
	return hookspec.Answer{}
}

// geminiCannot is the problem of a deny on an event where Gemini CLI itself ignores it.
func geminiCannot(event, what string) string {
	if slices.Contains([]string{hooknames.PreToolCall, hooknames.PreLLMCall, hooknames.PostToolCall, hooknames.PreVerify}, event) {
		return ""
	}
	return what + " has no effect on " + geminiEvents[event] + " (advisory in Gemini CLI)"
}

// geminiMerge is BeforeTool's hookSpecificOutput.tool_input: merged into the arguments the
// model gave (its keys override theirs), in Gemini CLI's names, then back in ours.
func geminiMerge(input map[string]any, tools *ToolTable, kwargs map[string]any) hookspec.Answer {
	name := firstString(kwargs["tool_name"])
	args, _ := kwargs["args"].(map[string]any)
	_, theirs := tools.ToClaude(name, args)
	merged := make(map[string]any, len(theirs)+len(input))
	for k, v := range theirs {
		merged[k] = v
	}
	for k, v := range input {
		merged[k] = v
	}
	return hookspec.Answer{Kind: hookspec.Modify, Args: tools.FromClaude(name, merged)}
}

// AgentToolName reports which of our tools another agent calls name, and which agent:
// Claude Code's and Codex's "Bash" and Gemini CLI's "run_shell_command" are our "terminal".
// A name that is one of ours (Gemini's read_file) is not another agent's: ok is false.
func AgentToolName(name string) (ours, agent string, ok bool) {
	for _, t := range []struct {
		agent string
		table *ToolTable
	}{{"Claude Code", DefaultTools}, {"Codex", codexTools}, {"Gemini CLI", geminiTools}} {
		if _, mine := defaultTools[name]; mine {
			return "", "", false
		}
		for _, o := range slices.Sorted(maps.Keys(t.table.ours)) {
			if t.table.ours[o].Name == name {
				return o, t.agent, true
			}
		}
	}
	return "", "", false
}
