#!/bin/sh
# SubagentStop (code-reviewer): the reviewer does not hand back a report without a verdict.
input=$(cat)
msg=$(printf '%s' "$input" | jq -r '.last_assistant_message // ""')
case "$msg" in
  *"VERDICT: approve"*|*"VERDICT: request changes"*) exit 0 ;;
esac
jq -n '{decision: "block", reason: "End your review with a line VERDICT: approve or VERDICT: request changes."}'
