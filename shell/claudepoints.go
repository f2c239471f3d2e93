package shell

import (
	"fmt"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// The lifecycle points of SPEC §4.5 as Claude Code's events: Stop (pre_verify),
// PostToolUseFailure (post_tool_failure), PreCompact and PostCompact, Notification
// (on_notification) and PermissionRequest (pre_approval_request); their payloads and the
// answers Claude Code reads from them.

// pointQuery is what a Claude Code matcher of one of the points is compared with: the
// tool's name, the notification's type, the compaction's trigger, the type of a subagent
// about to stop (SubagentStop). ok is false for Stop, which has no matcher.
func pointQuery(event string, kwargs map[string]any, tools *ToolTable) (q string, ok bool) {
	switch event {
	case hooknames.PreVerify:
		if s := hookspec.SubagentOf(kwargs); s != nil {
			return s.Type, true
		}
	case hooknames.PostToolFailure:
		name, _ := kwargs["tool_name"].(string)
		q, _ = tools.ToClaude(name, nil)
		return q, true
	case hooknames.PreApprovalRequest: // the approval system asks about shell commands
		q, _ = tools.ToClaude("terminal", nil)
		return q, true
	case hooknames.OnNotification:
		return firstString(kwargs["notification_type"]), true
	case hooknames.PreCompact, hooknames.PostCompact:
		return firstString(kwargs["trigger"]), true
	}
	return "", false
}

// pointPayload adds the fields of one of the points to p, Claude Code's stdin document.
func pointPayload(event string, kwargs map[string]any, p map[string]any, tools *ToolTable) {
	switch event {
	case hooknames.PreVerify:
		n, _ := kwargs["nudges"].(int)
		if n64, ok := kwargs["nudges"].(int64); ok {
			n = int(n64)
		}
		p["stop_hook_active"] = n > 0 // the agent already goes on because a Stop hook said so
		p["last_assistant_message"] = firstString(kwargs["response"])
		subagentPayload(kwargs, p)
	case hooknames.PostToolFailure:
		p["error"] = firstString(kwargs["error"])
		p["is_interrupt"] = kwargs["interrupted"] == true
	case hooknames.PreCompact:
		p["trigger"], p["custom_instructions"] = firstString(kwargs["trigger"]), firstString(kwargs["instructions"])
	case hooknames.PostCompact:
		p["trigger"], p["compact_summary"] = firstString(kwargs["trigger"]), firstString(kwargs["summary"])
	case hooknames.OnNotification:
		p["message"], p["title"] = firstString(kwargs["message"]), firstString(kwargs["title"])
		p["notification_type"] = firstString(kwargs["notification_type"])
	case hooknames.PreApprovalRequest:
		name, input := tools.ToClaude("terminal", map[string]any{
			"command": firstString(kwargs["command"]), "description": firstString(kwargs["description"])})
		p["tool_name"], p["tool_input"], p["permission_suggestions"] = name, input, []any{}
	}
}

// pointBlock is what exit code 2 does on one of the points (why is stderr); ok is false for
// an event that is not one of them.
func pointBlock(event, why string) (a hookspec.Answer, problem string, ok bool) {
	switch event {
	case hooknames.PreLLMCall: // the prompt is not sent
		return blockAnswer(firstNonBlank(why, DefaultBlockMessage)), "", true
	case hooknames.PreVerify: // Claude Code does not stop: stderr is its next instruction
		return hookspec.Answer{Kind: hookspec.Continue, Message: firstNonBlank(why, hookspec.DefaultContinueReason)}, "", true
	case hooknames.PostToolFailure: // stderr goes to the model
		if why == "" {
			return hookspec.Answer{}, "", true
		}
		return hookspec.Answer{Kind: hookspec.Context, Text: why}, "", true
	case hooknames.PreApprovalRequest: // the permission is denied
		return hookspec.Answer{Kind: hookspec.Deny, Message: firstNonBlank(why, DefaultBlockMessage)}, "", true
	case hooknames.PreCompact:
		return hookspec.Answer{}, "exit code 2 blocks the compaction in Claude Code; here the host compacts all the same", true
	case hooknames.OnNotification, hooknames.PostCompact: // Claude Code only shows stderr to the user
		return hookspec.Answer{}, "", true
	}
	return hookspec.Answer{}, "", false
}

// pointJSON reads Claude Code's JSON answer to one of the points; ok is false for an event
// that is not one of them.
func pointJSON(event string, obj, spec map[string]any) (a hookspec.Answer, problem string, ok bool) {
	reason, _ := obj["reason"].(string)
	stopReason, _ := obj["stopReason"].(string)
	stop := obj["continue"] == false
	switch event {
	case hooknames.PreLLMCall:
		switch {
		case obj["decision"] == "block": // the prompt is erased and not sent
			return blockAnswer(firstNonBlank(reason, DefaultBlockMessage)), "", true
		case stop: // Claude Code stops before the prompt reaches the model
			return blockAnswer(firstNonBlank(stopReason, reason, DefaultBlockMessage)), "", true
		}
		return hookspec.Answer{}, "", false // context: read as before
	case hooknames.PreVerify:
		if obj["decision"] == "block" && !stop {
			return hookspec.Answer{Kind: hookspec.Continue, Message: firstNonBlank(reason, hookspec.DefaultContinueReason)}, "", true
		}
		return hookspec.Answer{}, "", true // stop, or let it stop
	case hooknames.PostToolFailure:
		if c, _ := spec["additionalContext"].(string); strings.TrimSpace(c) != "" {
			return hookspec.Answer{Kind: hookspec.Context, Text: c}, "", true
		}
		return hookspec.Answer{}, "", true
	case hooknames.PreApprovalRequest:
		a, problem = permissionAnswer(spec)
		return a, problem, true
	case hooknames.PreCompact:
		if obj["decision"] == "block" {
			return hookspec.Answer{}, `decision "block" blocks the compaction in Claude Code; here the host compacts all the same`, true
		}
		return hookspec.Answer{}, "", true
	case hooknames.OnNotification, hooknames.PostCompact:
		return hookspec.Answer{}, "", true
	}
	return hookspec.Answer{}, "", false
}

// permissionAnswer reads PermissionRequest's hookSpecificOutput.decision: behavior "allow"
// (with updatedInput, and updatedPermissions to remember it) or "deny" (with message).
func permissionAnswer(spec map[string]any) (hookspec.Answer, string) {
	d, isObj := spec["decision"].(map[string]any)
	switch {
	case spec["decision"] == nil:
		return hookspec.Answer{}, ""
	case !isObj:
		return hookspec.Answer{}, fmt.Sprintf("hookSpecificOutput.decision is %s, expected {\"behavior\": \"allow\"|\"deny\", ...}; answer ignored", show(spec["decision"]))
	}
	remember := false
	if p, ok := d["updatedPermissions"].([]any); ok && len(p) > 0 {
		remember = true
	}
	switch d["behavior"] {
	case "allow":
		input, isTable := d["updatedInput"].(map[string]any)
		if !isTable && d["updatedInput"] != nil {
			return hookspec.Answer{}, "decision.updatedInput is not an object: the permission is not granted with other input"
		}
		return hookspec.Answer{Kind: hookspec.Allow, Args: input, Remember: remember}, ""
	case "deny":
		msg, _ := d["message"].(string)
		return hookspec.Answer{Kind: hookspec.Deny, Message: firstNonBlank(msg, DefaultBlockMessage), Remember: remember}, ""
	}
	return hookspec.Answer{}, fmt.Sprintf("unknown decision.behavior %s (expected \"allow\" or \"deny\"); answer ignored", show(d["behavior"]))
}

// show renders a JSON value for a message.
func show(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}
