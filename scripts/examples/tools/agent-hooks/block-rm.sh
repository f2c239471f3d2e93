#!/usr/bin/env bash
# pre_tool_call (matcher: terminal): refuse `rm -rf /` (any flags, `/` or `/*`), answering in
# the Claude-Code dialect {"decision": "block", "reason": ...}. Anything else: {}.
# Needs jq; without it the hook fails (logged) and lets the call through.
set -u
payload="$(cat -)"
if ! command -v jq >/dev/null 2>&1; then
  echo "block-rm.sh: jq is required (apt-get install jq, brew install jq)" >&2
  exit 1
fi
cmd=$(printf '%s' "$payload" | jq -r '.tool_input.command // empty')
# rm, any flags, then / or /* as a whole word: `rm -rf /tmp/x` is not matched.
if printf '%s\n' "$cmd" | grep -qE '(^|[;&|[:space:]])rm([[:space:]]+-[-a-zA-Z]*)*[[:space:]]+/\*?([[:space:]]|$)'; then
  jq -n --arg c "$cmd" '{decision: "block", reason: ("blocked: `" + $c + "` would delete the whole filesystem")}'
else
  printf '{}\n'
fi
