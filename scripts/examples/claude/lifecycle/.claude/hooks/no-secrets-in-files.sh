#!/usr/bin/env bash
# PreToolUse for Write|Edit: refuse content that holds a cloud key.
input=$(cat)
content=$(jq -r '.tool_input.content // .tool_input.new_string // ""' <<<"$input")
file=$(jq -r '.tool_input.file_path' <<<"$input")
if grep -qE 'AKIA[0-9A-Z]{16}' <<<"$content"; then
  jq -n --arg f "$file" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny",
    permissionDecisionReason: ("\($f) would hold an AWS access key; read it from the environment instead")}}'
fi
exit 0
