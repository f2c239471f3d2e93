#!/bin/sh
# PostToolUse for `go test` (if condition): tell the model which tests failed, from the
# Bash tool's stdout.
failed=$(jq -r '.tool_response.stdout' | grep -E '^--- FAIL' | sed 's/^--- FAIL: //; s/ (.*//' | paste -sd, -)
if [ -n "$failed" ]; then
  jq -n --arg f "$failed" '{hookSpecificOutput: {hookEventName: "PostToolUse",
    additionalContext: ("Failing tests: \($f). Fix them before you stop.")}}'
fi
